"""Test of cachelens tune's compile server (engine/src/bench/tune_compile.py).

Runs the real script the way cachelens does (python -c "<its text>" ...) with
stand-in torch/triton packages (fake_python/) and a stand-in kernel module
(fake_kernel_module.py).  Plain python3, no torch or triton needed:

    python3 tests/data/tune/test_tune_compile.py -v
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SCRIPT = os.path.join(REPO, "engine", "src", "bench", "tune_compile.py")
FAKE_PYTHON = os.path.join(HERE, "fake_python")
MODULE = os.path.join(HERE, "fake_kernel_module.py")
BROKEN_MODULE = os.path.join(HERE, "broken_kernel_module.py")
KERNEL = "triton_poi_fake_0"
PREFIX = "cachelens-tune: "
FIXTURE = os.path.join("fixtures", "torch-2.11-cu130-h100", "devset", "cache", "triton", "0")


def find_template():
    """A real Triton cache dir from the shared fixtures, or None."""
    for shared in (os.path.join(REPO, "..", "shared"), os.path.join(REPO, "shared")):
        for d in sorted(glob.glob(os.path.join(shared, FIXTURE, "*"))):
            names = os.listdir(d) if os.path.isdir(d) else []
            if any(n.endswith(".ptx") for n in names) and any(
                    n.endswith(".json") and not n.startswith("__grp__") for n in names):
                return os.path.abspath(d)
    return None


TEMPLATE = find_template()


def tree(root):
    out = set()
    for base, dirs, files in os.walk(root):
        for n in dirs + files:
            out.add(os.path.relpath(os.path.join(base, n), root))
    return out


def metadata(triton_dir):
    for n in os.listdir(triton_dir):
        if n.endswith(".json") and not n.startswith("__grp__"):
            with open(os.path.join(triton_dir, n)) as f:
                return json.load(f)
    raise AssertionError("no metadata json in " + triton_dir)


def records(stdout):
    return [json.loads(line[len(PREFIX):]) for line in stdout.splitlines()
            if line.startswith(PREFIX)]


class TuneCompileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SCRIPT) as f:
            cls.script = f.read()
        cls.tree_before = tree(HERE)

    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="cachelens-tune-test-")
        for d in ("triton", "inductor", "home", "tmp"):
            os.mkdir(os.path.join(self.scratch, d))
        self.tag = uuid.uuid4().hex

    def tearDown(self):
        # Nothing written beside the module or the fake packages, and in the
        # scratch dir nothing outside the two cache dirs.
        self.assertEqual(glob.glob(os.path.join(HERE, "**", "__pycache__"), recursive=True), [])
        self.assertEqual(tree(HERE), self.tree_before)
        self.assertEqual(sorted(os.listdir(self.scratch)), ["home", "inductor", "tmp", "triton"])
        self.assertEqual(os.listdir(os.path.join(self.scratch, "home")), [])
        self.assertEqual(os.listdir(os.path.join(self.scratch, "tmp")), [])
        shutil.rmtree(self.scratch)

    def env(self, pythonpath=FAKE_PYTHON, dont_write_bytecode=True, **extra):
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.path.join(self.scratch, "home"),
            "TMPDIR": os.path.join(self.scratch, "tmp"),
            "TRITON_CACHE_DIR": os.path.join(self.scratch, "triton"),
            "TORCHINDUCTOR_CACHE_DIR": os.path.join(self.scratch, "inductor"),
            "PYTHONPATH": pythonpath,
            "CACHELENS_TEST_TAG": self.tag,
        }
        if dont_write_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        if TEMPLATE:
            env["CACHELENS_FAKE_TRITON_TEMPLATE"] = TEMPLATE
        env.update(extra)
        return env

    def argv(self, module=MODULE, kernel=KERNEL, workers=2, timeout=2):
        return [sys.executable, "-c", self.script, "--module", module, "--kernel", kernel,
                "--workers", str(workers), "--timeout", str(timeout)]

    def run_server(self, stdin_text="", env=None, **kw):
        p = subprocess.Popen(self.argv(**kw), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd="/", env=env or self.env(),
                             universal_newlines=True)
        out, err = p.communicate(stdin_text, timeout=30)
        return p.returncode, out, err

    def assert_fatal(self, reason, rc, out, err):
        recs = records(out)
        self.assertEqual(rc, 3, err)
        self.assertEqual(len(recs), 1, out)
        self.assertEqual(recs[0]["event"], "fatal")
        self.assertEqual(recs[0]["reason"], reason, recs[0])
        self.assertTrue(recs[0]["message"])
        self.assertNotIn("\n", recs[0]["message"])

    def test_script_text(self):
        self.assertNotIn(')TUNEPY"', self.script)
        self.assertLess(len(self.script), 20000)
        self.assertTrue(self.script.startswith('"""'))
        compile(self.script, SCRIPT, "exec")

    def test_session(self):
        requests = [
            {"id": 1, "kwargs": {"XBLOCK": 1024}, "num_warps": 4, "num_stages": 1},
            {"id": 2, "kwargs": {"XBLOCK": 2048}, "num_warps": 8},  # num_stages: the cached config's
            {"id": 3, "kwargs": {"XBLOCK": 512}, "num_warps": 2, "num_stages": 3,
             "num_ctas": 1, "maxnreg": 128},
            {"id": 4, "kwargs": {"XBLOCK": 256}, "num_warps": 1, "num_stages": 2},
            {"id": 5, "kwargs": {"XBLOCK": 64}, "num_warps": 4, "num_stages": 1},  # (binary, None)
            {"id": 6, "kwargs": {"XBLOCK": 32}, "num_warps": 4, "num_stages": 1},  # odd dir name
            {"id": 7, "kwargs": {"XBLOCK": 4096}, "num_warps": 4, "num_stages": 1},
            {"id": 8, "kwargs": {"XBLOCK": 16384}, "num_warps": 4, "num_stages": 1},
            {"id": 9, "kwargs": {"XBLOCK": 3}, "num_warps": 4, "num_stages": 1},
            "{not json",
            '{"id": 15, "kwargs": {"XBLOCK": 1024,}, "num_warps": 4}',  # bad JSON, its id
            {"id": "sixteen", "kwargs": {"XBLOCK": 1024}, "num_warps": 4},
            {"id": 10, "kwargs": [1, 2], "num_warps": 4},
            {"id": 11, "kwargs": {"XBLOCK": "big"}, "num_warps": 4},
            {"id": 12, "kwargs": {"XBLOCK": True}, "num_warps": 4},
            {"id": 13, "kwargs": {"XBLOCK": 128}},
            "",
            {"id": 14, "kwargs": {"XBLOCK": 8192}, "num_warps": 4, "num_stages": 1},
        ]
        lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
        stdin_text = "\n".join(lines)  # the last line has no newline: EOF ends it
        env = self.env(dont_write_bytecode=False, CACHELENS_FAKE_COMPILE_DELAY="0.4")
        t0 = time.time()
        rc, out, err = self.run_server(stdin_text, env=env, workers=2, timeout=2)
        elapsed = time.time() - t0
        self.assertEqual(rc, 0, err)
        self.assertLess(elapsed, 15)
        self.assertNotIn("Traceback", err)
        self.assertIn("torch says hi", out + err)

        recs = records(out)
        self.assertEqual(recs[0], {"event": "ready", "torch": "2.11.0", "triton": "3.5.1",
                                   "kernel": KERNEL, "workers": 2})
        answers = recs[1:]
        ids = [r["id"] for r in answers]
        self.assertEqual(sorted(ids, key=str), sorted(list(range(1, 16)) + [None, None], key=str))
        by_id = dict((r["id"], r) for r in answers)
        for r in answers:
            if r["id"] is None:
                self.assertEqual(r["reason"], "invalid", r)
        for r in answers:
            self.assertIn(r["event"], ("compiled", "failed"))
            self.assertIsInstance(r["seconds"], float)

        triton_root = os.path.realpath(os.path.join(self.scratch, "triton"))
        expect = {1: (4, 1), 2: (8, 1), 3: (2, 3), 4: (1, 2), 5: (4, 1), 6: (4, 1)}
        active = []
        for rid, (nw, ns) in sorted(expect.items()):
            r = by_id[rid]
            self.assertEqual(r["event"], "compiled", r)
            d = r["triton_dir"]
            self.assertTrue(os.path.isabs(d) and os.path.isdir(d), r)
            self.assertEqual(os.path.dirname(os.path.realpath(d)), triton_root)
            md = metadata(d)
            self.assertEqual(md["hash"], r["triton_hash"])
            self.assertEqual(md["num_warps"], nw)
            self.assertEqual(md["num_stages"], ns)
            if "fake_max_active" in md:
                active.append(md["fake_max_active"])
            if TEMPLATE:
                ptx = glob.glob(os.path.join(d, "*.ptx"))
                self.assertEqual(len(ptx), 1)
                with open(ptx[0]) as f:
                    self.assertIn(".reqntid %d" % (nw * 32), f.read())
        self.assertTrue(os.path.basename(by_id[6]["triton_dir"]).startswith("odd-"))
        self.assertEqual(len(set(by_id[i]["triton_hash"] for i in expect)), len(expect))
        # parallel, never more than --workers at once
        self.assertEqual(len(active), 4)
        self.assertEqual(max(active), 2, active)

        self.assertEqual(by_id[7]["reason"], "resources")
        self.assertIn("shared memory", by_id[7]["message"])
        self.assertEqual(by_id[14]["reason"], "timeout")
        self.assertGreaterEqual(by_id[14]["seconds"], 2.0)
        self.assertLess(by_id[14]["seconds"], 5.0)
        self.assertEqual(by_id[8]["reason"], "crashed")
        self.assertIn("code 1", by_id[8]["message"])
        self.assertEqual(by_id[9]["reason"], "compile")
        self.assertIn("ValueError: XBLOCK must be a power of 2", by_id[9]["message"])
        self.assertNotIn("\n", by_id[9]["message"])
        self.assertIn("not JSON", by_id[15]["message"])
        for rid in (None, 10, 11, 12, 13, 15):
            self.assertEqual(by_id[rid]["event"], "failed")
            self.assertEqual(by_id[rid]["reason"], "invalid", by_id[rid])
        self.assertEqual(self.leftover_processes(), [])

    def test_eof_without_requests(self):
        rc, out, err = self.run_server("", workers=3)
        self.assertEqual(rc, 0, err)
        recs = records(out)
        self.assertEqual([r["event"] for r in recs], ["ready"])
        self.assertEqual(recs[0]["workers"], 3)

    def test_fatal_kernel(self):
        self.assert_fatal("kernel", *self.run_server("", kernel="triton_poi_nope_1"))
        self.assert_fatal("kernel", *self.run_server("", kernel="NOT_A_KERNEL"))

    def test_fatal_module(self):
        rc, out, err = self.run_server("", module=BROKEN_MODULE)
        self.assert_fatal("module", rc, out, err)
        self.assertIn("broken on purpose", records(out)[0]["message"])
        missing = os.path.join(self.scratch, "tmp", "missing.py")
        self.assert_fatal("module", *self.run_server("", module=missing))

    def test_fatal_no_triton(self):
        only_torch = tempfile.mkdtemp(prefix="cachelens-tune-torch-only-")
        try:
            shutil.copytree(os.path.join(FAKE_PYTHON, "torch"), os.path.join(only_torch, "torch"))
            rc, out, err = self.run_server("", env=self.env(pythonpath=only_torch))
            self.assert_fatal("no-triton", rc, out, err)
            self.assertIn("triton", records(out)[0]["message"])
        finally:
            shutil.rmtree(only_torch)

    def test_fatal_no_torch(self):
        empty = os.path.join(self.scratch, "tmp")
        probe = subprocess.call([sys.executable, "-c", "import torch"], env=self.env(pythonpath=empty),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd="/")
        if probe == 0:
            self.skipTest("this python has a real torch")
        self.assert_fatal("no-torch", *self.run_server("", env=self.env(pythonpath=empty)))

    def leftover_processes(self):
        found = []
        for d in glob.glob("/proc/[0-9]*"):
            try:
                with open(os.path.join(d, "environ"), "rb") as f:
                    if ("CACHELENS_TEST_TAG=" + self.tag).encode() in f.read():
                        found.append(os.path.basename(d))
            except OSError:
                pass
        return found

    def test_parent_gone(self):
        # The reader goes away: the server must stop quietly and take its
        # workers (one of them hanging) with it.
        p = subprocess.Popen(self.argv(workers=2, timeout=30), stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd="/",
                             env=self.env(CACHELENS_FAKE_COMPILE_DELAY="0.3"),
                             universal_newlines=True)
        try:
            line = p.stdout.readline()
            while line and not line.startswith(PREFIX):
                line = p.stdout.readline()
            self.assertEqual(records(line)[0]["event"], "ready")
            p.stdout.close()
            p.stdin.write(json.dumps({"id": 1, "kwargs": {"XBLOCK": 8192}, "num_warps": 4}) + "\n")
            p.stdin.write(json.dumps({"id": 2, "kwargs": {"XBLOCK": 1024}, "num_warps": 4}) + "\n")
            p.stdin.flush()
            rc = p.wait(timeout=10)
            err = p.stderr.read()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdin.close()
            p.stderr.close()
        self.assertNotIn("Traceback", err)
        self.assertNotIn("BrokenPipe", err)
        self.assertEqual(rc, 0)
        deadline = time.time() + 3
        while self.leftover_processes() and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.leftover_processes(), [])


if __name__ == "__main__":
    unittest.main()
