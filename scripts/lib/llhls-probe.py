#!/usr/bin/python3
"""Low-Latency HLS latency probe for `scripts/bench llhls`.

usage: llhls-probe.py PLAYLIST_URL FOLDER PARTS -- PUBLISHER_COMMAND…

Starts the publisher (ffmpeg -re into the stream the job is already waiting on), so the job's timeline starts at the
publisher's first frame: a frame of media time m leaves ffmpeg no earlier than launch + m. Then, for PARTS parts in
a row, asks for the next part with a blocking reload (_HLS_msn/_HLS_part) as soon as the previous answer came, and
records for each:
  - answer: request sent → playlist listing the part received (the wait a player sees; goal <= part target + 100 ms),
  - wake: the part's file written (its mtime, set just before the playlist was renamed) → answer received,
  - frame latency: answer received − (launch + media time) for the part's first and last frame, an upper bound of
    publish → listed for each frame (ffmpeg sends no frame early).
"""
import os
import statistics
import subprocess
import sys
import time
import urllib.request


def get(url: str, timeout: float = 30) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode()


def parse(text: str):
    """(media sequence, [(segment duration or None for the open one, [(part uri, duration)])], part target)."""
    sequence, target, segments, parts = 0, None, [], []
    for line in text.splitlines():
        if line.startswith("#EXT-X-MEDIA-SEQUENCE:"):
            sequence = int(line.split(":")[1])
        elif line.startswith("#EXT-X-PART-INF:"):
            target = float(line.split("PART-TARGET=")[1].split(",")[0])
        elif line.startswith("#EXT-X-PART:"):
            attrs = dict(item.split("=", 1) for item in line.split(":", 1)[1].split(","))
            parts.append((attrs["URI"].strip('"'), float(attrs["DURATION"])))
        elif line.startswith("#EXTINF:"):
            segments.append([float(line.split(":")[1].rstrip(",")), parts])
            parts = []
    segments.append([None, parts])
    return sequence, segments, target


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    url, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    publisher = sys.argv[sys.argv.index("--") + 1:]
    launch = time.time()
    child = subprocess.Popen(publisher, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while True:
            try:
                text = get(url)
                if "#EXT-X-PART:" in text:
                    break
            except Exception:
                pass
            if time.time() > deadline:
                sys.exit("llhls-probe: the playlist never listed a part")
            time.sleep(0.05)
        sequence, segments, target = parse(text)
        if sequence != 0:
            sys.exit(f"llhls-probe: the first playlist seen starts at segment {sequence}, not 0")
        # Media start of every segment seen, and of every part, by their sums from the first.
        starts = {0: 0.0}
        answers, wakes, first_frames, last_frames = [], [], [], []
        seen = set()
        for _ in range(count):
            sequence, segments, target = parse(text)
            msn = sequence + len(segments) - 1
            part = len(segments[-1][1])
            sent = time.time()
            text = get(f"{url}?_HLS_msn={msn}&_HLS_part={part}")
            received = time.time()
            sequence, segments, target = parse(text)
            for index, (duration, parts) in enumerate(segments):
                number = sequence + index
                start = starts.get(number)
                if start is None:
                    continue
                offset = start
                for uri, length in parts:
                    if uri not in seen:
                        seen.add(uri)
                        # Only parts first seen in this answer were listed while we waited.
                        if number > msn or (number == msn and parts.index((uri, length)) >= part):
                            mtime = os.stat(os.path.join(folder, uri)).st_mtime
                            wakes.append((received - mtime) * 1000)
                            first_frames.append((received - (launch + offset)) * 1000)
                            last_frames.append((received - (launch + offset + length - 1 / 30)) * 1000)
                    offset += length
                if duration is not None:
                    starts[number + 1] = start + duration
            answers.append((received - sent) * 1000)
        def show(name, values):
            print(f"  {name}: n={len(values)} p50 {statistics.median(values):.0f} ms, p95 {pct(values, 0.95):.0f} ms, "
                  f"max {max(values):.0f} ms")
        print(f"part target {target:.3f} s, {count} blocking reloads in a row")
        show("blocking reload, request → answer listing the next part", answers)
        show("part written (file mtime) → answer received", wakes)
        show("frame published → its part listed, first frame of a part", first_frames)
        show("frame published → its part listed, last frame of a part", last_frames)
        limit = target * 1000 + 100
        print(f"  answers within part target + 100 ms ({limit:.0f} ms): {sum(a <= limit for a in answers)}/{len(answers)}")
        return 0
    finally:
        child.terminate()
        child.wait()


if __name__ == "__main__":
    sys.exit(main())
