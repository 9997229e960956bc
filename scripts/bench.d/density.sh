# Sourced by scripts/bench: `scripts/bench density [N] [--fanout K]`, N copy restreams (default 10)
# through one `sluice worker` against one `ffmpeg -c copy` process per stream, in the same run.
#
# A private nginx-rtmp and RabbitMQ. N looping 720p30 ~3 Mb/s H.264 + AAC publishers (ffmpeg -re -stream_loop
# -1 -c copy) feed live/src-iN and run through both phases; their own CPU is not counted.
#  A. One `sluice worker` (--live-slots N when it has the flag, else --concurrency N) runs N restream jobs
#     (`sluice enqueue`), each pulling live/src-iN and publishing to K outputs live/out-iN-k.
#  B. N `ffmpeg -i live/src-iN -c copy -f flv live/ff-iN-k…` processes (K outputs each), the worker stopped.
# Each phase: a warm-up (until every output flows, at most SLUICE_BENCH_DENSITY_WARMUP_S, default 30), then a
# window of SLUICE_BENCH_DENSITY_WINDOW_S (default 30): CPU from /proc/PID/stat utime+stime deltas (% of one
# core), RSS (VmRSS) and threads at the end of the window (summed over the ffmpeg processes), and flowing
# outputs: output streams whose bytes_in grew during the window on nginx-rtmp's statistics page.
# Exits non-zero only when something could not be set up; a phase that flows badly is a result.
bench_density() {
  local streams=10 fanout=1
  while [ $# -gt 0 ]; do
    case $1 in
      --fanout) fanout=${2:?--fanout needs a number}; shift 2 ;;
      --fanout=*) fanout=${1#--fanout=}; shift ;;
      *[!0-9]* | '') echo "usage: scripts/bench density [N] [--fanout K]" >&2; return 2 ;;
      *) streams=$1; shift ;;
    esac
  done
  local warmup="${SLUICE_BENCH_DENSITY_WARMUP_S:-30}" window="${SLUICE_BENCH_DENSITY_WINDOW_S:-30}"
  local dir media
  dir="$(pwd)/$work/density"
  rm -rf "$dir"
  mkdir -p "$dir/jobs"
  chmod 755 "$dir"  # the private broker runs as the rabbitmq user and keeps its files below
  media="$work/density-720p30.mp4"
  if [ ! -s "$media" ]; then
    echo "bench: generating $media (20 s 720p30 ~3 Mb/s H.264, GOP 2 s + AAC 128k)" >&2
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 20 \
      -c:v libx264 -preset veryfast -b:v 3000k -maxrate 3000k -bufsize 6000k -g 60 -pix_fmt yuv420p \
      -c:a aac -b:a 128k -ac 2 -shortest "$media"
  fi

  local rtmp_port amqp_port url amqp
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  density_pids=()  # every process this benchmark started, stopped on any exit (global: the EXIT trap outlives the function)
  # shellcheck disable=SC2064
  trap "kill \${density_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-rtmp' '$rtmp_port' >/dev/null 2>&1; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1; true" EXIT
  # Not $(…): both daemonize, and a daemon holding the substitution's pipe would hang it.
  scripts/lib/nginx-rtmp.sh start "$dir/nginx-rtmp" "$rtmp_port" > "$dir/rtmp-url"
  url=$(head -n 1 "$dir/rtmp-url")
  echo "bench: starting a private RabbitMQ on 127.0.0.1:$amqp_port" >&2
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  local stat="$dir/nginx-rtmp/stat.sock"

  echo "== density: $streams copy restreams of $(basename "$media") (720p30 ~3 Mb/s) with $fanout output(s) each: one sluice worker vs one ffmpeg -c copy per stream"
  local i k
  for i in $(seq 1 "$streams"); do
    ffmpeg -hide_banner -nostdin -loglevel error -re -stream_loop -1 -i "$media" -c copy -f flv "$url/src-i$i" 2> "$dir/publisher-$i.log" &
    density_pids+=($!)
  done
  local measure="$dir/measure.py"
  cat > "$measure" <<'PY'
# usage: measure.py STAT_SOCKET PREFIX EXPECTED WARMUP WINDOW NAME PID...  → one JSON line with the phase's figures
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
PY

  # Phase A: one worker, N jobs.
  local slots=(--concurrency "$streams")
  if "$bin/sluice" worker --help 2>&1 | grep -q -- '--live-slots'; then
    slots=(--live-slots "$streams")  # restreams (RTMP pull inputs) are live jobs; batch slots keep their default
  fi
  echo "bench: phase A, sluice worker ${slots[*]}" >&2
  "$bin/sluice" worker --db "$dir/density.sqlite" --amqp-url "$amqp" "${slots[@]}" --worker-id density \
    --input-root "$dir" --output-root "$dir" --grace-s 1 --log-format text 2> "$dir/worker.log" &
  local worker=$!
  density_pids+=("$worker")
  sleep 1
  for i in $(seq 1 "$streams"); do
    local outputs=""
    for k in $(seq 1 "$fanout"); do outputs+="${outputs:+, }\"$url/out-i$i-$k\""; done
    cat > "$dir/jobs/i$i.json" <<JSON
{"id": "density-i$i", "input": {"url": "$url/src-i$i", "timeout_s": 20}, "outputs": [$outputs], "max_duration_s": $((warmup + window + 120))}
JSON
    "$bin/sluice" enqueue --amqp-url "$amqp" "$dir/jobs/i$i.json" >/dev/null 2>>"$dir/enqueue.log" || { echo "bench: enqueue of job $i failed" >&2; return 1; }
  done
  python3 "$measure" "$stat" out- $((streams * fanout)) "$warmup" "$window" "sluice worker" "$worker" > "$dir/phase-a.json" \
    || { echo "bench: measuring phase A failed" >&2; return 1; }
  kill -0 "$worker" 2>/dev/null || { echo "bench: the worker died; its log:" >&2; tail -20 "$dir/worker.log" >&2; }
  kill -TERM "$worker" 2>/dev/null || true
  local waited=0
  while kill -0 "$worker" 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -KILL "$worker" 2>/dev/null || true
  wait "$worker" 2>/dev/null || true

  # Phase B: one ffmpeg per stream.
  echo "bench: phase B, $streams ffmpeg -c copy processes" >&2
  local relays=()
  for i in $(seq 1 "$streams"); do
    local outs=()
    for k in $(seq 1 "$fanout"); do outs+=(-map 0 -c copy -f flv "$url/ff-i$i-$k"); done
    ffmpeg -hide_banner -nostdin -loglevel error -rw_timeout 20000000 -i "$url/src-i$i" "${outs[@]}" 2> "$dir/relay-$i.log" &
    relays+=($!)
    density_pids+=($!)
  done
  python3 "$measure" "$stat" ff- $((streams * fanout)) "$warmup" "$window" "ffmpeg -c copy" "${relays[@]}" > "$dir/phase-b.json" \
    || { echo "bench: measuring phase B failed" >&2; return 1; }
  kill "${density_pids[@]}" 2>/dev/null || true
  wait "${density_pids[@]}" 2>/dev/null || true

  python3 - "$dir/phase-a.json" "$dir/phase-b.json" "$streams" "$fanout" "$window" <<'PY'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
streams, fanout, window = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
print(f"{streams} inputs x {fanout} output(s), {window} s window after warm-up (publishers' CPU not counted)")
print(f"| | CPU (% of a core) | CPU per flowing output | RSS | threads | flowing outputs | processes | output Mb/s |")
print(f"| --- | --- | --- | --- | --- | --- | --- | --- |")
for p in (a, b):
    per = p["cpu"] / p["flowing"] if p["flowing"] else float("nan")
    p["per"] = per
    print(f"| {p['name']} | {p['cpu']:.1f} % | {per:.2f} % | {p['rss_kib'] / 1024:.0f} MiB | {p['threads']} | {p['flowing']} / {p['expected']} | {p['processes']} | {p['mbits']:.0f} |")
print("warm-up until every output flowed: " + ", ".join(f"{p['name']} {p['warmup_s']} s" for p in (a, b)))
cpu_ratio = a["per"] / b["per"] if b["per"] == b["per"] and b["per"] else float("nan")
print(f"sluice / ffmpeg: CPU per flowing output {cpu_ratio:.2f}x, CPU {a['cpu'] / b['cpu']:.2f}x, RSS {a['rss_kib'] / max(b['rss_kib'], 1):.2f}x "
      f"(goals at 100 streams: CPU per stream <= 0.6x, RSS <= 230 MiB, <= 32 threads)")
PY
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx-rtmp" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}
