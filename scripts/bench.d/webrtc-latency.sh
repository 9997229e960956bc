# Sourced by scripts/bench: `scripts/bench webrtc-latency [SECONDS]`, glass-to-glass latency from a WHIP publisher to
# a WHEP viewer through one `sluice run` job on 127.0.0.1, against the same two peers connected to each other with no
# server between them, in the same run.
#
# The publisher is aiortc (scripts/lib/whip-client.py publish --stamp): a 640x360 30 fps picture with the wall clock
# (ms) drawn in each frame as aiortc takes it to encode (libx264, zerolatency), and a 440 Hz tone as Opus. The viewer
# (play --read-stamps) reads each decoded frame's stamp the moment aiortc hands it over: latency = now - stamp. Both
# offer 127.0.0.1 as their one ICE candidate, and the job's answers name 127.0.0.1 only.
#  A. The job: a WHIP listen input and a WHEP output on one HTTP port, one UDP media port. The viewer comes once the
#     publisher is connected, and plays SECONDS (default 30) after a 2 s warm-up (it starts at a keyframe asked of the publisher).
#  B. The baseline: `whip-client.py direct`, a stamped publisher and a reading viewer peer connection in one process,
#     the same encode, packetizing, jitter buffer and decode, for SECONDS after the same warm-up.
# Printed: p50/p95/p99/max of each, the difference (what the server adds), and each split at the frame's last packet:
# the way there (encode, send, the server) and the viewer's own part (aiortc waits for the next frame's first packet
# before it decodes a frame, one frame time, then decodes).
bench_webrtc_latency() {
  local seconds=${1:-30} warmup=2
  case $seconds in *[!0-9]* | '') echo "usage: scripts/bench webrtc-latency [SECONDS]" >&2; return 2 ;; esac
  local dir http_port udp_port
  dir="$(pwd)/$work/webrtc-latency"
  rm -rf "$dir"
  mkdir -p "$dir"
  http_port=$(scripts/lib/free-port 40001 45000)
  udp_port=$(scripts/lib/free-port 45001 50000)
  local client=scripts/lib/whip-client.py base="http://127.0.0.1:$http_port/live"
  latency_pids=()
  # shellcheck disable=SC2064
  trap "kill \${latency_pids[*]} 2>/dev/null; true" EXIT

  echo "== webrtc-latency: glass-to-glass, aiortc WHIP publisher (640x360 30 fps, the clock drawn in each frame) -> sluice -> WHEP -> aiortc viewer, 127.0.0.1, ${seconds} s after a ${warmup} s warm-up"
  echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
  cat > "$dir/job.json" <<JSON
{"id": "webrtc-latency", "input": {"url": "whip://127.0.0.1:$http_port/live/in", "listen": true, "token": "bench-publisher", "timeout_s": 60}, "outputs": [{"url": "whep://127.0.0.1:$http_port/live/out", "token": "bench-viewer"}], "max_duration_s": $((seconds + 300))}
JSON
  SLUICE_WEBRTC_UDP_PORT=$udp_port SLUICE_WEBRTC_ADDRESSES=127.0.0.1 \
    "$bin/sluice" run --db "$dir/run.sqlite" "$dir/job.json" 2> "$dir/sluice.log" &
  local sluice=$!
  latency_pids+=("$sluice")
  local waited=0
  until [ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/sdp' --data-binary x "$base/in")" = 401 ]; do
    sleep 0.25
    waited=$((waited + 1))
    [ "$waited" -lt 120 ] || { echo "bench: the job never served live/in: $(tail -n 5 "$dir/sluice.log")" >&2; return 1; }
  done
  python3 "$client" publish "$base/in" --stamp --loopback --token bench-publisher --seconds $((seconds + warmup + 8)) \
    > "$dir/publisher.json" 2> "$dir/publisher.err" &
  local publisher=$!
  latency_pids+=("$publisher")
  waited=0
  until grep -q 'the WHIP publisher is connected' "$dir/sluice.log"; do
    sleep 0.25
    waited=$((waited + 1))
    [ "$waited" -lt 120 ] || { echo "bench: the publisher never connected: $(tail -n 5 "$dir/sluice.log") $(tail -n 5 "$dir/publisher.err")" >&2; return 1; }
  done
  python3 "$client" play "$base/out" --read-stamps --loopback --token bench-viewer --seconds $((seconds + warmup)) \
    --warmup "$warmup" > "$dir/viewer.json" 2> "$dir/viewer.err" \
    || { echo "bench: the viewer failed: $(tail -n 5 "$dir/viewer.err")" >&2; return 1; }
  wait "$publisher" || echo "bench: the publisher ended badly: $(tail -n 3 "$dir/publisher.err")" >&2
  kill -TERM "$sluice" 2>/dev/null || true
  wait "$sluice" 2>/dev/null || true
  echo "load average between: $(cut -d' ' -f1-3 /proc/loadavg)"

  python3 "$client" direct --seconds $((seconds + warmup)) --warmup "$warmup" > "$dir/direct.json" 2> "$dir/direct.err" \
    || { echo "bench: the baseline failed: $(tail -n 5 "$dir/direct.err")" >&2; return 1; }
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  latency_pids=()
  trap - EXIT

  python3 - "$dir/viewer.json" "$dir/direct.json" "$(grep -o 'a WHEP viewer left after.*' "$dir/sluice.log" | head -n 1)" <<'PY'
import json, sys
through, direct = (json.loads(open(path).read().splitlines()[-1])["stamps"] for path in sys.argv[1:3])
print(f"{'ms':18} {'read':>5} {'rejected':>8} {'p50':>6} {'p95':>6} {'p99':>6} {'max':>6}   {'way p50/p95':>13}   {'viewer p50/p95':>14}   warm-up max")
for name, s in (("through Sluice", through), ("aiortc to aiortc", direct)):
    l, way, own = s["latency_ms"], s.get("to_last_packet_ms", {}), s.get("last_packet_to_frame_ms", {})
    if not l.get("count"):
        sys.exit(f"bench: {name}: no stamp read ({s['read']} read, {s['rejected']} rejected)")
    print(f"{name:18} {s['read']:>5} {s['rejected']:>8} {l['p50']:>6} {l['p95']:>6} {l['p99']:>6} {l['max']:>6}"
          f"   {str(way.get('p50', '-')) + ' / ' + str(way.get('p95', '-')):>13}"
          f"   {str(own.get('p50', '-')) + ' / ' + str(own.get('p95', '-')):>14}   {s['warmup_max_ms']}")
a, b = through["latency_ms"], direct["latency_ms"]
print(f"{'Sluice adds':18} {'':>5} {'':>8} {a['p50'] - b['p50']:>+6.1f} {a['p95'] - b['p95']:>+6.1f} {a['p99'] - b['p99']:>+6.1f} {a['max'] - b['max']:>+6.1f}")
print("way: the stamp to the frame's last packet arriving (encode, send, the server); viewer: that packet to the decoded")
print("frame (aiortc decodes a frame once the next frame's first packet comes); warm-up: the first frames, left out")
print(f"goal p95 <= 250 ms: {'met' if a['p95'] <= 250 else 'NOT met'} ({a['p95']} ms)")
if sys.argv[3]:
    print(f"sluice: {sys.argv[3]}")
PY
}
