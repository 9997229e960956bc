# Sourced by scripts/bench: `scripts/bench recording`, a long live recording cut into segments, beside ffmpeg's.
#
# One looping 720p30 ~3 Mb/s publisher on a private nginx-rtmp; for SLUICE_BENCH_RECORDING_MINUTES (default 120):
#  - Sluice (`sluice run`) records it to fragmented MP4 segments of SLUICE_BENCH_RECORDING_SEGMENT_S (default 600)
#    named by the clock (`rec-%Y%m%dT%H%M%S.mp4`);
#  - ffmpeg records it with its segment muxer (`-f segment -segment_time S`, fragmented MP4, timestamps reset).
# Every 10 s: RSS and CPU time of both. Reported: RSS at the end and its slope (MiB/hour, after the first 2 minutes),
# CPU as % of one core and the ratio, disk used and its rate (GiB/hour), the segments each wrote with their durations,
# and whether every segment reads through without an error (ffmpeg 5.1 demuxing every packet; decoding two hours of
# 720p twice would take longer than the recording) and its last 10 s decode without one.
bench_recording() {
  local media minutes segment port ngx url dir
  media=$(density_media)  # scripts/bench.d/density.sh
  minutes="${SLUICE_BENCH_RECORDING_MINUTES:-120}"
  segment="${SLUICE_BENCH_RECORDING_SEGMENT_S:-600}"
  dir="$(pwd)/$work/recording"
  rm -rf "$dir"
  mkdir -p "$dir/sluice" "$dir/ffmpeg"
  port=$(scripts/lib/free-port 20000 40000)
  ngx="$dir/nginx-rtmp"
  scripts/lib/nginx-rtmp.sh start "$ngx" "$port" > "$dir/url"  # not $(…): nginx daemonizes
  url=$(head -n 1 "$dir/url")
  recording_pids=()
  # shellcheck disable=SC2064
  trap "kill \${recording_pids[*]} 2>/dev/null; scripts/lib/nginx-rtmp.sh stop '$ngx' '$port' >/dev/null 2>&1 || true" EXIT
  echo "== recording: ${minutes} min of $(basename "$media") looped, live, into ${segment} s segments: Sluice and ffmpeg's segment muxer side by side"

  ffmpeg -hide_banner -loglevel error -re -stream_loop -1 -i "$media" -c copy -t $((minutes * 60 + 90)) -f flv "$url/rec-in" &
  recording_pids+=($!)
  sleep 2
  cat > "$dir/job.json" <<JSON
{"id": "bench-recording", "input": {"url": "$url/rec-in", "timeout_s": 10},
 "outputs": [{"url": "$dir/sluice/rec-%Y%m%dT%H%M%S.mp4", "segment_s": $segment}], "max_duration_s": $((minutes * 60))}
JSON
  "$bin/sluice" run --quiet --db "$dir/recording.sqlite" "$dir/job.json" 2> "$dir/sluice.log" &
  local sluice=$!
  recording_pids+=("$sluice")
  ffmpeg -hide_banner -loglevel error -rw_timeout 10000000 -i "$url/rec-in" -c copy -t $((minutes * 60)) \
    -f segment -segment_time "$segment" -segment_format mp4 -segment_format_options movflags=+frag_keyframe+empty_moov \
    -reset_timestamps 1 "$dir/ffmpeg/rec-%03d.mp4" 2> "$dir/ffmpeg.log" &
  local recorder=$!
  recording_pids+=("$recorder")

  local started=$SECONDS
  : > "$dir/samples.csv"
  while kill -0 "$sluice" 2>/dev/null || kill -0 "$recorder" 2>/dev/null; do
    for pid in "$sluice" "$recorder"; do
      # t, pid, RSS KiB, utime+stime ticks, bytes on disk
      if [ -r "/proc/$pid/stat" ]; then
        local folder=sluice
        [ "$pid" = "$recorder" ] && folder=ffmpeg
        echo "$((SECONDS - started)),$pid,$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"),$(awk '{print $14 + $15}' "/proc/$pid/stat"),$(du -sb "$dir/$folder" | cut -f1)" >> "$dir/samples.csv"
      fi
    done
    sleep 10
  done
  wait "$sluice" || { echo "bench: sluice failed:" >&2; tail -5 "$dir/sluice.log" >&2; }
  wait "$recorder" || { echo "bench: ffmpeg's recording failed:" >&2; tail -5 "$dir/ffmpeg.log" >&2; }
  kill "${recording_pids[@]}" 2>/dev/null || true
  wait "${recording_pids[@]}" 2>/dev/null || true
  local checks="$dir/segments.txt" file
  : > "$checks"
  for file in "$dir"/sluice/*.mp4 "$dir"/ffmpeg/*.mp4; do
    [ -e "$file" ] || continue
    local errors duration
    duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$file")
    errors=$( { ffmpeg -v error -i "$file" -c copy -f null - 2>&1; ffmpeg -v error -sseof -10 -i "$file" -f null - 2>&1; } | wc -l)
    echo "$(basename "$(dirname "$file")") $(basename "$file") $duration $errors" >> "$checks"
  done
  python3 - "$dir/samples.csv" "$checks" "$sluice" "$recorder" "$(getconf CLK_TCK)" "$minutes" <<'PY'
import sys
samples, checks, sluice, recorder, hz, minutes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6]
rows = [l.strip().split(",") for l in open(samples) if l.count(",") == 4]
def slope(points):
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    return sum((t - mt) * (v - mv) for t, v in points) / sum((t - mt) ** 2 for t, _ in points)
segments = [l.split() for l in open(checks)]
print(f"{minutes} min recorded live; RSS slope after the first 2 minutes")
print("| | RSS at the end | RSS slope | CPU (% of a core) | disk | disk rate | segments (durations) | segments read without an error |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
cpus = {}
for name, pid, folder in (("sluice", sluice, "sluice"), ("ffmpeg -f segment", recorder, "ffmpeg")):
    s = [(float(t), float(kb), float(ticks), float(size)) for t, p, kb, ticks, size in rows if p == pid and kb and ticks]
    late = [(t, kb) for t, kb, _, _ in s if t >= 120]
    if len(s) < 3 or len(late) < 3:
        sys.exit(f"bench: too few samples of {name}")
    cpus[name] = (s[-1][2] - s[0][2]) / hz / (s[-1][0] - s[0][0]) * 100
    disk = max(size for *_, size in s)
    rate = disk / (s[-1][0] - s[0][0]) * 3600 / 2**30
    mine = [seg for seg in segments if seg[0] == folder]
    clean = [seg for seg in mine if seg[3] == "0"]
    durations = ", ".join(f"{float(seg[2]):.0f}" for seg in mine if seg[2] not in ("", "N/A"))
    print(f"| {name} | {s[-1][1] / 1024:.1f} MiB | {slope(late) * 3600 / 1024:+.2f} MiB/h | {cpus[name]:.2f} % | "
          f"{disk / 2**30:.2f} GiB | {rate:.2f} GiB/h | {len(mine)} ({durations} s) | {len(clean)} / {len(mine)} |")
print(f"CPU ratio sluice / ffmpeg: {cpus['sluice'] / cpus['ffmpeg -f segment']:.2f}")
PY
  scripts/lib/nginx-rtmp.sh stop "$ngx" "$port" >/dev/null 2>&1 || true
  trap - EXIT
}
