#!/usr/bin/env python3
"""Plays an RTMP stream with ffprobe and logs "arrival_seconds,pts_seconds" per video packet to stdout.

Usage: play-times.py URL SECONDS — gives up after SECONDS. The arrival time is when ffprobe printed the packet,
which for a live stream is when it arrived (ffprobe reads as fast as the stream comes).
"""
import subprocess
import sys
import time

url, limit = sys.argv[1], float(sys.argv[2])
probe = subprocess.Popen(["ffprobe", "-v", "error", "-rw_timeout", "5000000", "-select_streams", "v",
                          "-show_entries", "packet=pts_time", "-of", "csv=p=0", url],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
start = time.monotonic()
try:
    for line in probe.stdout:
        now = time.monotonic()
        print(f"{now - start:.3f},{line.strip()}", flush=True)
        if now - start > limit:
            break
finally:
    probe.kill()
    probe.wait()
