# Sourced by scripts/bench: `scripts/bench llhls [PARTS]` (default 100). Low-Latency HLS from `sluice worker --http`:
# a live pull from a private nginx-rtmp into an HLS output with part_s 0.33 (segment_s 1), read by
# scripts/lib/llhls-probe.py, which starts the publisher once the job waits for it and times, for PARTS parts in a
# row, the blocking reload for the next part (request → answer, and part file written → answer) and each frame's
# publish → its part listed (an upper bound: ffmpeg -re sends no frame before its media time).
bench_llhls() {
  local parts="${1:-100}"
  local dir
  dir="$(pwd)/$work/llhls"
  rm -rf "$dir"
  mkdir -p "$dir/in" "$dir/out"
  chmod 755 "$dir"  # the private broker runs as the rabbitmq user and keeps its files below
  # Longer than the job, not looped: a looped clip's audio timestamps overlap at the wrap.
  local clip="$dir/in/clip-720p30.mp4"
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000" -t $(( parts / 3 + 60 )) \
    -c:v libx264 -preset veryfast -b:v 2500k -g 30 -pix_fmt yuv420p -c:a aac -b:a 128k -shortest "$clip"
  local amqp_port rtmp_port http_port url amqp
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  http_port=$(scripts/lib/free-port 40001 50000)
  # Not $(…): both daemonize and would hold the substitution's pipe.
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  scripts/lib/nginx-rtmp.sh start "$dir/nginx" "$rtmp_port" > "$dir/rtmp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  url=$(head -n 1 "$dir/rtmp-url")
  "$bin/sluice" worker --amqp-url "$amqp" --db "$dir/jobs.sqlite" --input-root "$dir/in" --output-root "$dir/out" \
    --worker-id bench-llhls --http "127.0.0.1:$http_port" > "$dir/worker.log" 2>&1 &
  local worker=$!
  # shellcheck disable=SC2064
  trap "kill $worker 2>/dev/null || true; scripts/lib/nginx-rtmp.sh stop '$dir/nginx' '$rtmp_port' >/dev/null 2>&1 || true; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1 || true" EXIT
  local seconds=$(( parts / 3 + 40 ))
  cat > "$dir/job.json" <<JSON
{"id": "bench-llhls", "input": {"url": "$url/cam", "timeout_s": 30},
 "outputs": [{"url": "cam/index.m3u8", "segment_s": 1, "part_s": 0.33, "window": 10}], "max_duration_s": $seconds}
JSON
  sleep 2
  /usr/bin/python3 scripts/lib/publish-job.py "$amqp" "$dir/job.json"
  # The job pulls a stream nobody publishes yet (nginx-rtmp holds the player): wait until it is running.
  for _ in $(seq 1 100); do
    grep -q '"running"\|running' "$dir/worker.log" && break
    sleep 0.1
  done
  sleep 2
  echo "== llhls: 720p30 live pull → HLS, segment_s 1, part_s 0.33; $parts blocking reloads (sluice worker --http)"
  /usr/bin/python3 scripts/lib/llhls-probe.py "http://127.0.0.1:$http_port/hls/bench-llhls/0/index.m3u8" "$dir/out/cam" "$parts" -- \
    ffmpeg -hide_banner -loglevel error -re -i "$clip" -c copy -f flv "$url/cam" \
    || { echo "bench: llhls failed; worker log:" >&2; tail -n 40 "$dir/worker.log" >&2; }
  kill "$worker" 2>/dev/null || true
  wait "$worker" 2>/dev/null || true
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}
