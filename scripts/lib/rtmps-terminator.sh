#!/bin/sh
# A private TLS terminator for the rtmps:// tests: nginx's stream module, as its own nginx instance, in front
# of the private nginx-rtmp. It takes TLS on a loopback port and forwards the plain bytes to the RTMP port.
#
#   scripts/lib/rtmps-terminator.sh start DIR PORT RTMP_PORT  # prints rtmps://127.0.0.1:PORT once it accepts
#   scripts/lib/rtmps-terminator.sh stop  DIR PORT RTMP_PORT  # stops it and removes what it wrote in DIR
#
# `start` makes a throwaway test CA (DIR/ca.pem) and a server certificate it signs for 127.0.0.1 and localhost
# (DIR/server.pem, DIR/server.key), each run anew: nothing is trusted beyond the run. Config, pid file and
# logs live in DIR; nginx daemonizes itself, the one worker runs as `nobody`.
set -eu

usage() {
    echo "usage: $0 start|stop DIR PORT RTMP_PORT" >&2
    exit 2
}

[ $# -eq 4 ] || usage
CMD=$1
DIR=$2
PORT=$3
RTMP_PORT=$4
for number in "$PORT" "$RTMP_PORT"; do
    case $number in
        '' | *[!0-9]*) echo "rtmps-terminator.sh: ports must be numbers, got '$number'" >&2; exit 2 ;;
    esac
done
case $DIR in
    /*) ;;
    *) DIR="$(pwd)/$DIR" ;;
esac

NGINX=/usr/sbin/nginx
MODULE=/usr/lib/nginx/modules/ngx_stream_module.so
PIDFILE="$DIR/nginx.pid"
URL="rtmps://127.0.0.1:$PORT"

accepts() {
    python3 -c "import socket,sys; s=socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1); s.close()" "$PORT" 2>/dev/null
}

make_certificates() {
    # The CA signs one server certificate whose subjectAltName names both ways a test may dial it.
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Sluice test CA" \
        -keyout "$DIR/ca.key" -out "$DIR/ca.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$DIR/server.key" -out "$DIR/server.csr" 2>/dev/null
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' > "$DIR/server.ext"
    openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.pem" -CAkey "$DIR/ca.key" -CAcreateserial -days 2 \
        -extfile "$DIR/server.ext" -out "$DIR/server.pem" 2>/dev/null
    rm -f "$DIR/server.csr" "$DIR/server.ext" "$DIR/ca.srl"
}

write_config() {
    cat >"$DIR/nginx.conf" <<EOF
# Private TLS terminator for rtmps:// tests (written by rtmps-terminator.sh); loopback only.
load_module $MODULE;
daemon on;
master_process on;
worker_processes 1;
pid $PIDFILE;
error_log $DIR/error.log info;
events { worker_connections 256; }
stream {
    server {
        listen 127.0.0.1:$PORT ssl;
        ssl_certificate $DIR/server.pem;
        ssl_certificate_key $DIR/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        proxy_pass 127.0.0.1:$RTMP_PORT;
        proxy_connect_timeout 5s;
    }
}
EOF
}

start() {
    if [ ! -x "$NGINX" ] || [ ! -f "$MODULE" ]; then
        echo "rtmps-terminator.sh: nginx or $MODULE missing (apt-get install nginx libnginx-mod-stream)" >&2
        exit 1
    fi
    command -v openssl >/dev/null || { echo "rtmps-terminator.sh: openssl missing" >&2; exit 1; }
    mkdir -p "$DIR"
    make_certificates
    write_config
    # As nginx-rtmp.sh: the daemon must hold none of the caller's descriptors (a pipe it inherited would never
    # reach EOF), so python3 closes them all before exec.
    if ! python3 -c 'import os, sys; os.closerange(3, 1 << 16); os.execv(sys.argv[1], sys.argv[1:])' \
        "$NGINX" -p "$DIR" -e "$DIR/error.log" -c "$DIR/nginx.conf" </dev/null >"$DIR/startup.log" 2>&1; then
        echo "rtmps-terminator.sh: nginx did not start:" >&2
        cat "$DIR/startup.log" "$DIR/error.log" >&2 2>/dev/null || true
        exit 1
    fi
    tries=0
    until accepts; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ]; then
            echo "rtmps-terminator.sh: port $PORT never accepted connections; last log lines:" >&2
            tail -n 20 "$DIR/error.log" >&2 || true
            stop
            exit 1
        fi
        sleep 0.1
    done
    echo "$URL"
}

stop() {
    pid=$(cat "$PIDFILE" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    # Only what start wrote: DIR comes from the caller.
    rm -f "$DIR/nginx.conf" "$DIR/error.log" "$DIR/startup.log" "$PIDFILE" "$DIR/ca.pem" "$DIR/ca.key" \
        "$DIR/server.pem" "$DIR/server.key"
    rmdir "$DIR" 2>/dev/null || true
}

case $CMD in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
