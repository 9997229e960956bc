#!/usr/bin/env python3
"""Samples a process every 0.2 s until it exits; prints "cpu_seconds max_threads max_rss_kib".

CPU is utime+stime from /proc/PID/stat (the process's own and its threads', not its children's).
Used by scripts/bench.d/liveencode.sh and ladder.sh.
"""
import os
import sys
import time

pid, tick = sys.argv[1], os.sysconf("SC_CLK_TCK")
cpu = threads = rss = 0
while os.path.exists(f"/proc/{pid}/stat"):
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            break
        cpu = (int(fields[11]) + int(fields[12])) / tick
        status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
        threads = max(threads, int(status["Threads"]))
        rss = max(rss, int(status["VmRSS"].split()[0]))
    except (FileNotFoundError, ProcessLookupError, KeyError, IndexError):
        break
    time.sleep(0.2)
print(f"{cpu:.2f} {threads} {rss}")
