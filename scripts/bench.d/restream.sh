# Sourced by scripts/bench: `scripts/bench restream` (live copy mode), against a private nginx-rtmp.
#
#  1. Latency inside Sluice: each packet's arrival at the RTMP input to its write at the RTMP output
#     (SLUICE_LATENCY_HISTOGRAM=1 makes `sluice run` print p50/p99), copy mode.
#  2. Added latency of a relay: ffmpeg publishes one stream; Sluice and `ffmpeg -c copy` both relay it;
#     three ffprobe players (direct, via Sluice, via ffmpeg) stamp each video packet as it arrives, matched
#     by payload hash. Reported: arrival delay of each relay against the direct player, and their difference.
#  3. Memory: RSS of a copy restream over SLUICE_BENCH_RSS_MINUTES (default 10) minutes, sampled every 5 s;
#     the least-squares slope after the first minute, extrapolated to one hour (goal: <= 5 MB).
# The 60 s 720p30 source both restream benchmarks publish (made once).
restream_media() {
  local media="$work/restream-720p30.mp4"
  if [ ! -s "$media" ]; then
    echo "bench: generating $media (60 s 720p30 ~2.5 Mb/s H.264 + AAC 128k)" >&2
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 60 \
      -c:v libx264 -preset veryfast -b:v 2500k -maxrate 2500k -bufsize 5000k -g 60 -pix_fmt yuv420p \
      -c:a aac -b:a 128k -ac 2 -shortest "$media"
  fi
  echo "$media"
}

bench_restream() {
  local media
  media=$(restream_media)
  local port ngx url
  port=$(scripts/lib/free-port 20000 40000)
  ngx="$(pwd)/$work/nginx-rtmp"
  # Not $(…): nginx daemonizes.
  scripts/lib/nginx-rtmp.sh start "$ngx" "$port" > "$work/rtmp-url"
  url=$(head -n 1 "$work/rtmp-url")
  # shellcheck disable=SC2064
  trap "scripts/lib/nginx-rtmp.sh stop '$ngx' '$port' >/dev/null 2>&1 || true" EXIT

  local stamp="$work/stamp.py"
  cat > "$stamp" <<'PY'
# Runs a command and writes each line of its stdout prefixed with the monotonic time it arrived.
import subprocess, sys, time
out = open(sys.argv[1], "w")
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
for line in child.stdout:
    out.write(f"{time.monotonic():.6f},{line}")
out.close()
child.wait()
PY
  probe() { # NAME STREAM: stamps each video packet of rtmp STREAM into $work/probe-NAME.csv
    python3 "$stamp" "$work/probe-$1.csv" stdbuf -oL ffprobe -v error -rw_timeout 8000000 -select_streams v \
      -show_entries packet=pts -show_data_hash md5 -show_entries packet=data_hash -of csv=p=0 "$url/$2" &
  }

  echo "== restream: $(basename "$media") over RTMP, copy mode (nginx-rtmp on 127.0.0.1:$port)"
  local pids=()
  probe direct in; pids+=($!)
  probe sluice out-sluice; pids+=($!)
  probe ffmpeg out-ffmpeg; pids+=($!)
  cat > "$work/restream-job.json" <<JSON
{"id": "bench-restream", "input": {"url": "$url/in", "timeout_s": 10}, "outputs": ["$url/out-sluice"], "max_duration_s": 55}
JSON
  rm -f "$work/restream.sqlite"*
  SLUICE_LATENCY_HISTOGRAM=1 "$bin/sluice" run --quiet --db "$work/restream.sqlite" "$work/restream-job.json" 2> "$work/restream-sluice.log" &
  local sluice_pid=$!
  ffmpeg -hide_banner -loglevel error -rw_timeout 5000000 -i "$url/in" -c copy -f flv "$url/out-ffmpeg" 2> "$work/restream-ffmpeg.log" &
  local relay_pid=$!
  sleep 1
  ffmpeg -hide_banner -loglevel error -re -i "$media" -c copy -f flv "$url/in"
  wait "$sluice_pid" || { echo "bench: sluice failed:" >&2; cat "$work/restream-sluice.log" >&2; return 1; }
  wait "$relay_pid" || true
  wait "${pids[@]}" || true
  grep '^latency output' "$work/restream-sluice.log" | sed 's/^/inside Sluice, input arrival → RTMP write: /'
  python3 - "$work" <<'PY'
import statistics, sys
work = sys.argv[1]
def load(name):
    seen = {}
    for line in open(f"{work}/probe-{name}.csv"):
        parts = line.strip().split(",")
        if len(parts) >= 3 and parts[-1].startswith("MD5:"):
            seen.setdefault(parts[-1], float(parts[0]))
    return seen
direct, sluice, ffmpeg = load("direct"), load("sluice"), load("ffmpeg")
# Skip the first 10 s: probing buffers packets and prints them in a burst.
start = min(direct.values()) + 10
keys = [k for k in direct if k in sluice and k in ffmpeg and direct[k] > start]
if len(keys) < 100:
    sys.exit(f"bench: only {len(keys)} video packets seen by all three players")
def stats(relay):
    delays = sorted((relay[k] - direct[k]) * 1000 for k in keys)
    return statistics.median(delays), delays[int(len(delays) * 0.99) - 1]
s50, s99 = stats(sluice)
f50, f99 = stats(ffmpeg)
print(f"added relay latency over {len(keys)} video packets (player via relay vs direct player):")
print(f"  sluice: p50 {s50:.1f} ms, p99 {s99:.1f} ms; ffmpeg -c copy: p50 {f50:.1f} ms, p99 {f99:.1f} ms")
print(f"  sluice - ffmpeg: p50 {s50 - f50:+.1f} ms, p99 {s99 - f99:+.1f} ms")
PY

  local minutes="${SLUICE_BENCH_RSS_MINUTES:-10}"
  echo "== restream memory: ${minutes} min copy restream, RSS every 5 s"
  cat > "$work/rss-job.json" <<JSON
{"id": "bench-rss", "input": {"url": "$url/rss-in", "timeout_s": 10}, "outputs": ["$url/rss-out"], "max_duration_s": $((minutes * 60))}
JSON
  rm -f "$work/rss.sqlite"*
  ffmpeg -hide_banner -loglevel error -re -stream_loop -1 -i "$media" -c copy -t $((minutes * 60 + 30)) -f flv "$url/rss-in" &
  local publisher=$!
  ffmpeg -hide_banner -loglevel error -rw_timeout 10000000 -i "$url/rss-out" -c copy -f null - &
  local player=$!
  sleep 1
  "$bin/sluice" run --quiet --db "$work/rss.sqlite" "$work/rss-job.json" 2> "$work/rss-sluice.log" &
  sluice_pid=$!
  local started=$SECONDS
  : > "$work/rss.csv"
  while kill -0 "$sluice_pid" 2>/dev/null; do
    awk -v t=$((SECONDS - started)) '/^VmRSS:/ { print t "," $2 }' "/proc/$sluice_pid/status" >> "$work/rss.csv" 2>/dev/null || true
    sleep 5
  done
  wait "$sluice_pid" || { echo "bench: sluice failed:" >&2; cat "$work/rss-sluice.log" >&2; }
  kill "$publisher" "$player" 2>/dev/null || true
  wait "$publisher" "$player" 2>/dev/null || true
  python3 - "$work/rss.csv" <<'PY'
import sys
rows = [tuple(map(float, l.split(","))) for l in open(sys.argv[1]) if l.strip()]
late = [(t, kb) for t, kb in rows if t >= 60]
if len(late) < 3:
    sys.exit("bench: too few RSS samples after the first minute")
n = len(late)
mt = sum(t for t, _ in late) / n
mk = sum(k for _, k in late) / n
slope = sum((t - mt) * (k - mk) for t, k in late) / sum((t - mt) ** 2 for t, _ in late)  # KiB per second
first, last = late[0][1], late[-1][1]
print(f"RSS: {rows[0][1] / 1024:.1f} MiB at start, {first / 1024:.1f} MiB at 1 min, {last / 1024:.1f} MiB at {late[-1][0]:.0f} s, peak {max(k for _, k in rows) / 1024:.1f} MiB")
print(f"slope after the first minute: {slope * 60:.2f} KiB/min -> {slope * 3540 / 1024:.2f} MiB over an hour (goal <= 5 MB)")
PY
  scripts/lib/nginx-rtmp.sh stop "$ngx" "$port" >/dev/null 2>&1 || true
  trap - EXIT
}
