#!/usr/bin/env python3
"""Prints `scripts/bench hls-density`'s table and verdict from its phases' figures (hls-density-measure.py's lines).

Usage: hls-density-report.py WINDOW GOAL_N POINT_FILE...
  POINT_FILE: one file per point N, one JSON line per phase (sluice, nginx, ffmpeg; ffmpeg's may be missing when it
  was capped), each with "phase" and "streams" added; or one line with phase "mixed" (`--mixed N`).
Goals at GOAL_N (100), and the same reported at every other point: sluice CPU <= nginx-rtmp's HLS (same run),
RSS <= 64 MiB, worker threads <= 10, every playlist fresh.
"""
import json
import sys

window, goal_n = sys.argv[1], int(sys.argv[2])
# The goals: RSS and threads of the one worker.
rss_goal_mib, threads_goal = 64, 10
points = []
for path in sys.argv[3:]:
    phases = {}
    for line in open(path):
        if line.strip():
            phase = json.loads(line)
            phases[phase["phase"]] = phase
    if phases:
        points.append(phases)


def mib(p):
    return p["rss_kib"] / 1024


def memory(p):
    return f"{mib(p):.0f} MiB ({p['anon_kib'] / 1024:.0f} anon)"


def fresh(p):
    return f"{p['fresh']} of {p['expected']}"


def ratio(a, b):
    return a / b if b else float("nan")


def misses(p, n=None):
    """What the sluice phase p missed of the goals (against nginx-rtmp's phase n when it ran)."""
    found = []
    if n and p["cpu"] > n["cpu"]:
        found.append(f"CPU {p['cpu']:.1f} % above nginx-rtmp's {n['cpu']:.1f} %")
    if mib(p) > rss_goal_mib:
        found.append(f"RSS {mib(p):.0f} MiB above {rss_goal_mib} MiB")
    if p["threads"] > threads_goal:
        found.append(f"{p['threads']} threads (goal <= {threads_goal})")
    if p["fresh"] < p["expected"]:
        found.append(f"{p['fresh']} of {p['expected']} playlists fresh (" + "; ".join(p["stale"][:2]) + ")")
    return found


curve = [phases for phases in points if "sluice" in phases]
mixed = [phases["mixed"] for phases in points if "mixed" in phases]
at_goal, elsewhere = [], []
if curve:
    print(f"\n== hls-density: {window} s window per phase, publishers' CPU not counted; fresh = rewritten within 3 segments, "
          "every segment named exists")
    print("| N | sluice worker: CPU / RSS / threads / fresh | nginx-rtmp hls: CPU / RSS / processes / fresh "
          "| ffmpeg -f hls: CPU / RSS / fresh | sluice / nginx CPU | sluice / ffmpeg CPU per output |")
    print("| --- | --- | --- | --- | --- | --- |")
for phases in curve:
    s, n, f = phases["sluice"], phases.get("nginx"), phases.get("ffmpeg")
    streams = s["streams"]
    sluice = f"{s['cpu']:.1f} % / {memory(s)} / {s['threads']} / {fresh(s)}"
    nginx = f"{n['cpu']:.1f} % / {memory(n)} / {n['processes']} / {fresh(n)}" if n else "not run"
    if f:
        capped = f" (at {f['streams']})" if f["streams"] != streams else ""
        ffmpeg = f"{f['cpu']:.1f} %{capped} / {mib(f):.0f} MiB / {fresh(f)}"
        per_output = ratio(s["cpu"] / s["expected"], f["cpu"] / f["expected"]) if f["expected"] else float("nan")
        vs_ffmpeg = f"{per_output:.2f}x"
    else:
        ffmpeg, vs_ffmpeg = "not run", "-"
    vs_nginx = f"**{ratio(s['cpu'], n['cpu']):.2f}x**" if n else "-"
    print(f"| {streams} | {sluice} | {nginx} | {ffmpeg} | {vs_nginx} | {vs_ffmpeg} |")
    found = [f"N = {streams}: {m}" for m in misses(s, n)]
    (at_goal if streams == goal_n else elsewhere).extend(found)
for phases in curve:
    print(f"N = {phases['sluice']['streams']}: warm-up until every playlist was fresh / the oldest playlist at the end / "
          "load average over the window: "
          + ", ".join(f"{p['name']} {p['warmup_s']} s / {p['oldest_s']} s / {p['load'][0]}-{p['load'][1]}" for p in phases.values()))
    for p in phases.values():
        if p["fresh"] < p["expected"] or p["advanced"] < p["expected"]:
            print(f"  {p['name']}: {p['fresh']} fresh, {p['advanced']} advanced of {p['expected']}: " + "; ".join(p["stale"]))
if curve:
    goal_run = any(phases["sluice"]["streams"] == goal_n for phases in curve)
    goals = (f"CPU <= nginx-rtmp's, RSS <= {rss_goal_mib} MiB, threads <= {threads_goal}, every playlist fresh")
    if goal_run:
        print(f"goals at N = {goal_n} ({goals}): " + ("met" if not at_goal else "NOT met: " + "; ".join(at_goal)))
    else:
        print(f"goals at N = {goal_n}: not judged (no point at {goal_n})")
    others = sorted({phases["sluice"]["streams"] for phases in curve} - {goal_n})
    if others:
        print(f"the same goals at N = {', '.join(map(str, others))}: "
              + ("met" if not elsewhere else "NOT met: " + "; ".join(elsewhere)))

for m in mixed:
    print(f"\n== hls-density --mixed {m['streams']}: each job an RTMP output, a live HLS output and a .mp4 recording in "
          f"10 s segments; {window} s window")
    print("| N | sluice worker: CPU / RSS / threads | HLS fresh | RTMP flowing / kept up | recordings growing |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| {m['streams']} | {m['cpu']:.1f} % / {memory(m)} / {m['threads']} | {fresh(m)} | "
          f"{m['flowing']} of {m['expected']} / {m['kept_up']} | {m['recording']} of {m['expected']} |")
    broken = []
    if m["fresh"] < m["expected"]:
        broken.append(f"{m['expected'] - m['fresh']} playlist(s) not fresh (" + "; ".join(m["stale"][:2]) + ")")
    if m["kept_up"] < m["expected"]:
        broken.append(f"{m['expected'] - m['kept_up']} RTMP output(s) not flowing or behind")
    if m["recording"] < m["expected"]:
        broken.append(f"{m['expected'] - m['recording']} recording(s) not growing")
    print(f"warm-up {m['warmup_s']} s, oldest playlist at the end {m['oldest_s']} s, load average {m['load'][0]}-{m['load'][1]}")
    print(f"every output working: " + ("yes" if not broken else "NO: " + "; ".join(broken))
          + f"; against the single-output goals: " + ("; ".join(misses({**m, "stale": m["stale"]})) or "RSS and threads within them"))
