#!/usr/bin/env python3
"""`cachelens watch DIR` on a large cache (issue #39): how long until it
watches (its first --json-lines line), and the CPU it uses while nothing
changes (/proc/PID/stat over IDLE seconds, after the start's background
read of the dir has had SETTLE seconds), and its peak RSS. Prints one JSON
object.

Usage: watch-idle.py CLI DIR [--settle 15] [--idle 20]
"""
import argparse, json, os, subprocess, time

parser = argparse.ArgumentParser()
parser.add_argument("cli")
parser.add_argument("dir")
parser.add_argument("--settle", type=float, default=15)
parser.add_argument("--idle", type=float, default=20)
args = parser.parse_args()

def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

started = time.monotonic()
watch = subprocess.Popen([args.cli, "watch", args.dir, "--json-lines", "--seconds",
                          str(args.settle + args.idle + 5)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
first = json.loads(watch.stdout.readline())
start_s = time.monotonic() - started
time.sleep(args.settle)
before = cpu_seconds(watch.pid)
time.sleep(args.idle)
idle_cpu = cpu_seconds(watch.pid) - before
peak_kib = int(next(l.split()[1] for l in open(f"/proc/{watch.pid}/status") if l.startswith("VmHWM")))
watch.communicate()
print(json.dumps({"start_s": round(start_s, 3), "dirs_watched": first.get("dirs"),
                  "idle_cpu_s": idle_cpu, "idle_s": args.idle,
                  "idle_core_percent": round(100 * idle_cpu / args.idle, 3),
                  "peak_rss_mib": peak_kib // 1024}))
