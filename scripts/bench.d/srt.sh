# Sourced by scripts/bench: `scripts/bench srt [N]`, N SRT → RTMP restreams (default 50) through one `sluice worker`
# against one `ffmpeg -i srt://…?mode=listener -c copy -f flv rtmp://…` per stream, in the same run.
#
# A private nginx-rtmp and RabbitMQ. N looping 720p30 ~3 Mb/s H.264 + AAC publishers (Debian's ffmpeg, -re
# -stream_loop -1 -c copy -f mpegts srt://…) send to the phase's SRT listeners; their own CPU is not counted.
#  A. One `sluice worker` runs N SRT listen jobs on one shared UDP port, routed by streamid publish:live/iN, each
#     publishing to live/out-iN on nginx-rtmp.
#  B. N `ffmpeg -i srt://127.0.0.1:PORTi?mode=listener -c copy -f flv live/ff-iN` processes, one port each.
# Each phase: a warm-up until every output flows (at most SLUICE_BENCH_SRT_WARMUP_S, default 40), then a window of
# SLUICE_BENCH_SRT_WINDOW_S (default 30), measured by scripts/lib/density-measure.py (kept_up needs an input on nginx,
# which SRT inputs are not: flowing and Mb/s say whether the outputs kept up).
bench_srt() {
  local streams=${1:-50}
  case $streams in *[!0-9]* | '') echo "usage: scripts/bench srt [N]" >&2; return 2 ;; esac
  local warmup="${SLUICE_BENCH_SRT_WARMUP_S:-40}" window="${SLUICE_BENCH_SRT_WINDOW_S:-30}"
  local dir media
  dir="$(pwd)/$work/srt"
  rm -rf "$dir"
  mkdir -p "$dir/jobs"
  chmod 755 "$dir"
  media=$(density_media)  # scripts/bench.d/density.sh
  local rtmp_port amqp_port srt_port url amqp
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  srt_port=$(scripts/lib/free-port 40001 50000)
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  srt_pids=()
  # shellcheck disable=SC2064
  trap "kill \${srt_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-rtmp' '$rtmp_port' >/dev/null 2>&1; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1; true" EXIT
  scripts/lib/nginx-rtmp.sh start "$dir/nginx-rtmp" "$rtmp_port" > "$dir/rtmp-url"
  url=$(head -n 1 "$dir/rtmp-url")
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  local stat="$dir/nginx-rtmp/stat.sock" i

  echo "== srt: $streams SRT -> RTMP restreams of $(basename "$media") (720p30 ~3 Mb/s): one sluice worker (one shared SRT port) vs one ffmpeg per stream"
  # Phase A: one worker, N listen jobs on one port.
  local slots=(--concurrency "$streams")
  if "$bin/sluice" worker --help 2>&1 | grep -q -- '--live-slots'; then slots=(--live-slots "$streams"); fi
  "$bin/sluice" worker --db "$dir/srt.sqlite" --amqp-url "$amqp" "${slots[@]}" --worker-id srt-bench \
    --input-root "$dir" --output-root "$dir" --grace-s 1 --log-format text 2> "$dir/worker.log" &
  local worker=$!
  srt_pids+=("$worker")
  sleep 1
  for i in $(seq 1 "$streams"); do
    cat > "$dir/jobs/i$i.json" <<JSON
{"id": "srt-i$i", "input": {"url": "srt://127.0.0.1:$srt_port?streamid=publish:live/i$i", "listen": true, "timeout_s": 60}, "outputs": ["$url/out-i$i"], "max_duration_s": $((warmup + window + 120))}
JSON
    "$bin/sluice" enqueue --amqp-url "$amqp" "$dir/jobs/i$i.json" >/dev/null 2>>"$dir/enqueue.log" || { echo "bench: enqueue of job $i failed" >&2; return 1; }
  done
  sleep 3
  local publishers=()
  for i in $(seq 1 "$streams"); do
    ffmpeg -hide_banner -nostdin -loglevel error -re -stream_loop -1 -i "$media" -c copy -f mpegts \
      "srt://127.0.0.1:$srt_port?streamid=publish:live/i$i" 2> "$dir/publisher-a-$i.log" &
    publishers+=($!)
    srt_pids+=($!)
  done
  python3 scripts/lib/density-measure.py "$stat" out- "$streams" "$warmup" "$window" "sluice worker" "$worker" > "$dir/phase-a.json" \
    || { echo "bench: measuring phase A failed" >&2; return 1; }
  kill "${publishers[@]}" 2>/dev/null || true
  kill -TERM "$worker" 2>/dev/null || true
  wait "$worker" "${publishers[@]}" 2>/dev/null || true

  # Phase B: one ffmpeg listener per stream.
  local relays=() ports=()
  for i in $(seq 1 "$streams"); do
    local port
    port=$(scripts/lib/free-port 50001 60000)
    ports+=("$port")
    ffmpeg -hide_banner -nostdin -loglevel error -i "srt://127.0.0.1:$port?mode=listener" -c copy -f flv "$url/ff-i$i" 2> "$dir/relay-$i.log" &
    relays+=($!)
    srt_pids+=($!)
  done
  sleep 2
  for i in $(seq 1 "$streams"); do
    ffmpeg -hide_banner -nostdin -loglevel error -re -stream_loop -1 -i "$media" -c copy -f mpegts \
      "srt://127.0.0.1:${ports[$((i - 1))]}" 2> "$dir/publisher-b-$i.log" &
    srt_pids+=($!)
  done
  python3 scripts/lib/density-measure.py "$stat" ff- "$streams" "$warmup" "$window" "ffmpeg srt -> flv" "${relays[@]}" > "$dir/phase-b.json" \
    || { echo "bench: measuring phase B failed" >&2; return 1; }
  kill "${srt_pids[@]}" 2>/dev/null || true
  wait "${srt_pids[@]}" 2>/dev/null || true

  python3 scripts/lib/bench-phases.py "$dir/phase-a.json" "$dir/phase-b.json" \
    "$streams SRT inputs -> 1 RTMP output each, $window s window after warm-up (publishers' CPU not counted)" 0.5
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx-rtmp" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}
