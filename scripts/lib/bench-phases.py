#!/usr/bin/env python3
# The table two phases of a density benchmark print (scripts/bench.d/srt.sh, rtsp.sh): each phase's measurement
# (scripts/lib/density-measure.py's JSON), then the CPU and RSS ratios of the first to the second.
#   bench-phases.py PHASE_A.json PHASE_B.json TITLE GOAL [PEER]   (PEER names phase B in the ratio line: ffmpeg)
import json
import sys

a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
title, goal = sys.argv[3], sys.argv[4]
peer = sys.argv[5] if len(sys.argv) > 5 else "ffmpeg"
print(title)
print("| | CPU (% of a core) | RSS | threads | flowing outputs | processes | output Mb/s |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for p in (a, b):
    print(f"| {p['name']} | {p['cpu']:.1f} % | {p['rss_kib'] / 1024:.0f} MiB | {p['threads']} | {p['flowing']} / {p['expected']} "
          f"| {p['processes']} | {p['mbits']:.0f} |")
ratio = a["cpu"] / b["cpu"] if b["cpu"] else float("nan")
print(f"sluice / {peer}: CPU {ratio:.2f}x (goal <= {goal}x), RSS {a['rss_kib'] / max(b['rss_kib'], 1):.2f}x")
