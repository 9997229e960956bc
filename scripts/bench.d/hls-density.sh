# Sourced by scripts/bench: `scripts/bench hls-density [N…]`, the curve of N live HLS outputs (default 50 100 200 300)
# through one `sluice worker`, against nginx-rtmp writing its own HLS of the same streams (`hls on`) and one `ffmpeg -c
# copy -f hls` per stream, all in the same run; the goals are judged at N = 100 and reported at every point.
# `scripts/bench hls-density --mixed N`: one point, Sluice only, N jobs each with an RTMP output, a live HLS output and
# a .mp4 recording in 10 s segments.
#
# The same sources as `scripts/bench density`: a private nginx-rtmp (the server) and RabbitMQ, looping 720p30
# ~3 Mb/s H.264 + AAC publishers (one ffmpeg per 25 streams, density_publish) feeding live/src-iN, their CPU not
# counted. Per point N, one phase after the other:
#  A. One `sluice worker --live-slots N` runs N jobs (`sluice enqueue`), each pulling live/src-iN into
#     {"url": "hls/iN/index.m3u8", "segment_s": 2, "window": 6} under the worker's output root. Then the worker is
#     stopped and its requeued jobs purged.
#  B. A second nginx-rtmp with `hls on` (hls_fragment 2s, hls_playlist_length 12s: the same 2 s segments and window
#     of 6): the server pushes src-iN to it as hx-iN. Its master and worker are counted.
#  C. min(N, SLUICE_BENCH_HLS_DENSITY_FFMPEG_MAX) processes `ffmpeg -i live/src-iN -c copy -f hls -hls_time 2
#     -hls_list_size 6 -hls_flags delete_segments`.
# Each phase: a warm-up (until every playlist is fresh, at most SLUICE_BENCH_HLS_DENSITY_WARMUP_S, default 30, then
# 5 s), then a window of SLUICE_BENCH_HLS_DENSITY_WINDOW_S (default 30): CPU from /proc/PID/stat utime+stime deltas (%
# of one core), RSS (VmRSS, RssAnon) and threads at the end of the window, and the playlists fresh at its end
# (rewritten within 3 segment durations, every segment they name present): scripts/lib/hls-density-measure.py.
# Sluice syncs a sliding window's segments once, at the end (HLSSink); nginx-rtmp and ffmpeg do not sync.
# SLUICE_BENCH_HLS_DENSITY_SLUICE: another sluice binary for phase A (an earlier build, to compare in one run).
# SLUICE_BENCH_HLS_DENSITY_FFMPEG_MAX (default 200; 0 skips phase C), for the reason density caps its ffmpeg phase.
# Exits non-zero only when something could not be set up; a phase whose playlists go stale is a result.
bench_hls_density() {
  local points=() mixed=0
  while [ $# -gt 0 ]; do
    case $1 in
      --mixed) mixed=1; shift ;;
      *[!0-9]* | '') echo "usage: scripts/bench hls-density [N…] | --mixed N" >&2; return 2 ;;
      *) points+=("$1"); shift ;;
    esac
  done
  if [ "$mixed" = 1 ] && [ ${#points[@]} -ne 1 ]; then
    echo "usage: scripts/bench hls-density --mixed N (one N)" >&2
    return 2
  fi
  [ ${#points[@]} -gt 0 ] || points=(50 100 200 300)
  local warmup="${SLUICE_BENCH_HLS_DENSITY_WARMUP_S:-30}" window="${SLUICE_BENCH_HLS_DENSITY_WINDOW_S:-30}"
  local ffmpeg_max="${SLUICE_BENCH_HLS_DENSITY_FFMPEG_MAX:-200}" segment_s=2
  local dir media largest=0 n
  for n in "${points[@]}"; do [ "$n" -gt "$largest" ] && largest=$n; done
  dir="$(pwd)/$work/hls-density"
  rm -rf "$dir"
  mkdir -p "$dir/jobs" "$dir/nginx-hls-out"
  chmod 755 "$dir"  # the private broker runs as the rabbitmq user and keeps its files below
  chmod 777 "$dir/nginx-hls-out"  # nginx's worker runs as nobody
  media=$(density_media)

  local rtmp_port hls_port amqp_port url amqp i
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  hls_port=$(scripts/lib/free-port 20000 40000)
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  hls_density_pids=()  # every process this benchmark started (global: the EXIT trap outlives the function)
  # shellcheck disable=SC2064
  trap "kill \${hls_density_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-hls' '$hls_port' >/dev/null 2>&1; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-rtmp' '$rtmp_port' >/dev/null 2>&1; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1; true" EXIT
  # An interrupt or kill ends the script through its EXIT trap (bash would otherwise die without running it).
  trap 'exit 130' INT TERM HUP
  # The server pushes every source to the HLS nginx (phase B), which is down outside its phase: the push retries every
  # 10 s (as in density).
  local pushes=""
  if [ "$mixed" = 0 ]; then
    pushes="push_reconnect 10s;"
    for i in $(seq 1 "$largest"); do pushes+=$'\n'"push rtmp://127.0.0.1:$hls_port/live/hx-i$i name=src-i$i;"; done
  fi
  # Not $(…): both daemonize, and a daemon holding the substitution's pipe would hang it.
  NGINX_RTMP_LIVE_EXTRA="$pushes" scripts/lib/nginx-rtmp.sh start "$dir/nginx-rtmp" "$rtmp_port" > "$dir/rtmp-url"
  url=$(head -n 1 "$dir/rtmp-url")
  # nginx-rtmp's HLS: hls_nested writes hx-iN/index.m3u8; 2 s fragments cut at keyframes, a 12 s (6-segment) window.
  local hls_conf="hls on; hls_path $dir/nginx-hls-out; hls_nested on; hls_fragment ${segment_s}s; hls_playlist_length $((segment_s * 6))s;"
  echo "bench: starting a private RabbitMQ on 127.0.0.1:$amqp_port" >&2
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  local stat="$dir/nginx-rtmp/stat.sock" measure=scripts/lib/hls-density-measure.py
  local sluice="${SLUICE_BENCH_HLS_DENSITY_SLUICE:-$bin/sluice}"
  local timing=(--segment-s "$segment_s" --warmup "$warmup" --window "$window")

  if [ "$mixed" = 1 ]; then
    echo "== hls-density --mixed ${points[0]}: copy jobs of $(basename "$media") (720p30 ~3 Mb/s), each to RTMP, live HLS and a .mp4 recording in 10 s segments, in one sluice worker"
  else
    echo "== hls-density: live HLS of $(basename "$media") (720p30 ~3 Mb/s), 2 s segments, window 6, N = ${points[*]}: one sluice worker, nginx-rtmp hls, one ffmpeg -f hls per stream"
  fi
  local publishers=0 files=() point
  for n in "${points[@]}"; do
    point="$dir/point-$n.json"
    : > "$point"
    files+=("$point")
    density_publish "$media" "$url" "$dir" "$publishers" "$n" hls_density_pids
    publishers=$n
    echo "bench: N = $n ($(uptime | sed 's/.*load/load/'))" >&2

    # A: one worker, N jobs.
    echo "bench: N = $n, phase A: sluice worker --live-slots $n" >&2
    rm -rf "$dir/sluice"
    mkdir -p "$dir/sluice"
    "$sluice" worker --db "$dir/hls-density-$n.sqlite" --amqp-url "$amqp" --live-slots "$n" --worker-id hls-density \
      --input-root "$dir" --output-root "$dir/sluice" --grace-s 1 --log-format text 2> "$dir/worker-$n.log" &
    local worker=$!
    hls_density_pids+=("$worker")
    sleep 1
    for i in $(seq 1 "$n"); do
      local outputs="{\"url\": \"hls/i$i/index.m3u8\", \"segment_s\": $segment_s, \"window\": 6}"
      [ "$mixed" = 1 ] && outputs="\"$url/mx-i$i\", $outputs, {\"url\": \"rec/i$i/%H%M%S.mp4\", \"segment_s\": 10}"
      cat > "$dir/jobs/n$n-i$i.json" <<JSON
{"id": "hls-density-n$n-i$i", "input": {"url": "$url/src-i$i", "timeout_s": 20}, "outputs": [$outputs], "max_duration_s": $((warmup + window + 120))}
JSON
      "$sluice" enqueue --amqp-url "$amqp" "$dir/jobs/n$n-i$i.json" >/dev/null 2>>"$dir/enqueue.log" || { echo "bench: enqueue of job $i failed" >&2; return 1; }
    done
    local extra=() phase=sluice
    [ "$mixed" = 1 ] && extra=(--stat "$stat" --rtmp-prefix mx- --recordings "$dir/sluice/rec/i{}") phase=mixed
    python3 "$measure" --name "sluice worker" --playlists "$dir/sluice/hls/i{}/index.m3u8" --count "$n" "${timing[@]}" \
      "${extra[@]}" --pids "$worker" | density_tag "$phase" "$n" >> "$point" \
      || { echo "bench: measuring phase A failed" >&2; return 1; }
    kill -0 "$worker" 2>/dev/null || { echo "bench: the worker died; its log:" >&2; tail -20 "$dir/worker-$n.log" >&2; }
    kill -TERM "$worker" 2>/dev/null || true
    local waited=0
    # A polite stop hands every job back and releases its lease; hundreds of jobs take more than a few seconds.
    while kill -0 "$worker" 2>/dev/null && [ $waited -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
    kill -KILL "$worker" 2>/dev/null || true
    wait "$worker" 2>/dev/null || true
    # The stop requeued the jobs, and a worker killed before it released its leases leaves claims that expire back
    # into sluice.jobs as take-overs (at 300 a worker took over the 200 jobs of the point before, writing the same
    # folders): the next point's worker must find neither. A claim lives --lease-orphan-s (3 s) from its publish, so
    # the queues are purged once that has passed.
    sleep 5
    for queue in sluice.jobs sluice.jobs.live sluice.jobs.retry; do
      scripts/lib/rabbitmq.sh ctl "$dir/rabbitmq" "$amqp_port" purge_queue "$queue" >/dev/null 2>&1 || true
    done
    rm -rf "$dir/sluice"
    [ "$mixed" = 0 ] || continue

    # B: nginx-rtmp's own HLS, in a second nginx.
    echo "bench: N = $n, phase B: nginx-rtmp hls" >&2
    rm -rf "${dir:?}/nginx-hls-out/"*
    NGINX_RTMP_LIVE_EXTRA="$hls_conf" scripts/lib/nginx-rtmp.sh start "$dir/nginx-hls" "$hls_port" > /dev/null
    local master hls_pids
    master=$(cat "$dir/nginx-hls/nginx.pid")
    hls_pids=("$master" $(grep -ls -E "^PPid:[[:space:]]+$master\$" /proc/[0-9]*/status | cut -d/ -f3 || true))
    python3 "$measure" --name "nginx-rtmp hls" --playlists "$dir/nginx-hls-out/hx-i{}/index.m3u8" --count "$n" \
      "${timing[@]}" --pids "${hls_pids[@]}" | density_tag nginx "$n" >> "$point" \
      || { echo "bench: measuring phase B failed" >&2; return 1; }
    scripts/lib/nginx-rtmp.sh stop "$dir/nginx-hls" "$hls_port" >/dev/null 2>&1 || true
    rm -rf "${dir:?}/nginx-hls-out/"*

    # C: one ffmpeg per stream, up to the cap (0: no ffmpeg phase).
    local writers=() count=$((n < ffmpeg_max ? n : ffmpeg_max))
    [ "$count" -gt 0 ] || continue
    echo "bench: N = $n, phase C: $count ffmpeg -c copy -f hls processes" >&2
    rm -rf "$dir/ffmpeg"
    for i in $(seq 1 "$count"); do
      mkdir -p "$dir/ffmpeg/i$i"
      ffmpeg -hide_banner -nostdin -loglevel error -rw_timeout 20000000 -i "$url/src-i$i" -map 0 -c copy \
        -f hls -hls_time "$segment_s" -hls_list_size 6 -hls_flags delete_segments \
        -hls_segment_filename "$dir/ffmpeg/i$i/index-%05d.ts" "$dir/ffmpeg/i$i/index.m3u8" 2> "$dir/ffmpeg-$i.log" &
      writers+=($!)
      hls_density_pids+=($!)
    done
    python3 "$measure" --name "ffmpeg -f hls" --playlists "$dir/ffmpeg/i{}/index.m3u8" --count "$count" "${timing[@]}" \
      --pids "${writers[@]}" | density_tag ffmpeg "$count" >> "$point" \
      || { echo "bench: measuring phase C failed" >&2; return 1; }
    kill "${writers[@]}" 2>/dev/null || true
    wait "${writers[@]}" 2>/dev/null || true
    rm -rf "$dir/ffmpeg"
  done
  kill "${hls_density_pids[@]}" 2>/dev/null || true
  wait "${hls_density_pids[@]}" 2>/dev/null || true

  python3 scripts/lib/hls-density-report.py "$window" 100 "${files[@]}"
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx-rtmp" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT INT TERM HUP
}
