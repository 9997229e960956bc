#!/usr/bin/env python3
"""How well a live output kept up, from a player's log of "arrival_seconds,pts_seconds" lines (see `play-times`).

Prints "SPANs@RATEx": the media seconds received (last PTS minus first) and the rate at which media arrived once
flowing: the media between the first packet 5 s after the start and the last, over the wall time between their
arrivals (1.00 = the output flowed at 1x; the first seconds are skipped because the player shows what it buffered
while probing in one burst). Used by scripts/bench liveencode and ladder.
"""
import sys


def flow(path):
    pairs = []
    for line in open(path):
        parts = line.strip().split(",")
        if len(parts) == 2 and parts[1] not in ("", "N/A"):
            pairs.append((float(parts[0]), float(parts[1])))
    if len(pairs) < 2:
        return 0.0, 0.0
    media = max(p for _, p in pairs) - min(p for _, p in pairs)
    settled = [pair for pair in pairs if pair[0] >= pairs[0][0] + 5] or pairs
    wall = settled[-1][0] - settled[0][0]
    return media, ((settled[-1][1] - settled[0][1]) / wall if wall > 0 else 0.0)


if __name__ == "__main__":
    for path in sys.argv[1:]:
        media, rate = flow(path)
        print(f"{media:.1f}s@{rate:.2f}x")
