#!/usr/bin/env python3
"""Lay the real-world corpus out from fetched git mirrors.

    assemble.py [--mirrors /work/.mirror] [--out DIR] [SOURCE ...]

For every source dir beside this script that has a PROVENANCE.md (or only the
SOURCEs named), reads the repository, commit and path(s) in repo that its
"Origin" section gives, finds the repository's mirror (MIRRORS/<owner>+<name>/,
a bare git dir as the session's `fetch` leaves it, or a clone holding .git),
and writes the files of those paths at that commit into OUT/<source>/cache/,
laid out as the "Local copy" line says (the repository path with the leading
dirs before the first dir that line shows under `cache/` taken off). Then it
prunes as "Pruning / absent files" says, by that source's rule in PRUNE
below (drop a dir, keep device 0, the N smallest graphs, a sample of Triton
dirs). The samples are those the corpus was built with: a Triton dir is kept
when the CRC-32 of its name, modulo 1000, is below the kept share in
thousandths. Where the choice took judgement (which FX graphs of
gipfelsturm's, which of two identical trace logs), the files the corpus kept
are named here. PROVENANCE.md's own copy goes beside cache/.

OUT defaults to ../shared/real-world beside the checkout, the dir
tst_real_world reads. Each source is written into OUT/<source>/.cache.partial
and swapped in for OUT/<source>/cache when complete; nothing is written
outside OUT, and no symlink in the mirror is followed or written.

One line per source: files written, bytes, whether they match the totals of
PROVENANCE.md's "Contents" table, and any problem: a blob the mirror lacks
(skipped; PROVENANCE.md lists those the corpus lacked too), a rule that
could not be applied exactly, a source with no mirror. A source whose files
come from no git mirror (PROVENANCE.md says how they were taken) is left as
it is in OUT when a copy with the Contents totals is there. Exit status 1
when any source could not be assembled, 2 on a usage error.

Python 3 standard library only.
"""

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKOUT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DEFAULT_OUT = os.path.normpath(os.path.join(CHECKOUT, "..", "shared", "real-world"))
DEFAULT_MIRRORS = "/work/.mirror"


class Problem(Exception):
    """The source cannot be assembled."""


# ---------------------------------------------------------------------------
# PROVENANCE.md


class Provenance:
    def __init__(self, name, text):
        self.name = name
        self.repo = None  # "owner/name"
        self.commit = None
        self.paths = []  # the "Path in repo" values, as written
        self.examples = []  # what "Local copy" shows under cache/
        self.local_copy = ""
        self.total_files = None
        self.total_bytes = None
        self.from_git = True
        for line in text.splitlines():
            m = re.match(r"- Repository: https://github\.com/([^/\s]+/[^/\s]+?)/?\s*$", line)
            if m:
                self.repo = m.group(1)
            m = re.match(r"- Commit: `([0-9a-f]{7,40})`", line)
            if m:
                self.commit = m.group(1)
            m = re.match(r"- Path in repo: (.*)$", line)
            if m:
                self.paths.append(m.group(1).strip())
            if line.startswith("- Local copy:"):
                self.local_copy = line
                for quoted in re.findall(r"`([^`]*)`", line):
                    if quoted.startswith("cache/") and len(quoted) > len("cache/"):
                        self.examples.append(quoted[len("cache/"):])
            if line.startswith("- Obtained ") and "no git snapshot" in line:
                self.from_git = False
            m = re.match(r"\| total files \| (\d+) \|", line)
            if m:
                self.total_files = int(m.group(1))
            m = re.match(r"\| total bytes \| (\d+) \|", line)
            if m:
                self.total_bytes = int(m.group(1))
        self.pruning = text.split("## Pruning", 1)[1] if "## Pruning" in text else ""
        if not self.repo or not self.commit or not self.paths:
            raise Problem("PROVENANCE.md names no repository, commit or path in repo")


    def lists_absent(self, path):
        """Whether "Pruning / absent files" names this file as absent (by name, its
        first 8 characters and "...", or "one `.ext`")."""
        name = path.rsplit("/", 1)[-1]
        if "absent" not in self.pruning.lower():
            return False
        ext = os.path.splitext(name)[1]
        return (name in self.pruning or (name[:8] + "...") in self.pruning
                or (ext and ("`%s`" % ext) in self.pruning))


def expand_braces(text):
    m = re.search(r"\{([^{}]*)\}", text)
    if not m:
        return [text]
    out = []
    for choice in m.group(1).split(","):
        out.extend(expand_braces(text[: m.start()] + choice + text[m.end():]))
    return out


class Selector:
    """One path in repo: a dir (trailing /), a file, or a glob per path component."""

    def __init__(self, pattern, commit, without):
        self.pattern = pattern
        self.commit = commit
        self.without = without  # names left out of a dir
        self.is_dir = pattern.endswith("/")
        self.parts = pattern.rstrip("/").split("/")

    def matches(self, path):
        parts = path.split("/")
        if self.is_dir or not any(c in self.pattern for c in "*?["):
            n = len(self.parts)
            if parts[:n] != self.parts or (self.is_dir and len(parts) == n):
                return False
            return not (self.without and parts[-1] in self.without)
        return len(parts) == len(self.parts) and all(
            fnmatch.fnmatchcase(p, q) for p, q in zip(parts, self.parts))


def selectors(prov):
    """The path(s) in repo, with their commit: braces, `a/ ... b/` ranges, (@commit), (without X)."""
    out = []
    for value in prov.paths:
        for item in re.split(r",\s+(?![^{}]*\})", value):
            item = item.strip().strip("`").strip()
            commit = prov.commit
            without = set()
            m = re.search(r"\s*\(@([0-9a-f]{7,40})\)\s*$", item)
            if m:
                commit, item = m.group(1), item[: m.start()]
            m = re.search(r"\s*\(without ([^)]*)\)\s*$", item)
            if m:
                without = {w.strip().strip("`") for w in m.group(1).split(",")}
                item = item[: m.start()]
            item = item.strip().strip("`")
            m = re.fullmatch(r"(\S*?)(\d+)(\S*)\s+\.\.\.\s+(\S*?)(\d+)(\S*)", item)
            if m and m.group(1) == m.group(4) and m.group(3) == m.group(6):
                items = ["%s%d%s" % (m.group(1), n, m.group(3))
                         for n in range(int(m.group(2)), int(m.group(5)) + 1)]
            elif " " in item:
                raise Problem("cannot read the path in repo %r" % item)
            else:
                items = expand_braces(item)
            out.extend(Selector(i, commit, without) for i in items)
    return out


def strip_count(prov, selector):
    """How many leading dirs of the repository path the local layout leaves off."""
    heads = [e.split("/")[0] for e in prov.examples]
    for i, part in enumerate(selector.parts):
        for head in heads:
            if head and (head == part or fnmatch.fnmatchcase(part, head)):
                return i
    return 0


# ---------------------------------------------------------------------------
# Mirrors


class Entry:
    def __init__(self, path, local, oid, size, mode, commit):
        self.path = path  # in the repository
        self.local = local  # under cache/
        self.oid = oid
        self.size = size  # None when the mirror lacks the blob
        self.mode = mode
        self.commit = commit

    @property
    def name(self):
        return self.path.rsplit("/", 1)[-1]


class Mirror:
    def __init__(self, root, repo):
        base = os.path.join(root, repo.replace("/", "+"))
        self.git_dir = None
        for candidate in (os.path.join(base, "repo", ".git"), os.path.join(base, "repo"),
                          os.path.join(base, ".git"), base):
            if os.path.isfile(os.path.join(candidate, "HEAD")) and os.path.isdir(
                    os.path.join(candidate, "objects")):
                self.git_dir = candidate
                break
        if self.git_dir is None:
            raise Problem("no mirror of %s at %s" % (repo, base))
        self.batch = None
        self.cache = {}

    def git(self, *args):
        result = subprocess.run(["git", "--git-dir", self.git_dir] + list(args),
                                capture_output=True)
        if result.returncode != 0:
            raise Problem("git %s: %s" % (" ".join(args[:2]),
                                          result.stderr.decode(errors="replace").strip()))
        return result.stdout

    def resolve(self, commit):
        try:
            return self.git("rev-parse", "--verify", "--quiet", commit + "^{commit}").decode().strip()
        except Problem:
            raise Problem("the mirror has no commit %s" % commit)

    def tree(self, commit):
        if commit not in self.cache:
            rows = []
            for record in self.git("ls-tree", "-r", "-l", "-z", commit).split(b"\0"):
                if not record:
                    continue
                meta, path = record.split(b"\t", 1)
                mode, kind, oid, size = meta.decode().split()
                rows.append((path.decode("utf-8", "surrogateescape"), mode, kind, oid,
                             int(size) if size.isdigit() else None))
            self.cache[commit] = rows
        return self.cache[commit]

    def read(self, oid):
        """The blob's bytes, or None when the mirror lacks it."""
        if self.batch is None:
            self.batch = subprocess.Popen(["git", "--git-dir", self.git_dir, "cat-file", "--batch"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.batch.stdin.write(oid.encode() + b"\n")
        self.batch.stdin.flush()
        header = self.batch.stdout.readline().split()
        if len(header) != 3:
            return None
        size = int(header[2])
        data = self.batch.stdout.read(size)
        self.batch.stdout.read(1)
        return data

    def close(self):
        if self.batch is not None:
            self.batch.stdin.close()
            self.batch.wait()


# ---------------------------------------------------------------------------
# Pruning: what each PROVENANCE.md's "Pruning / absent files" describes


def crc_sample(name, share):
    """The corpus's deterministic sample: kept when crc32(name) % 1000 < share * 1000."""
    return zlib.crc32(name.encode()) % 1000 < round(share * 1000)


def triton_dir_of(entry, marker):
    """The Triton kernel dir an entry lies in below `marker` (".../triton/0/"), or None."""
    i = entry.path.find(marker)
    if i < 0:
        return None
    rest = entry.path[i + len(marker):].split("/")
    return rest[0] if len(rest) > 1 else None


def sample_triton(entries, marker, share, under=""):
    kept = []
    for e in entries:
        d = triton_dir_of(e, marker) if e.path.startswith(under) else None
        if d is None or crc_sample(d, share):
            kept.append(e)
    return kept


def is_wrapper(data):
    return b"def call(" in data


class Context:
    def __init__(self, mirror, notes):
        self.mirror = mirror
        self.notes = notes

    def read(self, entry):
        return self.mirror.read(entry.oid)


def prune_tlparse(entries, ctx):
    # The path globs name 18 files; the corpus took 17: of the two byte-identical
    # multi_rank_schedule logs (rank_0_6u3fubwl and rank_2), only rank_0's.
    sched = "tests/inputs/multi_rank_schedule/dedicated_log_torch_trace_rank_"
    first = [e for e in entries if e.path == sched + "0_6u3fubwl.log"]
    out = []
    for e in entries:
        if e.path == sched + "2.log":
            if first and first[0].oid == e.oid:
                continue
            ctx.notes.append("%s is no copy of rank 0's log here: kept" % e.path)
        out.append(e)
    return out


# The AOTAutograd entries and FX graph entries the corpus kept of
# gipfelsturm's .inductor_cache/ (chosen when it was built: the 13
# AOTAutogradResult entries whose forward graph runs on device 0 that name
# one of 7 of the 20 device-0 graphs, the 5 smallest and the 2 largest).
GIPFEL_ENTRIES = {
    "aotautograd/a3ftz7fztq7pinc2xtcrdeqj3rj6pf7qj2gvdwki7uryuf4ib76c/lalydgn4tb7rm7mylledihwmibh4ggtp3xhf4j4uuroa3nsnofn",
    "aotautograd/a6kewihwwx5rhzrwxzdobyxub7e5ti7mgax4jk6l42epljjhopgx/lpjykynwgpseygv6vk2mshz2vi526dcflukfqjnt4n5zijkc6h2",
    "aotautograd/a6vbo6n7ztn6azcyweyrelqelpgcuneefikgj7nw5opvm7nzicxx/7ntw4erpgz4p6gzefu7p2jkx6g6pc3k43ambuiogebfgykkp5rs",
    "aotautograd/a752yc7rlxafg4g2tn7kjlg2iw4v3uosfqooghafkkiha5k2fxoh/wk25wucgvmfmmp6yxcm7uzdjjfxmceoosvgfgkdbjwxmah4ga4v",
    "aotautograd/a7al72rhebzheurs5rvxv7tbyi2evhbjgb6ofpjryipofrvqvlax/e3ksswnvck6sbsflf5ynoor74hqib3jz3dqsjvqhilai5d35btk",
    "aotautograd/ahowtk3w6kq6mugmc3j6zuy4nviyvzfanmi7zyzcngildj5vuic6/ag63uwya7p4ahyyngvt7uojitdwt7khd22hzedcgsiklj46o5dt",
    "aotautograd/al6eszzx7bvgob4popyibbcgwjcnf7yswgej2emgqbkmabn27kkd/jmonxjtr3i2vu55x2yoq4pxptxk3ake5ixup7d6fyvtduadzp5t",
    "aotautograd/amkma4s5mo6vd2h3jtwqrjgnu6dz2qybly3uphejwiovb3jiphde/ovxvkcnrpfftbgdpwms7gdvm6rgp2n7iriedr4ddsdwrsf36vea",
    "aotautograd/ao72koquorz7ft4ymqnazn2ljidygve2ow3m7vaq3lr247yht2gw/zgyoy3hksueqlehacbk3tgig33claelk7drnvsc3slerxpvv3fs",
    "aotautograd/as6dajxxnl5qk2y65otvrf3i4cwfrsolbtiokmoicas3q5wgkrzs/ky227siltw6bqknf557rftv377unb62fd7crocb2btyvrwzjjsy",
    "aotautograd/au6wla4o5qccbjdqz2mp5c5vg5zag6gbco4algiuj43jwveiejph/ukpeawan4bzotwayy2umrg4fdaw27aiscetjxn4tlvkvvfoewtb",
    "aotautograd/avotuchzglleo6ccijtdvjqb6ia4ywzz7y44b6euxtoekvamhtho/hxnxdx5wn5ewuemgkeoq34lzbp3jlvhpwjuiqrmabke6bikcxys",
    "aotautograd/avspp2nstkv4rrajkpv3kamyosqkio33yoikofjx77wom2rgrx5z/vzs3z2adbckck4aquwcx6t4md3mtxa3peqn45kxenx6qn4oay36",
    "fxgraph/2k/f2knwxxyegn5k7r47eqtoisye5hrivafopkulmisyy6stg6ljwzi/ni7gvj5enncdtvjvmwfokmhro3bmqn6luywandzj763xx5crx72",
    "fxgraph/5k/f5kleuxyzzufbtd5tygbr6qtducwvbps4mhkuohe5fnegznkxeql/en723zttv6inp2jsriki437exex352hjjpfs7rgfqco75c3hary",
    "fxgraph/5u/f5uh2bbg4gxs7hygrmdakfsprhixtiqdb3snwfykzn22izayyauk/2h4znrs6qdnaqdxwkgl5khkd2kazxpah5yimild5ec3cmu2zvdo",
    "fxgraph/6b/f6bawrrp4xyoioz2jj4rfi3todllj2pp543tcmkerd62oghubrqt/g42eqcehiq5hrjzuvvtebzlbh3flvyyxsexmqjctfiljjmyz3sg",
    "fxgraph/br/fbrrxgkuec4fxqdcazhiqpvmokkjvd4hsvgvgbsi5nz2pu57vsoj/ulwjkjki4fp5skyywzihbmopoqgizm4j3u3ymcftmzbzuhsoveb",
    "fxgraph/ft/fftvxblggrdr42fl4jy3z3msfwadqqn42q5qrtn5cqjgx46253vp/zcq6v4x46t3ollkmfxxhfg43s6n4dglr3wqbgvka63s35qy4qoh",
    "fxgraph/o2/fo2gkq2uzt557msctzj5hctopxxwwaf7zf6l26dbr2ovynrd34in/yxrfjgvxfg4v2z5ll7hxbcekebcfhhrqcwbxae2oogi6lrxzfuk",
}


def prune_gipfel(entries, ctx):
    # .inductor_cache/: the entries above; kernel modules and wrappers of
    # device 0 only; everything else (all .best_config). .triton_cache/: the
    # ~25% sample of its dirs, and every .so (cuda_utils).
    ind = ".inductor_cache/"
    out = []
    for e in entries:
        if e.path.startswith(ind):
            rel = e.path[len(ind):]
            if rel.startswith(("fxgraph/", "aotautograd/")):
                keep = rel in GIPFEL_ENTRIES
            elif rel.endswith(".py"):
                data = ctx.read(e) or b""
                if b"def call(" in data or b"class Runner" in data:
                    keep = b"_DeviceGuard(0)" in data
                else:
                    keep = b"index=0," in data
            else:
                keep = True
        elif e.path.startswith(".triton_cache/"):
            rel = e.path[len(".triton_cache/"):]
            keep = rel.endswith(".so") or crc_sample(rel.split("/")[0], 0.25)
        else:
            keep = True
        if keep:
            out.append(e)
    found = {e.path[len(ind):] for e in out if e.path.startswith(ind)} & GIPFEL_ENTRIES
    if len(found) != len(GIPFEL_ENTRIES):
        ctx.notes.append("%d of the %d kept FX/AOTAutograd entries are not in the tree" %
                         (len(GIPFEL_ENTRIES) - len(found), len(GIPFEL_ENTRIES)))
    return out


def prune_yotta_sdpa(entries, ctx):
    sdpa = "examples/sdpa_attention/test_run/inductor_debug_opt/"
    return sample_triton(entries, sdpa + "triton/0/", 0.30, under=sdpa)


def prune_capremover(entries, ctx):
    return sample_triton(entries, "/triton/0/", 0.20)


def prune_ynn(entries, ctx):
    return [e for e in entries if "/triton/2/" not in e.path and "/triton/3/" not in e.path]


def prune_grafana(entries, ctx):
    # The brace list of logs/ and "(without raw.log)" already say it all.
    return entries


def prune_sujuyu260(entries, ctx):
    # ~7% of the triton/0/ dirs; of the AOTI .cubin copies outside them, those
    # named c<a|b>...; all else.
    out = []
    for e in entries:
        m = re.search(r"(?:^|/)triton/\d+/([^/]+)/", e.path)
        if m:
            keep = crc_sample(m.group(1), 0.07)
        elif e.name.endswith(".cubin"):
            keep = e.name[1:2] in ("a", "b")
        else:
            keep = True
        if keep:
            out.append(e)
    return out


def prune_ladder(entries, ctx):
    out = []
    for e in entries:
        data = ctx.read(e) or b""
        if is_wrapper(data):
            if b"_DeviceGuard(0)" in data:
                out.append(e)
        elif b"index=0, cc=90" in data:
            out.append(e)
    return out


def prune_semacomm(entries, ctx):
    my = "flowmo/results/my_experiment/torchinductor_cache_0/"
    fx = sorted((e for e in entries if e.path.startswith(my + "fxgraph/") and e.size is not None),
                key=lambda e: (e.size, e.path))
    keep_fx = set(id(e) for e in fx[:6])
    out = []
    for e in entries:
        if not e.path.startswith(my):
            out.append(e)
        elif e.path.startswith(my + "fxgraph/"):
            if id(e) in keep_fx:
                out.append(e)
        elif e.path.startswith(my + "triton/"):
            d = triton_dir_of(e, my + "triton/0/")
            if d is None or crc_sample(d, 0.15):
                out.append(e)
        else:
            out.append(e)
    return out


def prune_sqcu(entries, ctx):
    return sample_triton(entries, ".inductor_cache/triton/0/", 0.30)


PRUNE = {
    "torch-trace-logs-2024-2025-nightlies-tlparse": prune_tlparse,
    "torch210nv-gh200-aarch64-megatron-fxgraph-aotresult": prune_gipfel,
    "torch211-sm80-a100-gpt2-dynamic-fxgraph-aotresult": prune_yotta_sdpa,
    "torch23-sm89-rtx6000ada-dynamic-inpaint": prune_capremover,
    "torch24-sm80-a100x4-titan-train-fxgraph": prune_ynn,
    "torch25-cpu-torch-trace-logs-codespace-tlparse": prune_grafana,
    "torch26dev-sm86-a10-aoti-dynamic": prune_sujuyu260,
    "torch26dev-sm90-h100x8-ladder-kernels": prune_ladder,
    "torch27-sm86-rtx3090-flowmo-train": prune_semacomm,
    "torch29-windows-sm89-rtx4090-logsnrcat-fxgraph-aot": prune_sqcu,
}


# ---------------------------------------------------------------------------
# Writing


def safe_join(root, relative):
    """root/relative, refused unless it stays below root."""
    if not relative or relative.startswith("/") or "\\" in relative or "\0" in relative:
        raise Problem("refused path %r" % relative)
    parts = relative.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise Problem("refused path %r" % relative)
    path = os.path.join(root, *parts)
    real_root = os.path.realpath(root)
    if not os.path.realpath(path).startswith(real_root + os.sep):
        raise Problem("refused path %r (outside %s)" % (relative, root))
    return path


def count_tree(root):
    files = size = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            if os.path.isfile(p) and not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return files, size


def totals_note(prov, files, size):
    if prov.total_files is None:
        return "no Contents totals to compare"
    if (files, size) == (prov.total_files, prov.total_bytes):
        return "matches PROVENANCE.md"
    return "PROVENANCE.md says %d files, %d bytes" % (prov.total_files, prov.total_bytes)


def assemble(name, args):
    """Returns (ok, line)."""
    source_dir = os.path.join(HERE, name)
    with open(os.path.join(source_dir, "PROVENANCE.md"), encoding="utf-8") as f:
        prov = Provenance(name, f.read())
    out_root = os.path.realpath(args.out)
    target = safe_join(out_root, name)
    if os.path.islink(target):
        raise Problem("%s is a symlink" % target)
    cache = os.path.join(target, "cache")
    if not prov.from_git:
        files, size = count_tree(cache) if os.path.isdir(cache) else (0, 0)
        why = "its files come from no git snapshot (PROVENANCE.md says how they were taken)"
        if files and (files, size) == (prov.total_files, prov.total_bytes):
            return True, "%d files, %d bytes; kept the copy in OUT, as %s" % (files, size, why)
        raise Problem("%s; lay them out by hand in %s as its Local copy line says: "
                      "OUT holds no copy with its %s files, %s bytes" %
                      (why, cache, prov.total_files, prov.total_bytes))

    mirror = Mirror(args.mirrors, prov.repo)
    notes = []
    try:
        sels = selectors(prov)
        entries = []
        seen = set()
        for sel in sels:
            commit = mirror.resolve(sel.commit)
            strip = strip_count(prov, sel)
            matched = 0
            for path, mode, kind, oid, size in mirror.tree(commit):
                if kind != "blob" or not sel.matches(path):
                    continue
                matched += 1
                if mode == "120000":
                    notes.append("symlink %s not followed" % path)
                    continue
                local = "/".join(path.split("/")[strip:])
                if local in seen:
                    continue
                seen.add(local)
                entries.append(Entry(path, local, oid, size, mode, commit))
            if not matched:
                raise Problem("nothing at %s in %s@%s" % (sel.pattern, prov.repo, sel.commit[:10]))
        ctx = Context(mirror, notes)
        prune = PRUNE.get(name)
        if prune is not None:
            entries = prune(entries, ctx)

        partial = os.path.join(target, ".cache.partial")
        if os.path.islink(partial):
            raise Problem("%s is a symlink" % partial)
        if os.path.isdir(partial):
            shutil.rmtree(partial)
        os.makedirs(partial)
        files = size = 0
        missing = []
        for e in sorted(entries, key=lambda e: e.local):
            data = mirror.read(e.oid)
            if data is None:
                missing.append(e.path)
                continue
            path = safe_join(partial, e.local)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "xb") as f:
                f.write(data)
            if e.mode == "100755":
                os.chmod(path, 0o755)
            files += 1
            size += len(data)
        if os.path.islink(cache):
            raise Problem("%s is a symlink" % cache)
        if os.path.isdir(cache):
            shutil.rmtree(cache)
        os.rename(partial, cache)
        shutil.copyfile(os.path.join(source_dir, "PROVENANCE.md"),
                        os.path.join(target, "PROVENANCE.md"))
    finally:
        mirror.close()
    line = "%d files, %d bytes; %s" % (files, size, totals_note(prov, files, size))
    if missing:
        listed = [m for m in missing if prov.lists_absent(m)]
        other = [m for m in missing if m not in listed]
        if listed:
            line += "; %d absent from the mirror as PROVENANCE.md says, skipped" % len(listed)
        if other:
            shown = ", ".join(other[:3]) + (", ..." if len(other) > 3 else "")
            line += "; %d blob(s) absent from the mirror that PROVENANCE.md does not name, " \
                    "skipped: %s" % (len(other), shown)
    if notes:
        line += "; " + "; ".join(notes)
    return True, line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mirrors", default=DEFAULT_MIRRORS,
                        help="dir of <owner>+<name>/ git mirrors (default %(default)s)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="where <source>/cache/ go (default %(default)s)")
    parser.add_argument("sources", nargs="*", metavar="SOURCE")
    args = parser.parse_args()

    known = sorted(d for d in os.listdir(HERE)
                   if os.path.isfile(os.path.join(HERE, d, "PROVENANCE.md")))
    names = args.sources or known
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error("no source with a PROVENANCE.md: %s" % ", ".join(unknown))
    os.makedirs(args.out, exist_ok=True)
    failed = 0
    all_files = all_bytes = 0
    for name in names:
        try:
            ok, line = assemble(name, args)
        except (Problem, OSError) as e:
            ok, line = False, "NOT ASSEMBLED: %s" % e
        if not ok:
            failed += 1
        else:
            m = re.match(r"(\d+) files, (\d+) bytes", line)
            if m:
                all_files += int(m.group(1))
                all_bytes += int(m.group(2))
        print("%s: %s" % (name, line), flush=True)
    print("%d of %d sources assembled into %s: %d files, %d bytes" %
          (len(names) - failed, len(names), args.out, all_files, all_bytes))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
