# Sourced by scripts/bench: `scripts/bench rtsp [N]`, N RTSP camera pulls restreamed to RTMP (default 50) through one
# `sluice worker` against one `ffmpeg -rtsp_transport tcp -i rtsp://… -c copy -f flv rtmp://…` per stream, in the
# same run.
#
# A private nginx-rtmp and RabbitMQ, and one camera: GStreamer's RTSP server (scripts/lib/rtsp-camera.py, Digest
# authentication, one shared looping pipeline) serving the density clip (720p30 ~3 Mb/s H.264 + AAC) at 1x to every
# client; its own CPU is not counted.
#  A. One `sluice worker` runs N jobs, each pulling the camera over TCP and publishing to live/out-iN on nginx-rtmp.
#  B. N `ffmpeg -rtsp_transport tcp -i rtsp://… -c copy -f flv live/ff-iN` processes.
# Each phase: a warm-up until every output flows (at most SLUICE_BENCH_RTSP_WARMUP_S, default 40), then a window of
# SLUICE_BENCH_RTSP_WINDOW_S (default 30), measured by scripts/lib/density-measure.py.
bench_rtsp() {
  local streams=${1:-50}
  case $streams in *[!0-9]* | '') echo "usage: scripts/bench rtsp [N]" >&2; return 2 ;; esac
  local warmup="${SLUICE_BENCH_RTSP_WARMUP_S:-40}" window="${SLUICE_BENCH_RTSP_WINDOW_S:-30}"
  local dir media
  dir="$(pwd)/$work/rtsp"
  rm -rf "$dir"
  mkdir -p "$dir/jobs"
  chmod 755 "$dir"
  media=$(density_media)  # scripts/bench.d/density.sh
  local rtmp_port amqp_port camera_port url amqp camera_url
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  camera_port=$(scripts/lib/free-port 40001 50000)
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  rtsp_pids=()
  # shellcheck disable=SC2064
  trap "kill \${rtsp_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-rtmp' '$rtmp_port' >/dev/null 2>&1; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1; true" EXIT
  scripts/lib/nginx-rtmp.sh start "$dir/nginx-rtmp" "$rtmp_port" > "$dir/rtmp-url"
  url=$(head -n 1 "$dir/rtmp-url")
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  /usr/bin/python3 scripts/lib/rtsp-camera.py --port "$camera_port" --path /cam --file "$media" --loop --shared \
    --user bench --password 'bench-pass' > "$dir/camera.out" 2> "$dir/camera.log" &
  rtsp_pids+=($!)
  local waited=0
  until grep -q '^ready' "$dir/camera.out" 2>/dev/null; do
    sleep 0.2
    waited=$((waited + 1))
    [ "$waited" -lt 150 ] || { echo "bench: the camera never listened: $(cat "$dir/camera.log")" >&2; return 1; }
  done
  camera_url="rtsp://bench:bench-pass@127.0.0.1:$camera_port/cam"
  local stat="$dir/nginx-rtmp/stat.sock" i

  echo "== rtsp: $streams RTSP camera pulls (TCP) -> RTMP of $(basename "$media") (720p30 ~3 Mb/s): one sluice worker vs one ffmpeg per stream"
  local slots=(--concurrency "$streams")
  if "$bin/sluice" worker --help 2>&1 | grep -q -- '--live-slots'; then slots=(--live-slots "$streams"); fi
  "$bin/sluice" worker --db "$dir/rtsp.sqlite" --amqp-url "$amqp" "${slots[@]}" --worker-id rtsp-bench \
    --input-root "$dir" --output-root "$dir" --grace-s 1 --log-format text 2> "$dir/worker.log" &
  local worker=$!
  rtsp_pids+=("$worker")
  sleep 1
  for i in $(seq 1 "$streams"); do
    cat > "$dir/jobs/i$i.json" <<JSON
{"id": "rtsp-i$i", "input": {"url": "$camera_url", "timeout_s": 60}, "outputs": ["$url/out-i$i"], "max_duration_s": $((warmup + window + 120))}
JSON
    "$bin/sluice" enqueue --amqp-url "$amqp" "$dir/jobs/i$i.json" >/dev/null 2>>"$dir/enqueue.log" || { echo "bench: enqueue of job $i failed" >&2; return 1; }
  done
  python3 scripts/lib/density-measure.py "$stat" out- "$streams" "$warmup" "$window" "sluice worker" "$worker" > "$dir/phase-a.json" \
    || { echo "bench: measuring phase A failed" >&2; return 1; }
  kill -TERM "$worker" 2>/dev/null || true
  wait "$worker" 2>/dev/null || true

  local relays=()
  for i in $(seq 1 "$streams"); do
    ffmpeg -hide_banner -nostdin -loglevel error -rtsp_transport tcp -i "$camera_url" -c copy -f flv "$url/ff-i$i" 2> "$dir/relay-$i.log" &
    relays+=($!)
    rtsp_pids+=($!)
  done
  python3 scripts/lib/density-measure.py "$stat" ff- "$streams" "$warmup" "$window" "ffmpeg rtsp -> flv" "${relays[@]}" > "$dir/phase-b.json" \
    || { echo "bench: measuring phase B failed" >&2; return 1; }
  kill "${rtsp_pids[@]}" 2>/dev/null || true
  wait "${rtsp_pids[@]}" 2>/dev/null || true

  python3 scripts/lib/bench-phases.py "$dir/phase-a.json" "$dir/phase-b.json" \
    "$streams RTSP camera pulls -> 1 RTMP output each, $window s window after warm-up (the camera's CPU not counted)" 0.5
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx-rtmp" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}
