# Sourced by scripts/bench: `scripts/bench queue`. 200 tiny jobs (a 1 s clip remuxed to FLV)
# through a private RabbitMQ: `sluice worker --concurrency 2` against a baseline of two pika consumers that
# run one ffmpeg process per job, on the same queue. Prints jobs/s, p50/p95 enqueue-to-terminal latency and
# the ratios.
bench_queue() {
  local dir
  dir=$(bench_broker_folder queue)
  mkdir -p "$dir/in"
  local clip="$dir/in/clip-1s.mp4"
  bench_clip 1 "$clip"
  local port
  port=$(scripts/lib/rabbitmq.sh free-port)
  echo "bench: starting a private RabbitMQ on 127.0.0.1:$port" >&2
  # Not $(…): the detached node would inherit the pipe and the substitution would wait for it forever.
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$port" > "$dir/amqp-url"
  trap 'scripts/lib/rabbitmq.sh stop "'"$dir/rabbitmq"'" '"$port"' >/dev/null 2>&1 || true' EXIT
  echo "== queue: 200 jobs (1 s 640x360 clip → FLV), concurrency 2: sluice worker vs pika + ffmpeg per job"
  /usr/bin/python3 scripts/lib/queue_bench.py "$(head -n 1 "$dir/amqp-url")" "$bin/sluice" "$dir" "$clip" 200 40
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$port" >/dev/null 2>&1 || true
  trap - EXIT
}
