#!/usr/bin/env python3
"""Prints a live benchmark's verdict: each process's CPU, threads, RSS and what its outputs published, and the ratio.

Usage: cpu-compare.py SLUICE_STATS FFMPEG_STATS SLUICE_FLOW FFMPEG_FLOW SECONDS
  *_STATS: "cpu_seconds max_threads max_rss_kib" (process-sample.py); *_FLOW: what published-span.py said of each
  output ("29.9s@1.00x", or "copy=29.9s@1.00x 720=…" for several). Used by scripts/bench liveencode and ladder.
"""
import sys

sluice, ffmpeg = (stats.split() for stats in sys.argv[1:3])
flows = sys.argv[3:5]
seconds = float(sys.argv[5])
for name, stats, flow in (("sluice", sluice, flows[0]), ("ffmpeg", ffmpeg, flows[1])):
    cpu = float(stats[0])
    print(f"{name}: cpu {cpu:.2f} s ({100 * cpu / seconds:.0f} % of a core), threads {stats[1]}, "
          f"peak RSS {int(stats[2]) / 1024:.0f} MiB, published (media @ rate once flowing): {flow}")
print(f"cpu ratio {float(sluice[0]) / float(ffmpeg[0]):.3f} (sluice / ffmpeg)")
