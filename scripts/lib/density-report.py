#!/usr/bin/env python3
"""Prints `scripts/bench density`'s verdict from its phases' figures (density-measure.py's JSON lines).

Usage: density-report.py FANOUT WINDOW GOAL_N POINT_FILE...
  POINT_FILE: one file per point N, one JSON line per phase (sluice, nginx, ffmpeg; ffmpeg's may be missing when
  it was capped), each with "streams" added. GOAL_N: the point the goals are judged at (100).
Goals at GOAL_N: sluice CPU <= nginx-rtmp's (measured in the same run), RSS <= 50 MiB, every output flowing,
threads <= 8; at every point every sluice output keeps up (within 5 % of its input's bytes).
"""
import json
import sys

fanout, window, goal_n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
points = []
for path in sys.argv[4:]:
    phases = {}
    for line in open(path):
        if line.strip():
            phase = json.loads(line)
            phases[phase["phase"]] = phase
    points.append(phases)


def mib(p):
    return p["rss_kib"] / 1024


def memory(p):
    """RSS, with the anonymous part (what no file backs) when measured."""
    return f"{mib(p):.0f} MiB" + (f" ({p['anon_kib'] / 1024:.0f} anon)" if "anon_kib" in p else "")


def ratio(a, b):
    return a / b if b else float("nan")


def per_output(p):
    return ratio(p["cpu"], p["flowing"])


print(f"\n== density: {window} s window per phase, fan-out {fanout}, publishers' CPU not counted")
print("| N | sluice worker: CPU / RSS / threads / flowing / kept up | nginx-rtmp push: CPU / RSS / flowing / kept up "
      "| ffmpeg -c copy: CPU / flowing / kept up | sluice / nginx CPU | sluice / ffmpeg CPU per output |")
print("| --- | --- | --- | --- | --- | --- |")
verdicts = []
for phases in points:
    s, n, f = phases.get("sluice"), phases.get("nginx"), phases.get("ffmpeg")
    streams = s["streams"]
    sluice = f"{s['cpu']:.1f} % / {memory(s)} / {s['threads']} / {s['flowing']} of {s['expected']} / {s['kept_up']}"
    nginx = f"{n['cpu']:.1f} % / {memory(n)} / {n['flowing']} of {n['expected']} / {n['kept_up']}" if n else "not run"
    if f:
        capped = f" (at {f['streams']})" if f["streams"] != streams else ""
        ffmpeg = f"{f['cpu']:.1f} %{capped} / {f['flowing']} of {f['expected']} / {f['kept_up']}"
        vs_ffmpeg = f"{ratio(per_output(s), per_output(f)):.2f}x"
    else:
        ffmpeg, vs_ffmpeg = "not run", "-"
    vs_nginx = f"**{ratio(s['cpu'], n['cpu']):.2f}x**" if n else "-"
    print(f"| {streams} | {sluice} | {nginx} | {ffmpeg} | {vs_nginx} | {vs_ffmpeg} |")
    if s["kept_up"] < s["expected"]:
        verdicts.append(f"N = {streams}: {s['expected'] - s['kept_up']} sluice output(s) fell behind (worst {s['worst']:.2f}x of its input)")
    if streams == goal_n:
        if n and s["cpu"] > n["cpu"]:
            verdicts.append(f"N = {streams}: sluice CPU {s['cpu']:.1f} % above nginx-rtmp's {n['cpu']:.1f} %")
        if mib(s) > 50:
            verdicts.append(f"N = {streams}: sluice RSS {mib(s):.0f} MiB above 50 MiB")
        if s["flowing"] < s["expected"]:
            verdicts.append(f"N = {streams}: {s['flowing']} of {s['expected']} sluice outputs flowing")
        if s["threads"] > 8:
            verdicts.append(f"N = {streams}: {s['threads']} threads (goal <= 8)")
for phases in points:
    print(f"N = {phases['sluice']['streams']}: warm-up until every output flowed: "
          + ", ".join(f"{p['name']} {p['warmup_s']} s" for p in phases.values()))
print(f"goals (at N = {goal_n}: CPU <= nginx-rtmp, RSS <= 50 MiB, all flowing, <= 8 threads; every point: every output "
      "within 5 % of its input): " + ("met" if not verdicts else "NOT met: " + "; ".join(verdicts)))
