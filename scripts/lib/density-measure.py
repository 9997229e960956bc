#!/usr/bin/env python3
"""Measures one phase of `scripts/bench density`; prints one JSON line with its figures.

Usage: density-measure.py STAT_SOCKET PREFIX EXPECTED WARMUP WINDOW NAME PID...
  STAT_SOCKET: nginx-rtmp's statistics socket (bytes_in of every stream it holds).
  PREFIX: the phase's output streams (out-, ff-, nx-), each named …-iN… after its input src-iN.
  EXPECTED: how many output streams there should be; WARMUP: at most this many seconds until they all flow (then 5 s
  more); WINDOW: the measured seconds. PID...: the processes whose CPU (utime+stime), RSS and threads are counted.

Figures: cpu (% of one core over the window), rss_kib, anon_kib (RssAnon: the part no file backs) and threads
(summed, at the end of the window), flowing (outputs
whose bytes grew), kept_up (outputs whose bytes over the window are within 5 % of their input's: none fell behind),
worst (the lowest output/input ratio), mbits (all outputs together).
"""
import json
import os
import re
import socket
import sys
import time

stat_socket, prefix, expected, warmup, window, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
pids = sys.argv[7:]
hz = os.sysconf("SC_CLK_TCK")
# An output whose bytes over the window differ from its input's by more than this fell behind (or burst).
tolerance = 0.05


def stat_page():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(stat_socket)
    s.sendall(b"GET /stat HTTP/1.0\r\nHost: localhost\r\n\r\n")
    data = b""
    while chunk := s.recv(1 << 16):
        data += chunk
    s.close()
    text = data.decode(errors="replace")
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"<stream>\s*<name>([^<]*)</name>.*?<bytes_in>(\d+)</bytes_in>", text, re.S)}


def outputs(page):
    return {k: v for k, v in page.items() if k.startswith(prefix)}


def ticks():
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
    return total


def status(field):
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith(field + ":"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def alive():
    return sum(os.path.exists(f"/proc/{pid}") for pid in pids)


# Warm-up: until every output stream's bytes grow, then 5 s more for the connection bursts to settle.
start = time.monotonic()
before = outputs(stat_page())
while time.monotonic() - start < warmup:
    time.sleep(2)
    now = outputs(stat_page())
    growing = sum(1 for k, v in now.items() if v > before.get(k, v))
    before = now
    if growing >= expected:
        time.sleep(5)
        break
warm = time.monotonic() - start
t0, c0, s0 = time.monotonic(), ticks(), stat_page()
time.sleep(window)
t1, c1, s1 = time.monotonic(), ticks(), stat_page()
rss, anon, threads = status("VmRSS"), status("RssAnon"), status("Threads")
o0, o1 = outputs(s0), outputs(s1)
flowing = sum(1 for k, v in o1.items() if v > o0.get(k, v))
mbits = sum(v - o0.get(k, v) for k, v in o1.items() if k in o0) * 8 / (t1 - t0) / 1e6
ratios = []
for k, v in o1.items():
    match = re.search(r"-i(\d+)", k)
    source = f"src-i{match.group(1)}" if match else None
    if k not in o0 or source not in s0 or source not in s1:
        continue
    got, sent = v - o0[k], s1[source] - s0[source]
    ratios.append(got / sent if sent > 0 else 0.0)
kept_up = sum(1 for r in ratios if abs(r - 1) <= tolerance)
print(json.dumps({"name": name, "cpu": (c1 - c0) / hz / (t1 - t0) * 100, "rss_kib": rss, "anon_kib": anon, "threads": threads,
                  "flowing": flowing, "kept_up": kept_up, "worst": min(ratios) if ratios else 0.0, "expected": expected,
                  "processes": alive(), "warmup_s": round(warm, 1), "mbits": mbits}))
