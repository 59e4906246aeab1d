#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The launcher's own peak RSS (bench/launch.sh): start COMMAND... -- /bin/sleep 0.5 N times,
wait until the sleep runs somewhere beneath the launcher (its setup is then done), read the
launcher's VmHWM from /proc, let it finish, and print the median in KiB. wait4's figure
(/usr/bin/time) is the largest process of the tree, which is the worker itself (/bin/true
with libc mapped) once the launcher is small: it says nothing about the launcher."""
import os
import statistics
import subprocess
import sys
import time


def descendants(pid):
    out = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    kids = [int(k) for k in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def comm(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return ""


def hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM")


def one(cmd):
    p = subprocess.Popen(cmd + ["/bin/sleep", "0.5"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    value = None
    while time.monotonic() < deadline and p.poll() is None:
        if any(comm(d) == "sleep" for d in descendants(p.pid)):
            value = hwm(p.pid)
            break
        time.sleep(0.002)
    p.wait()
    if value is None:
        sys.exit("rss.py: the worker never started: " + " ".join(cmd))
    return value


def main():
    runs = int(sys.argv[1])
    cmd = sys.argv[2:]
    print(int(statistics.median(one(cmd) for _ in range(runs))))


main()
