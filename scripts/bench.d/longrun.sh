# Sourced by scripts/bench: `scripts/bench longrun`, a long copy restream through a private nginx-rtmp.
#
# Sluice (`sluice run`) and `ffmpeg -c copy` relay the same looping 720p30 publisher side by side for
# SLUICE_BENCH_LONGRUN_MINUTES (default 60). Every 5 s: RSS and CPU time of both. A player stamps each
# video packet of Sluice's output with the wall clock. Reported: RSS slope (MiB/hour, after the first minute),
# CPU as % of one core for both and their ratio, drift of the output timestamps against the wall clock (how
# far media time and wall time drifted apart over the run), and the output's reconnects from the job record.
bench_longrun() {
  local media minutes port ngx url
  media=$(restream_media)
  minutes="${SLUICE_BENCH_LONGRUN_MINUTES:-60}"
  port=$(scripts/lib/free-port 20000 40000)
  ngx="$(pwd)/$work/nginx-rtmp-longrun"
  scripts/lib/nginx-rtmp.sh start "$ngx" "$port" > "$work/longrun-url"  # not $(…): nginx daemonizes
  url=$(head -n 1 "$work/longrun-url")
  # shellcheck disable=SC2064
  trap "scripts/lib/nginx-rtmp.sh stop '$ngx' '$port' >/dev/null 2>&1 || true" EXIT
  echo "== longrun: ${minutes} min copy restream of $(basename "$media") looped, Sluice and ffmpeg -c copy side by side"

  ffmpeg -hide_banner -loglevel error -re -stream_loop -1 -i "$media" -c copy -t $((minutes * 60 + 60)) -f flv "$url/lr-in" &
  local publisher=$!
  sleep 2
  cat > "$work/longrun-job.json" <<JSON
{"id": "bench-longrun", "input": {"url": "$url/lr-in", "timeout_s": 10}, "outputs": ["$url/lr-out"], "max_duration_s": $((minutes * 60))}
JSON
  rm -f "$work/longrun.sqlite"*
  "$bin/sluice" run --quiet --db "$work/longrun.sqlite" "$work/longrun-job.json" 2> "$work/longrun-sluice.log" &
  local sluice=$!
  ffmpeg -hide_banner -loglevel error -rw_timeout 10000000 -i "$url/lr-in" -c copy -t $((minutes * 60)) -f flv "$url/lr-ff" &
  local relay=$!
  sleep 1
  python3 -c '
import subprocess, sys, time
out = open(sys.argv[1], "w")
child = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
for line in child.stdout:
    out.write(f"{time.time():.6f},{line}")
    out.flush()
' "$work/longrun-player.csv" stdbuf -oL ffprobe -v error -rw_timeout 15000000 -select_streams v \
    -show_entries packet=pts_time -of csv=p=0 "$url/lr-out" &
  local player=$!

  local started=$SECONDS
  : > "$work/longrun-samples.csv"
  while kill -0 "$sluice" 2>/dev/null; do
    for pid in "$sluice" "$relay"; do
      # t, pid, RSS KiB, utime+stime ticks
      if [ -r "/proc/$pid/stat" ]; then
        echo "$((SECONDS - started)),$pid,$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"),$(awk '{print $14 + $15}' "/proc/$pid/stat")" >> "$work/longrun-samples.csv"
      fi
    done
    sleep 5
  done
  wait "$sluice" || { echo "bench: sluice failed:" >&2; tail -5 "$work/longrun-sluice.log" >&2; }
  kill "$publisher" "$relay" "$player" 2>/dev/null || true
  wait "$publisher" "$relay" "$player" 2>/dev/null || true
  local reconnects
  reconnects=$(sqlite3 "$work/longrun.sqlite" 'select coalesce(sum(reconnects), 0) from job_outputs')
  python3 - "$work/longrun-samples.csv" "$work/longrun-player.csv" "$sluice" "$relay" "$(getconf CLK_TCK)" "$reconnects" <<'PY'
import sys
samples, player, sluice, relay, hz, reconnects = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6]
rows = [l.strip().split(",") for l in open(samples) if l.count(",") == 3]
def series(pid):
    return [(float(t), float(kb), float(ticks)) for t, p, kb, ticks in rows if p == pid and kb and ticks]
def slope(points):
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    return sum((t - mt) * (v - mv) for t, v in points) / sum((t - mt) ** 2 for t, _ in points)
report = {}
for name, pid in (("sluice", sluice), ("ffmpeg -c copy", relay)):
    s = series(pid)
    late = [(t, kb) for t, kb, _ in s if t >= 60]
    if len(s) < 3 or len(late) < 3:
        sys.exit(f"bench: too few samples of {name}")
    cpu = (s[-1][2] - s[0][2]) / hz / (s[-1][0] - s[0][0]) * 100
    report[name] = (slope(late) * 3600 / 1024, s[-1][1] / 1024, cpu)
    print(f"{name}: RSS {s[-1][1] / 1024:.1f} MiB at the end, slope {report[name][0]:+.2f} MiB/hour; CPU {cpu:.2f} % of a core")
print(f"CPU ratio sluice / ffmpeg: {report['sluice'][2] / report['ffmpeg -c copy'][2]:.2f}")
stamps = []
for line in open(player):
    parts = line.strip().split(",")
    try:
        stamps.append((float(parts[0]), float(parts[1])))
    except (IndexError, ValueError):
        pass
stamps = [s for s in stamps if s[0] >= stamps[0][0] + 10] if stamps else []
if len(stamps) < 100:
    sys.exit("bench: the player saw too few packets")
(w0, p0), (w1, p1) = stamps[0], stamps[-1]
print(f"output timestamps against the wall clock over {(w1 - w0) / 60:.1f} min: drift {((p1 - p0) - (w1 - w0)) * 1000:+.0f} ms")
print(f"reconnects of Sluice's output: {reconnects}")
PY
  scripts/lib/nginx-rtmp.sh stop "$ngx" "$port" >/dev/null 2>&1 || true
  trap - EXIT
}
