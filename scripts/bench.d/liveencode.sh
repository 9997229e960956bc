# Sourced by scripts/bench: `scripts/bench liveencode`: a live encode on the engine against ffmpeg.
#
# A looping 720p30 ~2.5 Mb/s H.264 + AAC publisher feeds a private nginx-rtmp (live/src). Then, one after the other
# for SLUICE_BENCH_LIVEENCODE_S seconds (default 30) each:
#  A. `sluice run`: pull live/src through the engine, decode, encode 720p30 libx264 veryfast 2.5 Mb/s (GOP 2 s,
#     zerolatency, as Sluice tunes live inputs) + AAC 128k, publish to live/out-sluice through the engine.
#  B. `ffmpeg -i rtmp://…/live/src` with the same settings to live/out-ffmpeg.
# Reported: CPU seconds (utime+stime of the process, from /proc), its ratio, threads and peak RSS, and whether the
# output kept up (media seconds it published over wall seconds, from ffprobe reading each output live).
bench_liveencode() {
  local seconds="${SLUICE_BENCH_LIVEENCODE_S:-30}"
  local media
  media=$(restream_media)
  local port ngx url
  port=$(scripts/lib/free-port 20000 40000)
  ngx="$(pwd)/$work/nginx-liveencode"
  scripts/lib/nginx-rtmp.sh start "$ngx" "$port" > "$work/rtmp-url"
  url=$(head -n 1 "$work/rtmp-url")
  ffmpeg -hide_banner -loglevel error -nostdin -re -stream_loop -1 -i "$media" -c copy -f flv "$url/src" &
  local publisher=$!
  # shellcheck disable=SC2064
  trap "kill $publisher 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$ngx' '$port' >/dev/null 2>&1 || true" EXIT
  sleep 2
  cat > "$work/liveencode-job.json" <<JSON
{"id": "bench-liveencode", "input": {"url": "$url/src", "timeout_s": 10},
 "video": {"mode": "encode", "encoder": "software", "bitrate_kbps": 2500, "width": 1280, "height": 720, "fps": 30, "gop_s": 2, "profile": "high"},
 "audio": {"mode": "encode", "bitrate_kbps": 128, "sample_rate": 48000, "channels": 2},
 "outputs": ["$url/out-sluice"], "max_duration_s": $seconds}
JSON
  sample() { python3 scripts/lib/process-sample.py "$1"; }
  # Logs when a player of STREAM receives each video packet, until the stream ends (SECONDS+60 s at most).
  play() { python3 scripts/lib/play-times.py "$url/$1" $((seconds + 60)) > "$work/liveencode-$1.csv" || true; }
  echo "== liveencode: $(basename "$media") looped into nginx-rtmp, ${seconds} s pulled, 720p30 libx264 veryfast 2.5 Mb/s + AAC 128k, republished"
  rm -f "$work/liveencode.sqlite"*
  play out-sluice & local player_s=$!
  "$bin/sluice" run --quiet --db "$work/liveencode.sqlite" "$work/liveencode-job.json" 2> "$work/liveencode-sluice.log" &
  local sluice_pid=$!
  local s_stats
  s_stats=$(sample "$sluice_pid")
  wait "$sluice_pid" || { echo "bench: sluice failed:" >&2; cat "$work/liveencode-sluice.log" >&2; return 1; }
  wait "$player_s" || true
  play out-ffmpeg & local player_f=$!
  ffmpeg -hide_banner -loglevel error -nostdin -rw_timeout 10000000 -i "$url/src" -t "$seconds" -map 0:v -map 0:a \
    -c:v libx264 -preset veryfast -tune zerolatency -profile:v high -b:v 2500k -maxrate 2500k -bufsize 5000k -g 60 -keyint_min 60 \
    -sc_threshold 0 -pix_fmt yuv420p -r 30 -c:a aac -b:a 128k -ar 48000 -ac 2 -f flv "$url/out-ffmpeg" 2> "$work/liveencode-ffmpeg.log" &
  local ffmpeg_pid=$!
  local f_stats
  f_stats=$(sample "$ffmpeg_pid")
  wait "$ffmpeg_pid" || true
  wait "$player_f" || true
  local s_span f_span
  s_span=$(python3 scripts/lib/published-span.py "$work/liveencode-out-sluice.csv")
  f_span=$(python3 scripts/lib/published-span.py "$work/liveencode-out-ffmpeg.csv")
  python3 scripts/lib/cpu-compare.py "$s_stats" "$f_stats" "$s_span" "$f_span" "$seconds"
  kill "$publisher" 2>/dev/null || true
  scripts/lib/nginx-rtmp.sh stop "$ngx" "$port" >/dev/null 2>&1 || true
  trap - EXIT
  rm -f "$work/liveencode.sqlite"*
}
