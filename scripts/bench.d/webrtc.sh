# Sourced by scripts/bench: `scripts/bench webrtc [N]`, N WHIP publishers restreamed to RTMP with their Opus made
# AAC, through one `sluice worker` against GStreamer (one webrtcbin ! … ! rtmp2sink pipeline per publisher, in one
# WHIP server process: scripts/lib/webrtcbin-whip-server.py), in the same run.
#
# A private nginx-rtmp and RabbitMQ. The publishers are GStreamer's webrtcbin (scripts/lib/webrtcbin-peer.py), N
# processes each sending a 640x360 30 fps H.264 (1 s GOP, no B-frames, ~1 Mb/s) and Opus 64 kb/s clip as it is (no
# encode in the publisher): their CPU is not counted, but they share the machine with what is measured.
#  A. One `sluice worker` runs N WHIP listen jobs (one HTTP port, one UDP port), each to live/out-iN on nginx-rtmp.
#  B. The GStreamer WHIP server with voaacenc (GStreamer's own AAC encoder), each publisher to live/ff-iN.
#  C. The same server with avenc_aac (gst-libav: FFmpeg's AAC encoder, its default coder, as Sluice encodes), each
#     publisher to live/fa-iN. B is what a GStreamer user runs; C compares the two engines with the same encoder.
# Each phase: a warm-up until every output flows (at most SLUICE_BENCH_WEBRTC_WARMUP_S, default 60), then a window
# of SLUICE_BENCH_WEBRTC_WINDOW_S (default 30), measured by scripts/lib/density-measure.py.
webrtc_media() {
  local clip="$work/webrtc-120s.mp4"
  if [ ! -s "$clip" ]; then
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=640x360:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 120 -c:v libx264 -preset veryfast -b:v 1M -g 30 -bf 0 \
      -pix_fmt yuv420p -c:a libopus -b:a 64k -shortest "$clip.part.mp4"
    mv "$clip.part.mp4" "$clip"
  fi
  echo "$(pwd)/$clip"
}

# N webrtcbin publishers to BASE/live/iI (I = 1…N), each for SECONDS; their pids are appended to webrtc_pids.
webrtc_publishers() {
  local base=$1 streams=$2 seconds=$3 media=$4 log=$5 token=${6:-} i
  for i in $(seq 1 "$streams"); do
    /usr/bin/python3 scripts/lib/webrtcbin-peer.py publish "$base/live/i$i" --file "$media" --seconds "$seconds" \
      ${token:+--token "$token"} > "$log-$i.out" 2> "$log-$i.err" &
    webrtc_pids+=($!)
    sleep 0.1
  done
}

# One GStreamer phase: the WHIP server with ENCODER, N publishers to it, measured into DIR/phase-PHASE.json.
webrtc_gstreamer_phase() {
  local url=$1 stat=$2 streams=$3 warmup=$4 window=$5 seconds=$6 media=$7 dir=$8 encoder=$9 prefix=${10} phase=${11}
  local server_port
  server_port=$(scripts/lib/free-port 40001 45000)
  /usr/bin/python3 scripts/lib/webrtcbin-whip-server.py --port "$server_port" --rtmp "$url" --prefix "$prefix" --aac-encoder "$encoder" \
    > "$dir/gst-server-$phase.out" 2> "$dir/gst-server-$phase.log" &
  local server=$!
  webrtc_pids=("$server")
  local waited=0
  until grep -q '^ready' "$dir/gst-server-$phase.out" 2>/dev/null; do
    sleep 0.2
    waited=$((waited + 1))
    [ "$waited" -lt 150 ] || { echo "bench: the GStreamer WHIP server never listened: $(cat "$dir/gst-server-$phase.log")" >&2; return 1; }
  done
  webrtc_publishers "http://127.0.0.1:$server_port" "$streams" "$seconds" "$media" "$dir/publishers/$phase"
  python3 scripts/lib/density-measure.py "$stat" "$prefix" "$streams" "$warmup" "$window" "GStreamer webrtcbin -> $encoder -> rtmp2sink" "$server" > "$dir/phase-$phase.json" \
    || { echo "bench: measuring phase $phase failed" >&2; return 1; }
  kill "${webrtc_pids[@]}" 2>/dev/null || true
  wait "${webrtc_pids[@]}" 2>/dev/null || true
  webrtc_pids=()
}

bench_webrtc() {
  local streams=${1:-50}
  case $streams in *[!0-9]* | '') echo "usage: scripts/bench webrtc [N]" >&2; return 2 ;; esac
  local warmup="${SLUICE_BENCH_WEBRTC_WARMUP_S:-60}" window="${SLUICE_BENCH_WEBRTC_WINDOW_S:-30}"
  local dir media seconds
  dir="$(pwd)/$work/webrtc"
  rm -rf "$dir"
  mkdir -p "$dir/jobs" "$dir/publishers"
  chmod 755 "$dir"
  media=$(webrtc_media)
  seconds=$((warmup + window + 15))
  local rtmp_port amqp_port http_port udp_port url amqp
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  http_port=$(scripts/lib/free-port 40001 45000)
  udp_port=$(scripts/lib/free-port 45001 50000)
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  webrtc_pids=()
  # shellcheck disable=SC2064
  trap "kill \${webrtc_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-rtmp' '$rtmp_port' >/dev/null 2>&1; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1; true" EXIT
  scripts/lib/nginx-rtmp.sh start "$dir/nginx-rtmp" "$rtmp_port" > "$dir/rtmp-url"
  url=$(head -n 1 "$dir/rtmp-url")
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  local stat="$dir/nginx-rtmp/stat.sock" i

  echo "== webrtc: $streams WHIP publishers (webrtcbin, H.264 640x360 ~1 Mb/s + Opus) -> RTMP with AAC: one sluice worker vs GStreamer webrtcbin ! … ! rtmp2sink"
  local slots=(--concurrency "$streams")
  if "$bin/sluice" worker --help 2>&1 | grep -q -- '--live-slots'; then slots=(--live-slots "$streams"); fi
  SLUICE_WEBRTC_UDP_PORT=$udp_port \
    "$bin/sluice" worker --db "$dir/webrtc.sqlite" --amqp-url "$amqp" "${slots[@]}" --worker-id webrtc-bench \
    --input-root "$dir" --output-root "$dir" --grace-s 1 --log-format text 2> "$dir/worker.log" &
  local worker=$!
  webrtc_pids+=("$worker")
  for i in $(seq 1 "$streams"); do
    cat > "$dir/jobs/i$i.json" <<JSON
{"id": "webrtc-i$i", "input": {"url": "whip://127.0.0.1:$http_port/live/i$i", "listen": true, "token": "bench-token", "timeout_s": 120}, "outputs": ["$url/out-i$i"], "max_duration_s": $((seconds + 120))}
JSON
    "$bin/sluice" enqueue --amqp-url "$amqp" "$dir/jobs/i$i.json" >/dev/null 2>>"$dir/enqueue.log" || { echo "bench: enqueue of job $i failed" >&2; return 1; }
  done
  # Every job serves its path once a POST without the token is refused (401), not unknown (404).
  local waited=0
  for i in $(seq 1 "$streams"); do
    until [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/sdp' --data-binary x "http://127.0.0.1:$http_port/live/i$i")" = 401 ]; do
      sleep 0.5
      waited=$((waited + 1))
      [ "$waited" -lt 240 ] || { echo "bench: the worker never served live/i$i: $(tail -n 5 "$dir/worker.log")" >&2; return 1; }
    done
  done
  webrtc_publishers "http://127.0.0.1:$http_port" "$streams" "$seconds" "$media" "$dir/publishers/a" bench-token
  python3 scripts/lib/density-measure.py "$stat" out- "$streams" "$warmup" "$window" "sluice worker" "$worker" > "$dir/phase-a.json" \
    || { echo "bench: measuring phase A failed" >&2; return 1; }
  kill "${webrtc_pids[@]}" 2>/dev/null || true
  wait "${webrtc_pids[@]}" 2>/dev/null || true
  webrtc_pids=()

  webrtc_gstreamer_phase "$url" "$stat" "$streams" "$warmup" "$window" "$seconds" "$media" "$dir" voaacenc ff- b || return 1
  webrtc_gstreamer_phase "$url" "$stat" "$streams" "$warmup" "$window" "$seconds" "$media" "$dir" avenc_aac fa- c || return 1

  python3 scripts/lib/bench-phases.py "$dir/phase-a.json" "$dir/phase-b.json" \
    "$streams WHIP publishers -> 1 RTMP output each (Opus made AAC), $window s window after warm-up (the publishers' CPU not counted)" 0.5 "GStreamer (voaacenc)"
  python3 scripts/lib/bench-phases.py "$dir/phase-a.json" "$dir/phase-c.json" \
    "The same against GStreamer with FFmpeg's AAC encoder (avenc_aac), the one Sluice uses" 0.5 "GStreamer (avenc_aac)"
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx-rtmp" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}
