#!/usr/bin/env python3
"""Media seconds in a CSV of packet times (ffprobe -show_entries packet=pts_time -of csv=p=0): last minus first.

Used by the live benchmarks to tell whether an output kept up with the wall clock.
"""
import sys


def span(path):
    times = [float(line) for line in open(path) if line.strip() and line.strip() != "N/A"]
    return (max(times) - min(times)) if times else 0.0


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(f"{span(path):.1f}")
