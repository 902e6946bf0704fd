"""cachelens tune: compile server.

`cachelens tune` runs this script with your Python (python -c "<this text>"
--module KERNEL_MODULE.py --kernel NAME --workers N --timeout S) to compile new
Triton configs of one Inductor kernel with Inductor's own machinery
(CachingAutotuner._precompile_config).  It reads one JSON request per line on
stdin and answers each with one "cachelens-tune: <json>" line on stdout.
Compiles run in forked workers, at most N at a time, each killed after S
seconds.  It writes nothing but the compiled kernels, into TRITON_CACHE_DIR /
TORCHINDUCTOR_CACHE_DIR (scratch dirs cachelens made), and no bytecode.
Standard library only, besides torch and triton.
"""
import sys

sys.dont_write_bytecode = True
sys.path[:] = [p for p in sys.path if p not in ("", ".")]

import argparse
import importlib.util
import inspect
import json
import os
import re
import signal
import time
import warnings
from collections import deque

PREFIX = "cachelens-tune: "
OUT_FD = None  # private dup of the original stdout: records only
JOBS = []


class ParentGone(Exception):
    pass


def emit(rec):
    data = (PREFIX + json.dumps(rec, separators=(",", ":")) + "\n").encode()
    try:
        while data:
            data = data[os.write(OUT_FD, data):]
    except OSError:  # EPIPE and friends: nobody reads us any more
        raise ParentGone()


def one_line(text, limit=2000):
    text = " | ".join(s.strip() for s in str(text).splitlines() if s.strip())
    return text if len(text) <= limit else text[:limit] + " ..."


def describe(exc):
    return one_line("%s: %s" % (type(exc).__name__, exc))


RESOURCE_RE = re.compile(
    r"out ?of ?resources?|shared memory|\bregisters?\b", re.IGNORECASE)


def classify(message):
    """'resources' when the error is the kernel not fitting the GPU, else 'compile'."""
    return "resources" if RESOURCE_RE.search(message) else "compile"


def fatal(reason, message):
    try:
        emit({"event": "fatal", "reason": reason, "message": one_line(message)})
    except ParentGone:
        pass
    os._exit(3)


# ---------------------------------------------------------------- requests

class Invalid(Exception):
    def __init__(self, rid, message):
        Exception.__init__(self, message)
        self.rid = rid


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def config_params(triton):
    try:
        return set(inspect.signature(triton.Config).parameters)
    except (TypeError, ValueError):
        return set()


def default_num_stages(autotuner, kwargs):
    """Inductor's num_stages for this kernel: a cached config's, else the kind's."""
    first = None
    for c in list(getattr(autotuner, "configs", None) or []):
        ns = getattr(c, "num_stages", None)
        if not is_int(ns):
            continue
        if set(getattr(c, "kwargs", None) or {}) == set(kwargs):
            return ns
        if first is None:
            first = ns
    if first is not None:
        return first
    kind = str(getattr(autotuner, "heuristic_type", "")).lower()
    if "pointwise" in kind or "reduction" in kind:
        return 1
    return None


ID_RE = re.compile(r'^\s*\{\s*"id"\s*:\s*(\d+)\s*[,}]')


def parse_request(line, triton, params, autotuner):
    """-> (id, triton.Config); raises Invalid."""
    try:
        req = json.loads(line)
    except ValueError as e:
        m = ID_RE.search(line)  # answer the id it seems to have, if any
        raise Invalid(int(m.group(1)) if m else None, "not JSON: %s" % e)
    if not isinstance(req, dict):
        raise Invalid(None, "a request is a JSON object")
    rid = req.get("id")
    if not is_int(rid) or rid < 0:
        raise Invalid(None, "id missing or not a non-negative integer")
    kwargs = req.get("kwargs")
    if not isinstance(kwargs, dict) or not kwargs:
        raise Invalid(rid, "kwargs is not a non-empty object")
    for k, v in kwargs.items():
        if not is_int(v):
            raise Invalid(rid, "kwargs[%r] is not an integer" % k)
    nw = req.get("num_warps")
    if not is_int(nw) or nw < 1:
        raise Invalid(rid, "num_warps missing or not a positive integer")
    opts = {"num_warps": nw}
    ns = req.get("num_stages")
    if ns is None:
        ns = default_num_stages(autotuner, kwargs)
    elif not is_int(ns) or ns < 0:
        raise Invalid(rid, "num_stages is not a non-negative integer")
    if ns is not None:
        opts["num_stages"] = ns
    for name in ("num_ctas", "maxnreg"):
        v = req.get(name)
        if v is None:
            continue
        if not is_int(v) or v < 1:
            raise Invalid(rid, "%s is not a positive integer" % name)
        if name in params:
            opts[name] = v
    try:
        cfg = triton.Config(dict(kwargs), **opts)
    except Exception as e:
        raise Invalid(rid, "triton.Config refused it: " + describe(e))
    return rid, cfg


# ---------------------------------------------------------------- worker

def kernel_hash(obj):
    h = getattr(obj, "hash", None)
    if isinstance(h, str) and h:
        return h
    md = getattr(obj, "metadata", None)
    h = md.get("hash") if isinstance(md, dict) else getattr(md, "hash", None)
    return h if isinstance(h, str) and h else None


def find_binary(result):
    """The compiled kernel in what _precompile_config returned, and its hash:
    CompileResult.kernel (2.6+), (binary, launcher) (<= 2.5) or the binary."""
    cands = []
    k = getattr(result, "kernel", None)
    if k is not None:
        cands.append(k)
    cands.append(result)
    if isinstance(result, (tuple, list)):
        cands.extend(result)
    for c in cands:
        h = kernel_hash(c)
        if h:
            return c, h
    raise RuntimeError("no compiled kernel with a hash in the %s that "
                       "_precompile_config returned" % type(result).__name__)


def dir_has_hash(d, h):
    try:
        names = os.listdir(d)
    except OSError:
        return False
    for n in names:
        if not n.endswith(".json") or n.startswith("__grp__"):
            continue
        try:
            with open(os.path.join(d, n)) as f:
                md = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(md, dict) and md.get("hash") == h:
            return True
    return False


def find_cache_dir(h):
    root = os.environ.get("TRITON_CACHE_DIR", "")
    cands = []
    try:
        from triton.runtime.cache import get_cache_manager
        cands.append(getattr(get_cache_manager(h), "cache_dir", None))
    except Exception:
        pass
    if root:
        try:
            from torch._inductor.runtime.runtime_utils import triton_hash_to_path_key
            cands.append(os.path.join(root, triton_hash_to_path_key(h)))
        except Exception:
            pass
        cands.append(os.path.join(root, h))
    for d in cands:
        if isinstance(d, str) and os.path.isdir(d) and dir_has_hash(d, h):
            return os.path.abspath(d)
    # Not where Triton says: look for the dir whose <name>.json has this hash.
    todo = [(root, 0)] if root else []
    while todo:
        base, depth = todo.pop()
        try:
            names = sorted(os.listdir(base))
        except OSError:
            continue
        for n in names:
            d = os.path.join(base, n)
            if not os.path.isdir(d):
                continue
            if dir_has_hash(d, h):
                return os.path.abspath(d)
            if depth < 1:
                todo.append((d, depth + 1))
    raise RuntimeError("compiled, but no dir under TRITON_CACHE_DIR=%s holds a "
                       "kernel with hash %s" % (root, h))


def compile_one(autotuner, cfg):
    fn = autotuner._precompile_config
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        params = {}
    if "warm_cache_only" in params:  # PyTorch <= 2.5: compile only, no launcher
        result = fn(cfg, warm_cache_only=True)
    else:
        result = fn(cfg)
    binary, h = find_binary(result)
    return {"event": "compiled", "triton_dir": find_cache_dir(h), "triton_hash": h}


def worker_main(conn, autotuner, cfg):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    del JOBS[:]  # the siblings are the server's business
    try:
        os.setpgid(0, 0)  # own group: a timeout kills ptxas & co. too
    except OSError:
        pass
    try:  # Linux: die with the server
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    try:
        os.close(OUT_FD)
    except OSError:
        pass
    try:
        msg = compile_one(autotuner, cfg)
    except BaseException as e:
        m = describe(e)
        msg = {"event": "failed", "reason": classify(m), "message": m}
    try:
        conn.send(msg)
        conn.close()
    finally:
        os._exit(0)


# ---------------------------------------------------------------- server

class Job(object):
    def __init__(self, rid, proc, conn):
        self.rid, self.proc, self.conn = rid, proc, conn
        self.start = time.monotonic()


def kill(job):
    try:
        os.killpg(job.proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        job.proc.kill()
    except Exception:
        pass


def kill_all():
    for job in JOBS:
        kill(job)
    for job in JOBS:
        try:
            job.proc.join(2)
        except Exception:
            pass


def finish(job, rec):
    JOBS.remove(job)
    try:
        job.conn.close()
    except Exception:
        pass
    out = {"event": rec.get("event"), "id": job.rid}
    for k, v in rec.items():
        out.setdefault(k, v)
    out["seconds"] = round(time.monotonic() - job.start, 3)
    emit(out)


def exit_text(code):
    if code is None:
        return "the worker closed its pipe without an answer"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "signal %d" % -code
        return "the worker was killed by %s (exit status %d) without an answer" % (name, code)
    return "the worker exited with code %d without an answer" % code


def reap(job):
    """A worker's pipe or sentinel is ready: its answer, or a crash."""
    msg = None
    try:
        if job.conn.poll(0):
            msg = job.conn.recv()
    except (EOFError, OSError):
        msg = None
    except Exception as e:
        msg = {"event": "failed", "reason": "crashed",
               "message": "unreadable answer: " + describe(e)}
    job.proc.join(5)  # answered or at EOF: the worker is on its way out
    if job.proc.is_alive():
        kill(job)
        job.proc.join(2)
    if not isinstance(msg, dict):
        msg = {"event": "failed", "reason": "crashed",
               "message": exit_text(job.proc.exitcode)}
    finish(job, msg)


def serve(autotuner, triton, workers, timeout):
    import multiprocessing
    from multiprocessing.connection import wait
    ctx = multiprocessing.get_context("fork")
    params = config_params(triton)
    queue = deque()
    buf = b""
    stdin_open = True
    while stdin_open or queue or JOBS:
        while queue and len(JOBS) < workers:
            rid, cfg = queue.popleft()
            r, w = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=worker_main, args=(w, autotuner, cfg))
            proc.daemon = True
            t0 = time.monotonic()
            try:
                proc.start()
            except Exception as e:
                r.close()
                w.close()
                emit({"event": "failed", "id": rid, "reason": "crashed",
                      "message": "cannot start a worker: " + describe(e),
                      "seconds": round(time.monotonic() - t0, 3)})
                continue
            w.close()
            JOBS.append(Job(rid, proc, r))
        now = time.monotonic()
        wait_s = None
        if JOBS:
            wait_s = max(0.0, min(j.start + timeout for j in JOBS) - now)
        objs = [0] if stdin_open else []
        for j in JOBS:
            objs += [j.conn, j.proc.sentinel]
        ready = wait(objs, wait_s) if objs else []
        for j in list(JOBS):
            if j.conn in ready or j.proc.sentinel in ready:
                reap(j)
        now = time.monotonic()
        for j in list(JOBS):
            if now >= j.start + timeout:
                kill(j)
                j.proc.join(2)
                finish(j, {"event": "failed", "reason": "timeout",
                           "message": "killed after the %gs timeout" % timeout})
        if stdin_open and 0 in ready:
            chunk = os.read(0, 65536)
            if not chunk:
                stdin_open = False
                if buf.strip():
                    chunk = b"\n"
            buf += chunk
            lines = buf.split(b"\n")
            buf = lines.pop()
            for raw in lines:
                line = raw.decode("utf-8", "replace").strip()
                if not line:
                    continue
                try:
                    queue.append(parse_request(line, triton, params, autotuner))
                except Invalid as e:
                    emit({"event": "failed", "id": e.rid, "reason": "invalid",
                          "message": one_line(e), "seconds": 0.0})


def main(argv):
    global OUT_FD
    ap = argparse.ArgumentParser(prog="cachelens-tune-compile")
    ap.add_argument("--module", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600.0)
    args = ap.parse_args(argv)
    workers = min(max(1, args.workers), 4096)
    timeout = args.timeout if args.timeout > 0 else 600.0

    # Records go to a private copy of stdout; anything else printed (torch,
    # triton, ptxas, the workers) goes to stderr and cannot split a record.
    OUT_FD = os.dup(1)
    try:
        os.dup2(2, 1)
    except OSError:
        pass
    signal.signal(signal.SIGTERM, lambda s, f: (kill_all(), os._exit(143)))
    # Ctrl-C on a terminal reaches the whole group: cachelens decides when
    # this server stops (it closes stdin or kills it), not the keyboard.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warnings.filterwarnings("ignore", message=".*fork.*")

    try:
        import torch
    except BaseException as e:
        fatal("no-torch", describe(e))
    try:
        import triton
    except BaseException as e:
        fatal("no-triton", describe(e))

    path = os.path.abspath(args.module)
    try:
        name = "cachelens_tune_kernel_%d" % os.getpid()
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError("not a Python module: %s" % path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except BaseException as e:
        fatal("module", "%s: %s" % (path, describe(e)))

    autotuner = getattr(module, args.kernel, None)
    if not callable(getattr(autotuner, "_precompile_config", None)):
        fatal("kernel", "%s has no kernel %s with a _precompile_config method "
              "(an Inductor CachingAutotuner)" % (path, args.kernel))

    try:
        emit({"event": "ready",
              "torch": str(getattr(torch, "__version__", "")),
              "triton": str(getattr(triton, "__version__", "")),
              "kernel": args.kernel, "workers": workers})
        serve(autotuner, triton, workers, timeout)
    except ParentGone:
        kill_all()
        os._exit(0)
    except BaseException:
        kill_all()
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
