# Sourced by scripts/bench: `scripts/bench copy`.
bench_copy() {
  local media="$work/copy-1080p60s.mp4"
  if [ ! -s "$media" ]; then
    echo "bench: generating $media (60 s 1080p30 ~6 Mb/s H.264 High + AAC 128k)" >&2
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 60 \
      -c:v libx264 -preset ultrafast -tune zerolatency -b:v 6M -maxrate 6M -bufsize 12M -g 60 -bf 0 -pix_fmt yuv420p \
      -c:a aac -b:a 128k -ac 2 -shortest "$media"
  fi
  local size
  size=$(stat -c %s "$media")
  cat > "$work/copy-job.json" <<JSON
{"id": "bench-copy", "input": "$media", "outputs": ["$work/s.flv", "$work/s.h264", "$work/s.aac"]}
JSON
  echo "== copy: $(basename "$media") ($((size / 1000000)) MB) → FLV + .h264 + .aac"
  hyperfine --warmup 2 --runs 20 --export-json "$work/copy.json" \
    --prepare "sh -c 'rm -f $work/bench.sqlite $work/bench.sqlite-wal $work/bench.sqlite-shm; sync'" \
    -n sluice "$bin/sluice run --quiet --db $work/bench.sqlite $work/copy-job.json" \
    -n ffmpeg "ffmpeg -hide_banner -loglevel error -y -i $media -map 0:v -map 0:a -c copy -f flv $work/f.flv -map 0:v -c copy -bsf:v h264_mp4toannexb -f h264 $work/f.h264 -map 0:a -c copy -f adts $work/f.aac" \
    -n "ffmpeg + sync" "sh -c 'ffmpeg -hide_banner -loglevel error -y -i $media -map 0:v -map 0:a -c copy -f flv $work/g.flv -map 0:v -c copy -bsf:v h264_mp4toannexb -f h264 $work/g.h264 -map 0:a -c copy -f adts $work/g.aac && sync $work/g.flv $work/g.h264 $work/g.aac $work'"
  # Every run starts from a fresh database and with nothing dirty on the disk: ffmpeg leaves 90 MB for writeback,
  # which otherwise lands in whichever run comes next (the peers' order then decided part of the ratio).
  # Sluice fsyncs each output before its rename and the folder after it; ffmpeg does neither. The third
  # peer is ffmpeg followed by coreutils' `sync FILE…` (an fsync of each output and of the folder): the same durability.
  python3 - "$work/copy.json" "$size" <<'PY'
import json, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
size = int(sys.argv[2])
s, f, fs = runs["sluice"]["median"], runs["ffmpeg"]["median"], runs["ffmpeg + sync"]["median"]
print(f"median wall: sluice {s*1000:.1f} ms ({size/s/1e6:.0f} MB/s), ffmpeg {f*1000:.1f} ms ({size/f/1e6:.0f} MB/s), "
      f"ffmpeg + sync {fs*1000:.1f} ms; ratio sluice/ffmpeg {s/f:.3f}, sluice/(ffmpeg + sync) {s/fs:.3f} (equal durability)")
PY
  rm -f "$work/bench.sqlite"*
  local rss ffrss
  rss=$(peak_rss_kb "$bin/sluice" run --quiet --db "$work/bench.sqlite" "$work/copy-job.json")
  ffrss=$(peak_rss_kb ffmpeg -hide_banner -loglevel error -y -i "$media" -map 0:v -map 0:a -c copy -f flv "$work/f.flv" -map 0:v -c copy -bsf:v h264_mp4toannexb -f h264 "$work/f.h264" -map 0:a -c copy -f adts "$work/f.aac")
  echo "peak RSS: sluice $((rss / 1024)) MiB, ffmpeg $((ffrss / 1024)) MiB (goal: sluice <= 50 MB)"
  echo
  echo "== MediaFormats micro-benchmark (same 1080p stream)"
  ffmpeg -hide_banner -loglevel error -y -i "$media" -map 0:v -c copy -bsf:v h264_mp4toannexb,h264_metadata=aud=insert -f h264 "$work/aud.h264"
  "$bin/MediaFormatsBench" "$work/aud.h264"
}
