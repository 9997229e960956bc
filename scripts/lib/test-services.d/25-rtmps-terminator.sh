# Sourced by scripts/test after 20-nginx-rtmp.sh: a TLS terminator (nginx's stream module, an nginx instance
# of its own) on a loopback port of its own, forwarding to the private nginx-rtmp, with a throwaway CA.
# Tests dial $SLUICE_TEST_RTMPS_URL/live/KEY (rtmps://127.0.0.1:PORT, the base without an application) and
# verify the server with $SLUICE_TEST_RTMPS_CA; what they publish there plays from $SLUICE_TEST_RTMP_URL/KEY.
rtmps_dir="$SLUICE_TEST_WORK/rtmps-terminator"
rtmps_port=$(scripts/lib/free-port 20000 40000)
echo "test: starting a TLS terminator on 127.0.0.1:$rtmps_port in front of nginx-rtmp on port $SLUICE_TEST_RTMP_PORT" >&2
printf '#!/bin/sh\nexec %q stop %q %q %q >/dev/null 2>&1\n' "$(pwd)/scripts/lib/rtmps-terminator.sh" "$rtmps_dir" "$rtmps_port" "$SLUICE_TEST_RTMP_PORT" > "$SLUICE_TEST_WORK/stop-rtmps-terminator"
chmod +x "$SLUICE_TEST_WORK/stop-rtmps-terminator"
# Not $(…): nginx daemonizes, and a daemon holding the substitution's pipe would hang it.
scripts/lib/rtmps-terminator.sh start "$rtmps_dir" "$rtmps_port" "$SLUICE_TEST_RTMP_PORT" > "$SLUICE_TEST_WORK/rtmps-url"
SLUICE_TEST_RTMPS_URL=$(head -n 1 "$SLUICE_TEST_WORK/rtmps-url")
export SLUICE_TEST_RTMPS_URL
export SLUICE_TEST_RTMPS_CA="$rtmps_dir/ca.pem"
