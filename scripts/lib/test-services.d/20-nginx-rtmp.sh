# Sourced by scripts/test: a private nginx-rtmp on a loopback port of its own, for the restream tests.
# Tests publish and play under $SLUICE_TEST_RTMP_URL (rtmp://127.0.0.1:PORT/live). Suites share it while they run
# side by side, so a test that kills and restarts a server mid-stream starts one of its own (PrivateRTMPServer).
rtmp_dir="$SLUICE_TEST_WORK/nginx-rtmp"
rtmp_port=$(scripts/lib/free-port 20000 40000)
echo "test: starting a private nginx-rtmp on 127.0.0.1:$rtmp_port" >&2
printf '#!/bin/sh\nexec %q "$1" %q %q\n' "$(pwd)/scripts/lib/nginx-rtmp.sh" "$rtmp_dir" "$rtmp_port" > "$SLUICE_TEST_WORK/nginx-rtmp-ctl"
chmod +x "$SLUICE_TEST_WORK/nginx-rtmp-ctl"
printf '#!/bin/sh\nexec %q stop >/dev/null 2>&1\n' "$SLUICE_TEST_WORK/nginx-rtmp-ctl" > "$SLUICE_TEST_WORK/stop-nginx-rtmp"
chmod +x "$SLUICE_TEST_WORK/stop-nginx-rtmp"
# Not $(…): nginx daemonizes, and a daemon holding the substitution's pipe would hang it.
"$SLUICE_TEST_WORK/nginx-rtmp-ctl" start > "$SLUICE_TEST_WORK/rtmp-url"
SLUICE_TEST_RTMP_URL=$(head -n 1 "$SLUICE_TEST_WORK/rtmp-url")
export SLUICE_TEST_RTMP_URL
export SLUICE_TEST_RTMP_PORT="$rtmp_port"
export SLUICE_TEST_RTMP_CTL="$SLUICE_TEST_WORK/nginx-rtmp-ctl"
# nginx-rtmp's statistics page (publishers and players per stream), on a unix socket.
export SLUICE_TEST_RTMP_STAT="$rtmp_dir/stat.sock"
