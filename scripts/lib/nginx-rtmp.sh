#!/bin/sh
# A private, loopback-only nginx with libnginx-mod-rtmp for the restream tests and benchmarks.
#
#   scripts/lib/nginx-rtmp.sh start   DIR PORT   # prints rtmp://127.0.0.1:PORT/live once it accepts connections
#   scripts/lib/nginx-rtmp.sh stop    DIR PORT   # stops it and removes what it wrote in DIR
#   scripts/lib/nginx-rtmp.sh kill    DIR PORT   # SIGKILL, as a crash: connections drop without a goodbye
#   scripts/lib/nginx-rtmp.sh restart DIR PORT   # stop, then start on the same port
#   scripts/lib/nginx-rtmp.sh status  DIR PORT   # exit 0 and prints the URL when running, exit 3 otherwise
#   scripts/lib/nginx-rtmp.sh alerts  DIR PORT   # its log's lines at alert level or above, each after "nginx-rtmp :PORT: "
#
# The application `live` takes publishers and players from 127.0.0.1 only. The config, pid file and logs
# live in DIR (nothing under /etc or /var); nginx daemonizes itself (`daemon on`), `stop` waits for it.
# Works as root without systemd: the master binds and writes DIR, the one worker runs as `nobody`.
# The statistics page (`rtmp_stat`: publishers and players per stream, as XML) answers on the unix socket
# DIR/stat.sock at /stat, e.g. `curl -s --unix-socket DIR/stat.sock http://localhost/stat`.
# NGINX_RTMP_LIVE_EXTRA, when set, is added inside `application live` (the density benchmark's `push` lines).
set -eu

usage() {
    echo "usage: $0 start|stop|kill|restart|status|alerts DIR PORT" >&2
    exit 2
}

[ $# -eq 3 ] || usage
CMD=$1
DIR=$2
PORT=$3

case $PORT in
    '' | *[!0-9]*) echo "nginx-rtmp.sh: PORT must be a number, got '$PORT'" >&2; exit 2 ;;
esac
case $DIR in
    /*) ;;
    *) DIR="$(pwd)/$DIR" ;;
esac

NGINX=/usr/sbin/nginx
MODULE=/usr/lib/nginx/modules/ngx_rtmp_module.so
URL="rtmp://127.0.0.1:$PORT/live"
PIDFILE="$DIR/nginx.pid"

pid_alive() {
    [ -n "$1" ] && kill -0 "$1" 2>/dev/null
}

master_pid() {
    cat "$PIDFILE" 2>/dev/null || true
}

accepts() {
    # A TCP connect to the rtmp listener (bash's /dev/tcp is not in sh; python3 is a bootstrap dependency).
    python3 -c "import socket,sys; s=socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1); s.close()" "$PORT" 2>/dev/null
}

write_config() {
    mkdir -p "$DIR"
    cat >"$DIR/nginx.conf" <<EOF
# Private test RTMP server (written by nginx-rtmp.sh); loopback only.
load_module $MODULE;
daemon on;
master_process on;
# One worker: the live module shares streams only inside one worker process.
worker_processes 1;
pid $PIDFILE;
error_log $DIR/error.log info;
# Density benchmarks hold a publisher, a pull and outputs per stream: hundreds of streams, thousands of connections.
worker_rlimit_nofile 16384;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $DIR/tmp/body;
    proxy_temp_path $DIR/tmp/proxy;
    fastcgi_temp_path $DIR/tmp/fastcgi;
    uwsgi_temp_path $DIR/tmp/uwsgi;
    scgi_temp_path $DIR/tmp/scgi;
    server {
        listen unix:$DIR/stat.sock;
        location /stat { rtmp_stat all; }
    }
}
rtmp {
    server {
        listen 127.0.0.1:$PORT;
        chunk_size 4096;
        application live {
            live on;
            # Players joining mid-stream start at a keyframe with the sequence headers.
            wait_key on;
            wait_video on;
            allow publish 127.0.0.1;
            deny publish all;
            allow play 127.0.0.1;
            deny play all;
${NGINX_RTMP_LIVE_EXTRA:-}
        }
    }
}
EOF
}

start() {
    if pid_alive "$(master_pid)"; then
        echo "nginx-rtmp.sh: already running on port $PORT" >&2
        echo "$URL"
        return 0
    fi
    if [ ! -x "$NGINX" ] || [ ! -f "$MODULE" ]; then
        echo "nginx-rtmp.sh: nginx or $MODULE missing (apt-get install nginx libnginx-mod-rtmp)" >&2
        exit 1
    fi
    write_config
    mkdir -p "$DIR/tmp"
    rm -f "$DIR/stat.sock"
    # -p/-e keep even the pre-config error log inside DIR. The daemon must hold none of the caller's
    # descriptors: a pipe (or Foundation's Process exit socket) it inherited would never reach EOF, and
    # the caller would wait forever. sh cannot close descriptors above 9, so python3 closes them all.
    if ! python3 -c 'import os, sys; os.closerange(3, 1 << 16); os.execv(sys.argv[1], sys.argv[1:])' \
        "$NGINX" -p "$DIR" -e "$DIR/error.log" -c "$DIR/nginx.conf" </dev/null >"$DIR/startup.log" 2>&1; then
        echo "nginx-rtmp.sh: nginx did not start:" >&2
        cat "$DIR/startup.log" "$DIR/error.log" >&2 2>/dev/null || true
        exit 1
    fi
    tries=0
    until accepts; do
        tries=$((tries + 1))
        if [ $tries -gt 100 ]; then
            echo "nginx-rtmp.sh: port $PORT never accepted connections; last log lines:" >&2
            tail -n 20 "$DIR/error.log" >&2 || true
            stop_server TERM
            exit 1
        fi
        sleep 0.1
    done
    echo "$URL"
}

# Child pids from /proc (procps may be absent on a fresh machine).
children() {
    # One grep over every status file (an awk per process took a second under load, and the kill with it). A
    # process may exit between the glob and the read: -s passes over its vanished file.
    grep -ls -E "^PPid:[[:space:]]+$1\$" /proc/[0-9]*/status | cut -d/ -f3 || true
}

# Signals the master (TERM: fast shutdown; KILL: a crash, then the orphaned worker too) and waits.
stop_server() {
    pid=$(master_pid)
    pid_alive "$pid" || return 0
    workers=$(children "$pid")
    kill "-$1" "$pid" 2>/dev/null || true
    if [ "$1" = KILL ]; then
        [ -n "$workers" ] && kill -KILL $workers 2>/dev/null || true
    else
        # A killed master can linger as a zombie until init reaps it; its sockets are closed at once,
        # so only a graceful stop waits for the process itself.
        i=0
        while pid_alive "$pid" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
        if pid_alive "$pid"; then kill -KILL "$pid" $workers 2>/dev/null || true; fi
    fi
    # The worker exits once the master is gone; wait until the port is free for a restart.
    i=0
    while accepts && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    rm -f "$PIDFILE"
}

# The log's lines at alert level or above (a worker that "exited on signal 11" is one), with the port; none is no error.
alerts() {
    [ -f "$DIR/error.log" ] || return 0
    grep -E '\[(alert|crit|emerg)\]' "$DIR/error.log" | sed "s|^|nginx-rtmp :$PORT: |" || true
}

# The alert lines outlive the server: appended to the file NGINX_RTMP_ALERTS names (scripts/test reports them), since
# stop removes the log.
keep_alerts() {
    [ -n "${NGINX_RTMP_ALERTS:-}" ] || return 0
    alerts >> "$NGINX_RTMP_ALERTS"
}

stop() {
    stop_server TERM
    keep_alerts
    if [ -d "$DIR" ]; then
        rm -f "$DIR/nginx.conf" "$DIR/error.log" "$DIR/startup.log" "$PIDFILE" "$DIR/stat.sock"
        rm -rf "$DIR/tmp"
        rmdir "$DIR" 2>/dev/null || true
    fi
}

case $CMD in
    start) start ;;
    stop) stop ;;
    kill) stop_server KILL ;;
    restart)
        stop_server TERM
        start
        ;;
    status)
        if pid_alive "$(master_pid)" && accepts; then
            echo "$URL"
        else
            echo "stopped" >&2
            exit 3
        fi
        ;;
    alerts) alerts ;;
    *) usage ;;
esac
