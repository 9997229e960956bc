# Sourced by scripts/bench: `scripts/bench ladder`: an ABR ladder from one live input, Sluice against ffmpeg.
#
# A looping 1080p30 ~6 Mb/s H.264 + AAC publisher feeds a private nginx-rtmp (live/src). Then, one after the other for
# SLUICE_BENCH_LADDER_S seconds (default 30) each:
#  A. `sluice run`: one job pulls live/src and publishes four rungs through the engine: copy, 720p 3 Mb/s, 480p
#     1.2 Mb/s, 360p 0.7 Mb/s (libx264 veryfast, GOP 2 s, zerolatency as Sluice tunes live inputs; AAC 128k for the
#     encoded rungs, encoded once and shared; the copy rung copies the audio). One decode for the three encoders.
#  B. one `ffmpeg` doing the same ladder with one decode (`-filter_complex split`, bicubic scale as Sluice's), its
#     AAC encoded once per encoded output (ffmpeg cannot share an encoder between outputs; ~1 % of a core each).
# Reported: CPU seconds of each process, threads, peak RSS, per rung the media a player received and the rate it
# arrived at once flowing (1.00x = kept up), and `cpu ratio X` (Sluice / ffmpeg). Goal: X <= 1.0, every rung at 1x.
# Run it on an otherwise idle machine: a rung falls below 1x when other work takes the cores.
ladder_media() {
  local media="$work/ladder-1080p30.mp4"
  if [ ! -s "$media" ]; then
    echo "bench: generating $media (30 s 1080p30 ~6 Mb/s H.264 + AAC 128k)" >&2
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 30 \
      -c:v libx264 -preset veryfast -b:v 6000k -maxrate 6000k -bufsize 12000k -g 60 -pix_fmt yuv420p \
      -c:a aac -b:a 128k -ac 2 -shortest "$media"
  fi
  echo "$media"
}

bench_ladder() {
  local seconds="${SLUICE_BENCH_LADDER_S:-30}"
  local media port ngx url
  media=$(ladder_media)
  port=$(scripts/lib/free-port 20000 40000)
  ngx="$(pwd)/$work/nginx-ladder"
  scripts/lib/nginx-rtmp.sh start "$ngx" "$port" > "$work/rtmp-url"
  url=$(head -n 1 "$work/rtmp-url")
  ffmpeg -hide_banner -loglevel error -nostdin -re -stream_loop -1 -i "$media" -c copy -f flv "$url/src" &
  local publisher=$!
  # shellcheck disable=SC2064
  trap "kill $publisher 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$ngx' '$port' >/dev/null 2>&1 || true" EXIT
  sleep 2
  local rungs=(copy 720 480 360)
  local rung_video
  rung_video() { # HEIGHT WIDTH KBPS PROFILE → a rung's video object
    echo "{\"mode\": \"encode\", \"encoder\": \"software\", \"width\": $2, \"height\": $1, \"bitrate_kbps\": $3, \"fps\": 30, \"gop_s\": 2, \"profile\": \"$4\"}"
  }
  cat > "$work/ladder-job.json" <<JSON
{"id": "bench-ladder", "input": {"url": "$url/src", "timeout_s": 10},
 "audio": {"mode": "encode", "bitrate_kbps": 128, "sample_rate": 48000, "channels": 2},
 "outputs": [
   {"url": "$url/sluice-copy", "audio": {"mode": "copy"}},
   {"url": "$url/sluice-720", "video": $(rung_video 720 1280 3000 high)},
   {"url": "$url/sluice-480", "video": $(rung_video 480 854 1200 main)},
   {"url": "$url/sluice-360", "video": $(rung_video 360 640 700 main)}],
 "max_duration_s": $seconds}
JSON
  # Logs when a player of STREAM receives each video packet, until the stream ends (SECONDS+60 s at most).
  play() { python3 scripts/lib/play-times.py "$url/$1" $((seconds + 60)) > "$work/ladder-$1.csv" || true; }
  echo "== ladder: $(basename "$media") looped into nginx-rtmp, ${seconds} s pulled; copy + 720p/480p/360p libx264 veryfast + AAC 128k"
  rm -f "$work/ladder.sqlite"*
  local players=() rung
  for rung in "${rungs[@]}"; do play "sluice-$rung" & players+=($!); done
  "$bin/sluice" run --quiet --db "$work/ladder.sqlite" "$work/ladder-job.json" 2> "$work/ladder-sluice.log" &
  local sluice_pid=$!
  local s_stats
  s_stats=$(python3 scripts/lib/process-sample.py "$sluice_pid")
  wait "$sluice_pid" || { echo "bench: sluice failed:" >&2; cat "$work/ladder-sluice.log" >&2; return 1; }
  wait "${players[@]}" || true
  players=()
  for rung in "${rungs[@]}"; do play "ffmpeg-$rung" & players+=($!); done
  local x264=(-c:v libx264 -preset veryfast -tune zerolatency -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p -r 30)
  local aac=(-c:a aac -b:a 128k -ar 48000 -ac 2)
  # -t before -i: reading stops after SECONDS, so every output ends (after -i it would bound the first output only).
  ffmpeg -hide_banner -loglevel error -nostdin -rw_timeout 10000000 -t "$seconds" -i "$url/src" \
    -filter_complex "[0:v]split=3[a][b][c];[a]scale=1280:720:flags=bicubic[v720];[b]scale=854:480:flags=bicubic[v480];[c]scale=640:360:flags=bicubic[v360]" \
    -map 0:v -map 0:a -c copy -f flv "$url/ffmpeg-copy" \
    -map "[v720]" -map 0:a "${x264[@]}" -profile:v high -b:v 3000k -maxrate 3000k -bufsize 6000k "${aac[@]}" -f flv "$url/ffmpeg-720" \
    -map "[v480]" -map 0:a "${x264[@]}" -profile:v main -b:v 1200k -maxrate 1200k -bufsize 2400k "${aac[@]}" -f flv "$url/ffmpeg-480" \
    -map "[v360]" -map 0:a "${x264[@]}" -profile:v main -b:v 700k -maxrate 700k -bufsize 1400k "${aac[@]}" -f flv "$url/ffmpeg-360" \
    2> "$work/ladder-ffmpeg.log" &
  local ffmpeg_pid=$!
  local f_stats
  f_stats=$(python3 scripts/lib/process-sample.py "$ffmpeg_pid")
  wait "$ffmpeg_pid" || { echo "bench: ffmpeg failed:" >&2; cat "$work/ladder-ffmpeg.log" >&2; }
  wait "${players[@]}" || true
  local s_spans=() f_spans=()
  for rung in "${rungs[@]}"; do
    s_spans+=("$rung=$(python3 scripts/lib/published-span.py "$work/ladder-sluice-$rung.csv")")
    f_spans+=("$rung=$(python3 scripts/lib/published-span.py "$work/ladder-ffmpeg-$rung.csv")")
  done
  python3 scripts/lib/cpu-compare.py "$s_stats" "$f_stats" "${s_spans[*]}" "${f_spans[*]}" "$seconds"
  kill "$publisher" 2>/dev/null || true
  scripts/lib/nginx-rtmp.sh stop "$ngx" "$port" >/dev/null 2>&1 || true
  trap - EXIT
  rm -f "$work/ladder.sqlite"*
}
