#!/usr/bin/env python3
"""Plays an RTMP stream with ffmpeg (stream copy to FLV, flushed per packet), keeps what it received in OUT.flv and
writes one line per coded video tag as it arrives to ARRIVALS.csv: "arrival_seconds,timestamp_ms", arrival counted
from the first byte. An independent player for tests that judge gaps in arrival time and in timestamps.

Usage: play-arrivals.py URL OUT.flv ARRIVALS.csv IDLE_SECONDS — ffmpeg gives up IDLE_SECONDS after the stream stops.
"""
import struct
import subprocess
import sys
import time

url, out, arrivals, idle = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
player = subprocess.Popen(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-rw_timeout", str(int(idle * 1e6)),
                           "-i", url, "-c", "copy", "-flush_packets", "1", "-f", "flv", "pipe:1"],
                          stdout=subprocess.PIPE, stderr=sys.stderr)
buffer = b""
start = None
with open(out, "wb") as sink, open(arrivals, "w") as log:
    header_done = False
    while True:
        chunk = player.stdout.read1(65536)
        if not chunk:
            break
        now = time.monotonic()
        if start is None:
            start = now
        sink.write(chunk)
        buffer += chunk
        if not header_done:
            if len(buffer) < 13:
                continue
            offset = struct.unpack(">I", buffer[5:9])[0]
            buffer = buffer[offset + 4:]
            header_done = True
        while len(buffer) >= 11:
            kind = buffer[0] & 0x1F
            size = int.from_bytes(buffer[1:4], "big")
            stamp = int.from_bytes(buffer[4:7], "big") | (buffer[7] << 24)
            if len(buffer) < 11 + size + 4:
                break
            body = buffer[11:11 + size]
            if kind == 9 and len(body) >= 2 and body[1] == 1:
                log.write(f"{now - start:.3f},{stamp}\n")
                log.flush()
            buffer = buffer[11 + size + 4:]
sys.exit(player.wait())
