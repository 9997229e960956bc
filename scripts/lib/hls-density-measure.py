#!/usr/bin/env python3
"""Measures one phase of `scripts/bench hls-density`; prints one JSON line with its figures.

Usage: hls-density-measure.py --name NAME --playlists PATTERN --count N --segment-s S --warmup W --window T
                              [--stat SOCKET --rtmp-prefix PREFIX] [--recordings PATTERN] --pids PID...
  PATTERN: a path with {} where the stream's number goes (1…N): the phase's N live playlists, or with
  --recordings the N folders of segmented recordings (a recording counts when the bytes of its files grew).
  --stat/--rtmp-prefix: nginx-rtmp's statistics socket and the phase's RTMP output streams (…-iN after src-iN).
  Warm-up: until every playlist is fresh (at most W seconds), then 5 s more; then a window of T seconds.
  PID...: the processes whose CPU (utime+stime), RSS and threads are counted.

A playlist is fresh when it was rewritten within the last 3 segment durations and names at least one segment, every
segment it names (and its EXT-X-MAP) exists. Figures: cpu (% of one core over the window), rss_kib, anon_kib
(RssAnon), threads (summed, at the end of the window), fresh (playlists fresh at the end of the window), advanced
(playlists whose last segment's number moved on by at least half the window's segments: none stalled and came back),
oldest_s (the oldest playlist's age at the end), stale (up to 5 reasons), load (the 1-minute load average at the
window's start and end), and with --stat flowing and kept_up (RTMP
outputs whose bytes grew, and within 5 % of their input's), with --recordings recording (recordings that grew).
"""
import argparse
import json
import os
import re
import socket
import time

parser = argparse.ArgumentParser()
parser.add_argument("--name", required=True)
parser.add_argument("--playlists", required=True)
parser.add_argument("--count", type=int, required=True)
parser.add_argument("--segment-s", type=float, required=True)
parser.add_argument("--warmup", type=float, required=True)
parser.add_argument("--window", type=float, required=True)
parser.add_argument("--stat")
parser.add_argument("--rtmp-prefix")
parser.add_argument("--recordings")
parser.add_argument("--pids", nargs="+", required=True)
args = parser.parse_args()
hz = os.sysconf("SC_CLK_TCK")
# A fresh playlist was rewritten within this many segment durations.
fresh_segments = 3
# An RTMP output whose bytes over the window differ from its input's by more than this fell behind (or burst).
tolerance = 0.05
playlists = [args.playlists.replace("{}", str(i)) for i in range(1, args.count + 1)]
recordings = [args.recordings.replace("{}", str(i)) for i in range(1, args.count + 1)] if args.recordings else []


def ticks():
    total = 0
    for pid in args.pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return total


def status(field):
    total = 0
    for pid in args.pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def alive():
    return sum(os.path.exists(f"/proc/{pid}") for pid in args.pids)


def playlist(path):
    """(age in seconds, last segment's number, None) when fresh, else (age or None, number or None, why not)."""
    try:
        age = time.time() - os.stat(path).st_mtime
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None, None, f"{path}: missing"
    folder = os.path.dirname(path)
    first = re.search(r"^#EXT-X-MEDIA-SEQUENCE:(\d+)", text, re.M)
    named = re.findall(r'^#EXT-X-MAP:.*URI="([^"]+)"', text, re.M)
    segments = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    # The number of the last segment listed: it moves on while the window fills, as the media sequence does after.
    sequence = int(first.group(1) if first else 0) + len(segments)
    if age > fresh_segments * args.segment_s:
        return age, sequence, f"{path}: rewritten {age:.1f} s ago"
    if not segments:
        return age, sequence, f"{path}: names no segment"
    for uri in named + segments:
        if not os.path.exists(os.path.join(folder, uri)):
            return age, sequence, f"{path}: names {uri}, which does not exist"
    return age, sequence, None


def survey():
    return [playlist(path) for path in playlists]


def stat_page():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(args.stat)
    s.sendall(b"GET /stat HTTP/1.0\r\nHost: localhost\r\n\r\n")
    data = b""
    while chunk := s.recv(1 << 16):
        data += chunk
    s.close()
    text = data.decode(errors="replace")
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"<stream>\s*<name>([^<]*)</name>.*?<bytes_in>(\d+)</bytes_in>", text, re.S)}


def recorded(folder):
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except FileNotFoundError:
                pass  # a segment handed over between the listing and the stat
    return total


start = time.monotonic()
while time.monotonic() - start < args.warmup:
    if all(why is None for _, _, why in survey()):
        time.sleep(5)
        break
    time.sleep(1)
warm = time.monotonic() - start
first = survey()
t0, c0, load0 = time.monotonic(), ticks(), os.getloadavg()[0]
s0 = stat_page() if args.stat else {}
r0 = [recorded(folder) for folder in recordings]
time.sleep(args.window)
t1, c1, load1 = time.monotonic(), ticks(), os.getloadavg()[0]
s1 = stat_page() if args.stat else {}
r1 = [recorded(folder) for folder in recordings]
last = survey()
rss, anon, threads = status("VmRSS"), status("RssAnon"), status("Threads")

stale = [why for _, _, why in last if why is not None]
ages = [age for age, _, _ in last if age is not None]
enough = args.window / args.segment_s / 2
advanced = sum(1 for (_, a, _), (_, b, _) in zip(first, last) if a is not None and b is not None and b - a >= enough)
figures = {"name": args.name, "cpu": (c1 - c0) / hz / (t1 - t0) * 100, "rss_kib": rss, "anon_kib": anon,
           "threads": threads, "expected": args.count, "fresh": args.count - len(stale), "advanced": advanced,
           "oldest_s": round(max(ages), 1) if ages else None, "stale": stale[:5], "processes": alive(),
           "warmup_s": round(warm, 1), "load": [round(load0, 1), round(load1, 1)]}
if args.stat:
    o0 = {k: v for k, v in s0.items() if k.startswith(args.rtmp_prefix)}
    o1 = {k: v for k, v in s1.items() if k.startswith(args.rtmp_prefix)}
    ratios = []
    for k, v in o1.items():
        match = re.search(r"-i(\d+)", k)
        source = f"src-i{match.group(1)}" if match else None
        if k in o0 and source in s0 and source in s1:
            sent = s1[source] - s0[source]
            ratios.append((v - o0[k]) / sent if sent > 0 else 0.0)
    figures["flowing"] = sum(1 for k, v in o1.items() if v > o0.get(k, v))
    figures["kept_up"] = sum(1 for r in ratios if abs(r - 1) <= tolerance)
if recordings:
    figures["recording"] = sum(1 for a, b in zip(r0, r1) if b > a)
print(json.dumps(figures))
