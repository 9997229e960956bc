# Sourced by scripts/bench: `scripts/bench whep [N]`, N WHEP viewers (default 100) of one `sluice run` job; the
# worker's CPU, memory and threads while they watch. The issue's goal: 100 viewers of one job at <= 0.5 core.
#
# The job: an RTMP listen input on 127.0.0.1 and one WHEP output (one HTTP port, one UDP media port, its answers
# naming 127.0.0.1 only). ffmpeg publishes to it, `-re -stream_loop -1 -c copy`, a 640x360 30 fps H.264 clip
# (Constrained Baseline, no B-frames, 1 s GOP, ~1 Mb/s) with AAC; the job makes the AAC Opus once for all its viewers.
# The viewers, all N in one process, one after another:
#   light (the default): scripts/lib/whep-light-viewers.py, one Python thread: per viewer a UDP socket on 127.0.0.1,
#     ICE checks with the session's credentials (and every 5 s for consent), the DTLS client (pyOpenSSL, the
#     server's certificate checked against the answer), SRTP decryption of every packet (pylibsrtp), an RTCP receiver
#     report each second. No jitter buffer, no decode.
#   SLUICE_BENCH_WHEP_VIEWERS=webrtcbin: scripts/lib/whep-viewers.py, GStreamer's webrtcbin per viewer (libnice,
#     DTLS, SRTP, rtpbin's jitter buffer and RTCP), each pad to a fakesink. About three times the light viewer's CPU.
#     libnice leaves 127.0.0.1 out of its candidates, and the worker's media port (bound to 0.0.0.0) answers a check
#     sent to 127.0.0.1 from another local address from that address, which libnice refuses: so for these the job's
#     answers name the host's first global IPv4 address instead (local too: the media stays on the loopback device).
# Then a warm-up until every connected viewer receives (at most SLUICE_BENCH_WHEP_WARMUP_S, default 60; then 5 s
# more), and a window of SLUICE_BENCH_WHEP_WINDOW_S (default 30) in which the worker, ffmpeg and the viewers' process
# are measured (utime + stime from /proc over the window; RSS and threads at its end). Then every viewer DELETEs its
# session, and Sluice's "a WHEP viewer left after …" lines are summed.
# No peer in the same run: nginx-rtmp and ffmpeg serve no WHEP.
whep_media() {
  local clip="$work/whep-cbp-60s.mp4"
  if [ ! -s "$clip" ]; then
    ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=640x360:rate=30" \
      -f lavfi -i "sine=frequency=440:sample_rate=48000" -t 60 \
      -c:v libx264 -preset veryfast -profile:v baseline -b:v 1M -maxrate 1M -bufsize 1M -g 30 -keyint_min 30 \
      -sc_threshold 0 -bf 0 -pix_fmt yuv420p -c:a aac -b:a 96k -shortest "$clip.part.mp4"
    mv "$clip.part.mp4" "$clip"
  fi
  echo "$(pwd)/$clip"
}

bench_whep() {
  local viewers=${1:-100}
  case $viewers in *[!0-9]* | '' | 0) echo "usage: scripts/bench whep [N]" >&2; return 2 ;; esac
  local warmup="${SLUICE_BENCH_WHEP_WARMUP_S:-60}" window="${SLUICE_BENCH_WHEP_WINDOW_S:-30}"
  local kind="${SLUICE_BENCH_WHEP_VIEWERS:-light}" address=127.0.0.1 client
  case $kind in
    light) client=(python3 scripts/lib/whep-light-viewers.py) ;;
    webrtcbin)
      client=(/usr/bin/python3 scripts/lib/whep-viewers.py)
      address=$(ip -4 -o addr show scope global | awk '{ split($4, a, "/"); print a[1]; exit }')
      [ -n "$address" ] || { echo "bench: webrtcbin viewers need an IPv4 address other than 127.0.0.1" >&2; return 1; } ;;
    *) echo "bench: SLUICE_BENCH_WHEP_VIEWERS is light or webrtcbin" >&2; return 2 ;;
  esac
  local dir media rtmp_port http_port udp_port
  dir="$(pwd)/$work/whep"
  rm -rf "$dir"
  mkdir -p "$dir"
  media=$(whep_media)
  rtmp_port=$(scripts/lib/free-port 20000 40000)
  http_port=$(scripts/lib/free-port 40001 45000)
  udp_port=$(scripts/lib/free-port 45001 50000)
  local watch="http://127.0.0.1:$http_port/live/watch"
  whep_pids=()
  # shellcheck disable=SC2064
  trap "kill \${whep_pids[*]} 2>/dev/null; true" EXIT

  echo "== whep: $viewers WHEP viewers ($kind, one process) of one sluice run job; RTMP listen input (ffmpeg -c copy, 640x360 30 fps H.264 Constrained Baseline ~1 Mb/s + AAC made Opus); media on $address; ${window} s window"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
  cat > "$dir/job.json" <<JSON
{"id": "whep-bench", "input": {"url": "rtmp://127.0.0.1:$rtmp_port/live/bench-key", "listen": true, "timeout_s": 60}, "outputs": [{"url": "whep://127.0.0.1:$http_port/live/watch", "token": "bench-viewer"}], "max_duration_s": $((warmup + window + 600))}
JSON
  SLUICE_WEBRTC_UDP_PORT=$udp_port SLUICE_WEBRTC_ADDRESSES=$address \
    "$bin/sluice" run --db "$dir/run.sqlite" "$dir/job.json" 2> "$dir/sluice.log" &
  local sluice=$!
  whep_pids+=("$sluice")
  # The job serves its WHEP path once a POST without the token is refused (401), not unknown (404).
  local waited=0
  until [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/sdp' --data-binary x "$watch")" = 401 ]; do
    sleep 0.25
    waited=$((waited + 1))
    [ "$waited" -lt 120 ] || { echo "bench: the job never served live/watch: $(tail -n 5 "$dir/sluice.log")" >&2; return 1; }
  done
  ffmpeg -hide_banner -loglevel error -nostdin -re -stream_loop -1 -i "$media" -c copy -f flv \
    "rtmp://127.0.0.1:$rtmp_port/live/bench-key" 2> "$dir/ffmpeg.log" &
  local feeder=$!
  whep_pids+=("$feeder")
  # Three GOPs in: the job has the publisher's parameter sets (the answer's profile) and a keyframe in its GOP cache.
  sleep 3
  kill -0 "$feeder" 2>/dev/null || { echo "bench: ffmpeg did not publish: $(tail -n 5 "$dir/ffmpeg.log") $(tail -n 5 "$dir/sluice.log")" >&2; return 1; }

  "${client[@]}" "$watch" --count "$viewers" --token bench-viewer \
    --measure "worker=$sluice" --measure "ffmpeg=$feeder" --warmup "$warmup" --window "$window" \
    > "$dir/viewers.json" 2> "$dir/viewers.err" \
    || { echo "bench: the viewers failed: $(tail -n 5 "$dir/viewers.err") $(tail -n 3 "$dir/sluice.log")" >&2; return 1; }
  sleep 1  # the last viewers' "left" lines
  kill "$feeder" 2>/dev/null || true
  wait "$feeder" 2>/dev/null || true
  # A worker whose loop fell behind takes a while to end: how long is part of the result; 60 s at most.
  local stopping=$SECONDS
  kill -TERM "$sluice" 2>/dev/null || true
  waited=0
  while kill -0 "$sluice" 2>/dev/null && [ "$waited" -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  kill -0 "$sluice" 2>/dev/null && { echo "bench: the worker did not end within 60 s of SIGTERM: killed" >&2; kill -KILL "$sluice"; }
  wait "$sluice" 2>/dev/null || true
  local stop_s=$((SECONDS - stopping))
  whep_pids=()
  trap - EXIT

  python3 - "$dir/viewers.json" "$dir/sluice.log" "$viewers" "$stop_s" <<'PY'
import json, re, statistics, sys
result = json.loads(open(sys.argv[1]).read().splitlines()[-1])
log = open(sys.argv[2], errors="replace").read()
n, stop_s = int(sys.argv[3]), sys.argv[4]
m = result["measured"]
worker, viewers, feeder = m["worker"], m["viewers"], m.get("ffmpeg", {})
mib = lambda kib: kib / 1024 if kib else 0
print(f"load average: {result['load'][0]} -> {result['load'][1]}; warm-up {result.get('warmup_s')} s, window {result.get('window_s')} s")
print(f"{'N':>4} {'worker CPU':>10} {'RSS MiB':>8} {'threads':>7} {'connected':>9} {'receiving':>9} {'Mb/s in':>8} {'viewers CPU':>11} {'viewers RSS':>11} {'ffmpeg CPU':>10}")
print(f"{n:>4} {worker['cpu']:>9.1f}% {mib(worker['rss_kib']):>8.1f} {worker['threads']:>7} {result['connected']:>9} "
      f"{result.get('receiving', 0):>9} {result.get('mbits', 0):>8.1f} {viewers['cpu']:>10.1f}% {mib(viewers['rss_kib']):>10.0f}M {feeder.get('cpu') or 0:>9.1f}%")
print(f"viewers receiving video / audio: {result.get('video_receiving')} / {result.get('audio_receiving')}; "
      f"kb/s each {result.get('kbits_per_viewer')}; video fps each {result.get('video_fps', '-')}")
print(f"connect s after the answer {result.get('connect_s')}; POSTs {result['status']} in {result['posted_s']} s "
      f"(each answered in {result.get('post_s', '-')} s); "
      f"SRTP {result.get('srtp_profile', '-')}, {result.get('unprotect_failures', '-')} packets failed to decrypt; "
      f"DELETEs {result['deleted']}; the worker ended {stop_s} s after SIGTERM")
if result["failures"]:
    print(f"failed viewers: {result['failures']}: " + "; ".join(result["failed"][:5]))
if result["refusals"]:
    print("refusals: " + " | ".join(result["refusals"]))
left = re.findall(r"a WHEP viewer left after ([\d.]+) s: (\d+) video frames and (\d+) Opus frames sent \((\d+) packets\), "
                  r"(\d+) again for NACKs, (\d+) keyframe requests, (\d+) video frames before its first keyframe, (\d+) packets not sealed", log)
if left:
    col = lambda i: [float(row[i]) for row in left]
    fps = [float(row[1]) / float(row[0]) for row in left if float(row[0]) > 0]
    print(f"sluice: {len(left)} 'a WHEP viewer left' lines; video frames sent a second p50 {statistics.median(fps):.1f} "
          f"(min {min(fps):.1f}); packets sent again for NACKs {sum(col(4)):.0f}; keyframe requests {sum(col(5)):.0f}; "
          f"frames before a first keyframe {sum(col(6)):.0f}; packets not sealed {sum(col(7)):.0f}")
else:
    print("sluice: no 'a WHEP viewer left' line")
reasons = {}
for why in re.findall(r"a WHEP viewer's session ended: (.*)", log):
    reasons[why] = reasons.get(why, 0) + 1
if reasons:
    print("sluice: sessions ended: " + "; ".join(f"{count}x {why}" for why, count in reasons.items()))
receiving = result.get("receiving", 0)
verdict = ("met" if worker["cpu"] <= 50 and receiving >= 100 else "NOT met") if n >= 100 else "not judged below 100 viewers"
print(f"goal 100 viewers at <= 0.5 core: {verdict} ({worker['cpu']:.1f} % of a core, {receiving} of {n} receiving)")
PY
}
