#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where a launch's time goes: run a launcher built with -DSBX_LAUNCH_TRACE=ON N times and
print, for each phase mark (include/sbx/trace.h), the median time from the moment the driver
started the process, and the median time since the mark before it. Used by bench/phases.sh."""
import statistics
import subprocess
import sys
import time


def one(cmd):
    t0 = time_ns()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time_ns()
    if p.returncode != 0:
        sys.exit("launch failed (%d): %s" % (p.returncode, p.stderr.decode(errors="replace")))
    marks = {}
    for line in p.stderr.decode(errors="replace").splitlines():
        if line.startswith("sbx-trace "):
            _, stamp, name = line.split(" ", 2)
            sec, nsec = stamp.split(".")
            marks.setdefault(name, int(sec) * 10**9 + int(nsec) - t0)
    marks["process ended (driver's wait)"] = t1 - t0
    return marks


def time_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def main():
    runs = int(sys.argv[1])
    cmd = sys.argv[2:]
    for _ in range(3):  # warm-up: page cache, dentries
        one(cmd)
    samples = [one(cmd) for _ in range(runs)]
    names = set()
    for s in samples:
        names.update(s)
    med = {n: statistics.median([s[n] for s in samples if n in s]) for n in names}
    order = sorted(names, key=lambda n: med[n])
    print("%-44s %10s %10s" % ("phase (ends at the mark)", "at, us", "took, us"))
    prev = 0.0
    for n in order:
        print("%-44s %10.0f %10.0f" % (n, med[n] / 1000, (med[n] - prev) / 1000))
        prev = med[n]
    print("(%d launches, medians; 'took' is the gap between successive medians)" % runs)


main()
