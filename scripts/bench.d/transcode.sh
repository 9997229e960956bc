# Sourced by scripts/bench: `scripts/bench transcode` (encode mode).
# Sluice and ffmpeg transcode the same 60 s 720p30 clip with identical encoder settings: libx264 veryfast,
# 2.5 Mb/s (maxrate 2.5M, bufsize 5M), GOP 2 s exact, High profile, AAC 128k, into FLV.
bench_transcode() {
  local media="$work/transcode-720p60s.mp4"
  if [ ! -s "$media" ]; then
    echo "bench: generating $media (60 s 720p30 ~8 Mb/s H.264 + AAC 48 kHz stereo)" >&2
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1280x720:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 60 \
      -c:v libx264 -preset ultrafast -b:v 8M -maxrate 8M -bufsize 16M -g 60 -pix_fmt yuv420p \
      -c:a aac -b:a 192k -ac 2 -shortest "$media"
  fi
  cat > "$work/transcode-job.json" <<JSON
{"id": "bench-transcode", "input": "$media",
 "video": {"mode": "encode", "encoder": "software", "bitrate_kbps": 2500, "width": 1280, "height": 720, "fps": 30, "gop_s": 2, "profile": "high"},
 "audio": {"mode": "encode", "bitrate_kbps": 128, "sample_rate": 48000, "channels": 2},
 "outputs": ["$work/t-sluice.flv"]}
JSON
  local ffmpeg_cmd="ffmpeg -hide_banner -loglevel error -y -i $media -map 0:v -map 0:a \
-c:v libx264 -preset veryfast -profile:v high -b:v 2500k -maxrate 2500k -bufsize 5000k -g 60 -keyint_min 60 -sc_threshold 0 -pix_fmt yuv420p -r 30 \
-c:a aac -b:a 128k -ar 48000 -ac 2 -f flv $work/t-ffmpeg.flv"
  echo "== transcode: $(basename "$media") → 720p30 2.5 Mb/s libx264 veryfast + AAC 128k (FLV)"
  hyperfine --warmup 1 --runs 5 --export-json "$work/transcode.json" \
    --prepare "rm -f $work/tbench.sqlite $work/tbench.sqlite-wal $work/tbench.sqlite-shm" \
    -n sluice "$bin/sluice run --quiet --db $work/tbench.sqlite $work/transcode-job.json" \
    -n ffmpeg "$ffmpeg_cmd"
  python3 - "$work/transcode.json" "$work/t-sluice.flv" "$work/t-ffmpeg.flv" <<'PY'
import json, os, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
s, f = runs["sluice"]["median"], runs["ffmpeg"]["median"]
print(f"median wall: sluice {s:.2f} s ({60/s:.1f}x realtime), ffmpeg {f:.2f} s ({60/f:.1f}x); ratio sluice/ffmpeg {s/f:.3f} (goal <= 1.03)")
smin, fmin = runs["sluice"]["min"], runs["ffmpeg"]["min"]
print(f"fastest run: sluice {smin:.2f} s, ffmpeg {fmin:.2f} s; ratio {smin/fmin:.3f}")
# CPU time is what the work costs, whatever else the shared machine runs at the same time.
sc = runs["sluice"]["user"] + runs["sluice"]["system"]
fc = runs["ffmpeg"]["user"] + runs["ffmpeg"]["system"]
print(f"mean CPU time (user+sys): sluice {sc:.2f} s, ffmpeg {fc:.2f} s; ratio {sc/fc:.3f}")
ss, fs = os.path.getsize(sys.argv[2]), os.path.getsize(sys.argv[3])
print(f"output size: sluice {ss/1e6:.2f} MB ({ss*8/60/1000:.0f} kb/s), ffmpeg {fs/1e6:.2f} MB ({fs*8/60/1000:.0f} kb/s); ratio {ss/fs:.4f} (goal within 2 %)")
PY
  # hyperfine runs all of one command, then all of the other: on a shared machine a change in load between
  # the two blocks shows up as a difference. Alternating pairs see the same load; their median ratio is steadier.
  python3 - "$bin/sluice run --quiet --db $work/tbench.sqlite $work/transcode-job.json" "$ffmpeg_cmd" "$work" <<'PY'
import os, shlex, statistics, subprocess, sys, time
sluice, ffmpeg, work = sys.argv[1], sys.argv[2], sys.argv[3]
def timed(command):
    for name in ("tbench.sqlite", "tbench.sqlite-wal", "tbench.sqlite-shm"):
        try: os.remove(os.path.join(work, name))
        except FileNotFoundError: pass
    start = time.monotonic()
    subprocess.run(shlex.split(command), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - start
ratios = []
for _ in range(3):
    s = timed(sluice)
    f = timed(ffmpeg)
    ratios.append(s / f)
print("alternating pairs: sluice/ffmpeg " + ", ".join(f"{r:.3f}" for r in ratios) + f"; median {statistics.median(ratios):.3f} (goal <= 1.03)")
PY
  rm -f "$work/tbench.sqlite"*
}
