#!/usr/bin/env python3
# usage: restream-measure.py STAT_SOCKET PREFIX EXPECTED WARMUP WINDOW NAME PID...  → one JSON line with the phase's figures
# One phase of a restream benchmark (scripts/bench density, srt): waits until EXPECTED output streams named PREFIX… grow
# on nginx-rtmp's statistics page, then measures the processes PID… over WINDOW seconds: CPU (% of one core), RSS, threads,
# flowing outputs and their Mb/s.
import json, os, re, socket, sys, time
stat_socket, prefix, expected, warmup, window, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
pids = sys.argv[7:]
hz = os.sysconf("SC_CLK_TCK")

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
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"<stream>\s*<name>([^<]*)</name>.*?<bytes_in>(\d+)</bytes_in>", text, re.S)
            if m.group(1).startswith(prefix)}

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
before = stat_page()
while time.monotonic() - start < warmup:
    time.sleep(2)
    now = stat_page()
    growing = sum(1 for k, v in now.items() if v > before.get(k, v))
    before = now
    if growing >= expected:
        time.sleep(5)
        break
warm = time.monotonic() - start
t0, c0, s0 = time.monotonic(), ticks(), stat_page()
time.sleep(window)
t1, c1, s1 = time.monotonic(), ticks(), stat_page()
flowing = sum(1 for k, v in s1.items() if v > s0.get(k, v))
mbits = sum(v - s0.get(k, v) for k, v in s1.items() if k in s0) * 8 / (t1 - t0) / 1e6
print(json.dumps({"name": name, "cpu": (c1 - c0) / hz / (t1 - t0) * 100, "rss_kib": status("VmRSS"), "threads": status("Threads"),
                  "flowing": flowing, "expected": expected, "processes": alive(), "warmup_s": round(warm, 1), "mbits": mbits}))
