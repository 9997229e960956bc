# Sourced by scripts/bench: `scripts/bench density [N…] [--fanout K]`, the curve of N copy restreams (default 50 100
# 200 300) through one `sluice worker`, against nginx-rtmp relaying the same streams (its `push`) and one
# `ffmpeg -c copy` process per stream, all in the same run; the goals are judged at N = 100.
#
# A private nginx-rtmp (the server every phase pulls from and publishes to) and RabbitMQ. Looping 720p30 ~3 Mb/s
# H.264 + AAC publishers (ffmpeg -re -stream_loop -1 -c copy, one per 25 streams, started as the curve needs them)
# feed live/src-iN; their own CPU is not counted. Per point N, one phase after the other:
#  A. One `sluice worker --live-slots N` runs N restream jobs (`sluice enqueue`), each pulling live/src-iN and
#     publishing to K outputs live/out-iN-k. Then the worker is stopped and its requeued jobs purged.
#  B. A second nginx-rtmp, the relay: the server pushes src-iN to it (as live/nx-iN) and it pushes each on to the
#     server as live/nx-iN-k (nginx-rtmp's `push`). Its master and worker are counted.
#  C. min(N, SLUICE_BENCH_DENSITY_FFMPEG_MAX) processes `ffmpeg -i live/src-iN -c copy -f flv live/ff-iN-k…`.
# Each phase: a warm-up (until every output flows, at most SLUICE_BENCH_DENSITY_WARMUP_S, default 30, then 5 s),
# then a window of SLUICE_BENCH_DENSITY_WINDOW_S (default 30): CPU from /proc/PID/stat utime+stime deltas (% of one
# core), RSS (VmRSS) and threads at the end of the window, flowing outputs (bytes_in grew on the server's
# statistics page) and outputs that kept up (their bytes over the window within 5 % of their input's).
# SLUICE_BENCH_DENSITY_SLUICE: another sluice binary for phase A (an earlier build, to compare in one run).
# SLUICE_BENCH_DENSITY_FFMPEG_MAX (default 200; 0 skips phase C): above it, 300 ffmpeg relays beside 300 publishers need more than
# this 2-core machine has, and that phase would measure the machine rather than ffmpeg (docs/BENCHMARKS.md).
# Exits non-zero only when something could not be set up; a phase that flows badly is a result.
# The restream benchmarks' clip (density, srt): 20 s of 720p30 ~3 Mb/s H.264 (GOP 2 s) + AAC 128k, made once.
density_media() {
  local media="$work/density-720p30.mp4"
  if [ ! -s "$media" ]; then
    echo "bench: generating $media (20 s 720p30 ~3 Mb/s H.264, GOP 2 s + AAC 128k)" >&2
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 20 \
      -c:v libx264 -preset veryfast -b:v 3000k -maxrate 3000k -bufsize 6000k -g 60 -pix_fmt yuv420p \
      -c:a aac -b:a 128k -ac 2 -shortest "$media"
  fi
  echo "$media"
}

bench_density() {
  local points=() fanout=1
  while [ $# -gt 0 ]; do
    case $1 in
      --fanout) fanout=${2:?--fanout needs a number}; shift 2 ;;
      --fanout=*) fanout=${1#--fanout=}; shift ;;
      *[!0-9]* | '') echo "usage: scripts/bench density [N…] [--fanout K]" >&2; return 2 ;;
      *) points+=("$1"); shift ;;
    esac
  done
  [ ${#points[@]} -gt 0 ] || points=(50 100 200 300)
  local warmup="${SLUICE_BENCH_DENSITY_WARMUP_S:-30}" window="${SLUICE_BENCH_DENSITY_WINDOW_S:-30}"
  local ffmpeg_max="${SLUICE_BENCH_DENSITY_FFMPEG_MAX:-200}"
  local dir media largest=0 n
  for n in "${points[@]}"; do [ "$n" -gt "$largest" ] && largest=$n; done
  dir="$(pwd)/$work/density"
  rm -rf "$dir"
  mkdir -p "$dir/jobs"
  chmod 755 "$dir"  # the private broker runs as the rabbitmq user and keeps its files below
  media=$(density_media)

  local rtmp_port relay_port amqp_port url amqp i k
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  relay_port=$(scripts/lib/free-port 20000 40000)
  amqp_port=$(scripts/lib/rabbitmq.sh free-port)
  density_pids=()  # every process this benchmark started, stopped on any exit (global: the EXIT trap outlives the function)
  # shellcheck disable=SC2064
  trap "kill \${density_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-relay' '$relay_port' >/dev/null 2>&1; scripts/lib/nginx-rtmp.sh stop '$dir/nginx-rtmp' '$rtmp_port' >/dev/null 2>&1; scripts/lib/rabbitmq.sh stop '$dir/rabbitmq' '$amqp_port' >/dev/null 2>&1; true" EXIT
  # The server pushes every source to the relay nginx (phase B), which is down outside its phase: the push retries,
  # every 10 s (every second, 200 sources' failing connects and their log lines loaded the server through phase A).
  local pushes="push_reconnect 10s;"
  for i in $(seq 1 "$largest"); do pushes+=$'\n'"push rtmp://127.0.0.1:$relay_port/live/nx-i$i name=src-i$i;"; done
  # Not $(…): both daemonize, and a daemon holding the substitution's pipe would hang it.
  NGINX_RTMP_LIVE_EXTRA="$pushes" scripts/lib/nginx-rtmp.sh start "$dir/nginx-rtmp" "$rtmp_port" > "$dir/rtmp-url"
  url=$(head -n 1 "$dir/rtmp-url")
  local relay_pushes=""
  for i in $(seq 1 "$largest"); do
    for k in $(seq 1 "$fanout"); do relay_pushes+="push rtmp://127.0.0.1:$rtmp_port/live/nx-i$i-$k name=nx-i$i;"$'\n'; done
  done
  echo "bench: starting a private RabbitMQ on 127.0.0.1:$amqp_port" >&2
  scripts/lib/rabbitmq.sh start "$dir/rabbitmq" "$amqp_port" > "$dir/amqp-url"
  amqp=$(head -n 1 "$dir/amqp-url")
  local stat="$dir/nginx-rtmp/stat.sock" measure=scripts/lib/density-measure.py
  local slots=(--concurrency) sluice="${SLUICE_BENCH_DENSITY_SLUICE:-$bin/sluice}" help
  help=$("$sluice" worker --help 2>&1 || true)  # read whole: `grep -q` on the pipe would stop the writer early
  [[ $help == *--live-slots* ]] && slots=(--live-slots)

  echo "== density: copy restreams of $(basename "$media") (720p30 ~3 Mb/s) with $fanout output(s) each, N = ${points[*]}: one sluice worker, nginx-rtmp push, one ffmpeg -c copy per stream"
  local publishers=0 files=() point
  for n in "${points[@]}"; do
    point="$dir/point-$n.json"
    : > "$point"
    files+=("$point")
    density_publish "$media" "$url" "$dir" "$publishers" "$n" density_pids
    publishers=$n
    echo "bench: N = $n ($(uptime | sed 's/.*load/load/'))" >&2

    # A: one worker, N jobs.
    echo "bench: N = $n, phase A: sluice worker ${slots[*]} $n" >&2
    "$sluice" worker --db "$dir/density-$n.sqlite" --amqp-url "$amqp" "${slots[@]}" "$n" --worker-id density \
      --input-root "$dir" --output-root "$dir" --grace-s 1 --log-format text 2> "$dir/worker-$n.log" &
    local worker=$!
    density_pids+=("$worker")
    sleep 1
    for i in $(seq 1 "$n"); do
      local outputs=""
      for k in $(seq 1 "$fanout"); do outputs+="${outputs:+, }\"$url/out-i$i-$k\""; done
      cat > "$dir/jobs/n$n-i$i.json" <<JSON
{"id": "density-n$n-i$i", "input": {"url": "$url/src-i$i", "timeout_s": 20}, "outputs": [$outputs], "max_duration_s": $((warmup + window + 120))}
JSON
      "$sluice" enqueue --amqp-url "$amqp" "$dir/jobs/n$n-i$i.json" >/dev/null 2>>"$dir/enqueue.log" || { echo "bench: enqueue of job $i failed" >&2; return 1; }
    done
    python3 "$measure" "$stat" out- $((n * fanout)) "$warmup" "$window" "sluice worker" "$worker" | density_tag sluice "$n" >> "$point" \
      || { echo "bench: measuring phase A failed" >&2; return 1; }
    kill -0 "$worker" 2>/dev/null || { echo "bench: the worker died; its log:" >&2; tail -20 "$dir/worker-$n.log" >&2; }
    kill -TERM "$worker" 2>/dev/null || true
    local waited=0
    while kill -0 "$worker" 2>/dev/null && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
    kill -KILL "$worker" 2>/dev/null || true
    wait "$worker" 2>/dev/null || true
    # The stop requeued the jobs: the next point's worker must not find them.
    for queue in sluice.jobs sluice.jobs.live sluice.jobs.retry; do
      scripts/lib/rabbitmq.sh ctl "$dir/rabbitmq" "$amqp_port" purge_queue "$queue" >/dev/null 2>&1 || true
    done

    # B: nginx-rtmp's push, in a second nginx.
    echo "bench: N = $n, phase B: nginx-rtmp push" >&2
    NGINX_RTMP_LIVE_EXTRA="$relay_pushes" scripts/lib/nginx-rtmp.sh start "$dir/nginx-relay" "$relay_port" > /dev/null
    local master relay_pids
    master=$(cat "$dir/nginx-relay/nginx.pid")
    relay_pids=("$master" $(grep -ls -E "^PPid:[[:space:]]+$master\$" /proc/[0-9]*/status | cut -d/ -f3 || true))
    python3 "$measure" "$stat" nx- $((n * fanout)) "$warmup" "$window" "nginx-rtmp push" "${relay_pids[@]}" | density_tag nginx "$n" >> "$point" \
      || { echo "bench: measuring phase B failed" >&2; return 1; }
    scripts/lib/nginx-rtmp.sh stop "$dir/nginx-relay" "$relay_port" >/dev/null 2>&1 || true

    # C: one ffmpeg per stream, up to the cap (0: no ffmpeg phase).
    local relays=() count=$((n < ffmpeg_max ? n : ffmpeg_max))
    [ "$count" -gt 0 ] || continue
    echo "bench: N = $n, phase C: $count ffmpeg -c copy processes" >&2
    for i in $(seq 1 "$count"); do
      local outs=()
      for k in $(seq 1 "$fanout"); do outs+=(-map 0 -c copy -f flv "$url/ff-i$i-$k"); done
      ffmpeg -hide_banner -nostdin -loglevel error -rw_timeout 20000000 -i "$url/src-i$i" "${outs[@]}" 2> "$dir/relay-$i.log" &
      relays+=($!)
      density_pids+=($!)
    done
    python3 "$measure" "$stat" ff- $((count * fanout)) "$warmup" "$window" "ffmpeg -c copy" "${relays[@]}" | density_tag ffmpeg "$count" >> "$point" \
      || { echo "bench: measuring phase C failed" >&2; return 1; }
    kill "${relays[@]}" 2>/dev/null || true
    wait "${relays[@]}" 2>/dev/null || true
  done
  kill "${density_pids[@]}" 2>/dev/null || true
  wait "${density_pids[@]}" 2>/dev/null || true

  python3 scripts/lib/density-report.py "$fanout" "$window" 100 "${files[@]}"
  scripts/lib/nginx-rtmp.sh stop "$dir/nginx-rtmp" "$rtmp_port" >/dev/null 2>&1 || true
  scripts/lib/rabbitmq.sh stop "$dir/rabbitmq" "$amqp_port" >/dev/null 2>&1 || true
  trap - EXIT
}

# Starts the looping sources of streams HAVE+1…N (live/src-iN at URL), logs in DIR, their pids added to the array
# named PIDS: one ffmpeg per 25 streams, each reading the clip once and publishing it to each of its streams (one
# process per stream cost ~0.9 % of a core each: 300 of them alone saturated this 2-core machine).
density_publish() { # MEDIA URL DIR HAVE N PIDS
  local media=$1 url=$2 dir=$3 have=$4 n=$5 i
  local -n started=$6
  while [ "$have" -lt "$n" ]; do
    local first=$((have + 1)) last=$((have + 25)) outs=()
    [ "$last" -gt "$n" ] && last=$n
    for i in $(seq "$first" "$last"); do outs+=(-map 0 -c copy -f flv "$url/src-i$i"); done
    ffmpeg -hide_banner -nostdin -loglevel error -re -stream_loop -1 -i "$media" "${outs[@]}" 2> "$dir/publisher-$first.log" &
    started+=($!)
    have=$last
  done
}

# Adds the phase and its stream count to the JSON line on stdin.
density_tag() {
  python3 -c 'import json, sys; p = json.loads(sys.stdin.read()); p.update(phase=sys.argv[1], streams=int(sys.argv[2])); print(json.dumps(p))' "$1" "$2"
}
