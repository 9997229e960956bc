#!/bin/sh
# A private, loopback-only RabbitMQ node for tests (Debian's rabbitmq-server 3.10, no systemd needed).
#
#   scripts/lib/rabbitmq.sh start  DIR PORT   # prints the AMQP URL on stdout once the node is ready
#   scripts/lib/rabbitmq.sh stop   DIR PORT   # stops the node, its private epmd, and removes DIR's contents
#   scripts/lib/rabbitmq.sh status DIR PORT   # exit 0 and prints the URL when running, exit 3 otherwise
#   scripts/lib/rabbitmq.sh ctl    DIR PORT ARGS...   # rabbitmqctl against this node
#   scripts/lib/rabbitmq.sh free-port           # prints a PORT in 20000...40000 whose derived ports are free too
#
# `start` also writes DIR/rabbitmqctl, a wrapper that runs rabbitmqctl against this node with the right
# environment; tests find it through SLUICE_TEST_RABBITMQCTL.
#
# Node name sluice-test-PORT@localhost; Erlang distribution on PORT+20000 and a private epmd on PORT+21000,
# so several nodes (and a system broker) can coexist, and stopping one never touches another's epmd.
set -eu

usage() {
    echo "usage: $0 start|stop|status DIR PORT | ctl DIR PORT ARGS... | free-port" >&2
    exit 2
}

# The node's Erlang distribution and epmd ports, as offsets from PORT.
DIST_OFFSET=20000
EPMD_OFFSET=21000

# An outgoing connection in the kernel's ephemeral range may hold PORT+20000 or PORT+21000: all three must be free.
if [ "${1:-}" = free-port ]; then
    exec "$(dirname "$0")/free-port" 20000 40000 "$DIST_OFFSET" "$EPMD_OFFSET"
fi

[ $# -ge 3 ] || usage
CMD=$1
DIR=$2
PORT=$3
shift 3

case $PORT in
    '' | *[!0-9]*) echo "rabbitmq.sh: PORT must be a number, got '$PORT'" >&2; exit 2 ;;
esac
# The distribution and epmd ports are derived from PORT and must stay below 65536.
if [ "$PORT" -lt 1024 ] || [ "$PORT" -gt 44000 ]; then
    echo "rabbitmq.sh: PORT must be in 1024...44000 (PORT+21000 is the private epmd port)" >&2
    exit 2
fi

RMQ_BIN=/usr/lib/rabbitmq/bin
if [ ! -x "$RMQ_BIN/rabbitmq-server" ]; then
    echo "rabbitmq.sh: $RMQ_BIN/rabbitmq-server not found (apt-get install rabbitmq-server)" >&2
    exit 1
fi

case $DIR in
    /*) ;;
    *) DIR="$(pwd)/$DIR" ;;
esac

NODE="sluice-test-$PORT@localhost"
DIST_PORT=$((PORT + DIST_OFFSET))
EPMD_PORT=$((PORT + EPMD_OFFSET))
URL="amqp://guest:guest@127.0.0.1:$PORT/%2F"
PIDFILE="$DIR/mnesia/$NODE.pid"

# Everything Debian's scripts would otherwise take from /etc/rabbitmq and /var/lib/rabbitmq is redirected
# into DIR. The /usr/sbin wrappers are bypassed on purpose: they `su` to rabbitmq, which resets HOME (and so
# the Erlang cookie) to /var/lib/rabbitmq.
node_env() {
    # NODE_ENV_EXEC=1: replace the calling (sub)shell instead of waiting for the command.
    ${NODE_ENV_EXEC:+exec} env -i \
        PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 LC_ALL=C.UTF-8 \
        HOME="$DIR/home" \
        ERL_EPMD_PORT="$EPMD_PORT" \
        ERL_EPMD_ADDRESS=127.0.0.1 \
        RABBITMQ_NODENAME="$NODE" \
        RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
        RABBITMQ_NODE_PORT="$PORT" \
        RABBITMQ_DIST_PORT="$DIST_PORT" \
        RABBITMQ_MNESIA_BASE="$DIR/mnesia" \
        RABBITMQ_LOG_BASE="$DIR/log" \
        RABBITMQ_PID_FILE="$PIDFILE" \
        RABBITMQ_FEATURE_FLAGS_FILE="$DIR/feature_flags" \
        RABBITMQ_CONFIG_FILE="$DIR/rabbitmq.conf" \
        RABBITMQ_ADVANCED_CONFIG_FILE="$DIR/advanced.config" \
        RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/enabled_plugins" \
        RABBITMQ_CONF_ENV_FILE="$DIR/rabbitmq-env.conf" \
        RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}" \
        "$@"
}

# As root the node runs as the `rabbitmq` user (the packaged files expect it); otherwise as ourselves.
as_node_user() {
    if [ "$(id -u)" = 0 ]; then
        node_env setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups "$@"
    else
        node_env "$@"
    fi
}

ctl() {
    as_node_user "$RMQ_BIN/rabbitmqctl" -n "$NODE" "$@"
}

pid_alive() {
    [ -n "$1" ] && kill -0 "$1" 2>/dev/null
}

node_pid() {
    cat "$PIDFILE" 2>/dev/null || true
}

# Asks the node itself. Any rabbitmqctl call starts the private epmd when none runs, so callers that may find
# the node stopped check node_pid first, or clean up with kill_epmd.
node_answers() {
    ctl status >/dev/null 2>&1
}

is_running() {
    pid_alive "$(node_pid)" && node_answers
}

kill_epmd() {
    # The private epmd is started by the node (or rabbitmqctl) and outlives it; it serves only this PORT.
    node_env epmd -port "$EPMD_PORT" -kill >/dev/null 2>&1 || true
}

prepare_dir() {
    mkdir -p "$DIR"
    # A fresh node every start: stale mnesia from an earlier run would carry queues and messages over.
    rm -rf "$DIR/home" "$DIR/mnesia" "$DIR/log"
    mkdir -p "$DIR/home" "$DIR/mnesia" "$DIR/log"
    cat >"$DIR/rabbitmq.conf" <<EOF
# Private test node: loopback only; guest may log in over loopback.
listeners.tcp.default = 127.0.0.1:$PORT
loopback_users = none
# Long jobs keep a delivery unacked for a long time: 24 h instead of 30 min.
consumer_timeout = 86400000
# CI disks are small; the default 50 MB limit would block publishers on a nearly full /tmp.
disk_free_limit.absolute = 10MB
log.console = false
log.file.level = info
EOF
    : >"$DIR/enabled_plugins"
    : >"$DIR/rabbitmq-env.conf"
    printf '[].\n' >"$DIR/advanced.config"
    # A random cookie, private to this node (mode 400: Erlang refuses a cookie others can read).
    od -An -N20 -tx1 /dev/urandom | tr -d ' \n' >"$DIR/home/.erlang.cookie"
    chmod 400 "$DIR/home/.erlang.cookie"
    write_ctl_wrapper
    if [ "$(id -u)" = 0 ]; then
        chown -R rabbitmq:rabbitmq "$DIR"
        if ! setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups test -w "$DIR/mnesia"; then
            echo "rabbitmq.sh: the rabbitmq user cannot reach $DIR (a parent directory is not traversable)" >&2
            exit 1
        fi
    fi
}

write_ctl_wrapper() {
    self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
    cat >"$DIR/rabbitmqctl" <<EOF
#!/bin/sh
# rabbitmqctl against the private node $NODE (written by rabbitmq.sh start).
exec "$self" ctl "$DIR" "$PORT" "\$@"
EOF
    chmod 755 "$DIR/rabbitmqctl"
}

start() {
    if is_running; then
        echo "rabbitmq.sh: $NODE is already running" >&2
        echo "$URL"
        return 0
    fi
    prepare_dir
    # setsid + nohup: the node survives the calling shell and is not in its process group.
    # Inherited descriptors closed: a pipe or Foundation Process's exit socket held by the node would make
    # whoever waits on it wait forever (python3, since sh cannot close descriptors above 9).
    # The background subshell execs all the way down (env, setpriv, setsid, nohup, python3, the node), so no
    # shell lingers as the node's parent holding what the script inherited.
    (NODE_ENV_EXEC=1 as_node_user setsid nohup /usr/bin/python3 -c 'import os, sys; os.closerange(3, 1 << 16); os.execv(sys.argv[1], sys.argv[1:])' \
        "$RMQ_BIN/rabbitmq-server") >"$DIR/log/startup.log" 2>&1 </dev/null &
    # The node writes its pid file only once booting; until then this pid lets `stop` find it.
    echo $! >"$DIR/launcher.pid"
    tries=0
    # Ready in ~7 s on a quiet machine; allow 90 s for a loaded CI box.
    until node_answers; do
        tries=$((tries + 1))
        if [ $tries -gt 90 ]; then
            echo "rabbitmq.sh: $NODE did not become ready; last log lines:" >&2
            tail -n 30 "$DIR/log/startup.log" >&2 || true
            stop_node
            exit 1
        fi
        sleep 1
    done
    # `status` answers before the AMQP listener is bound; wait for the port as well.
    tries=0
    until ctl await_startup >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ $tries -le 30 ] || { echo "rabbitmq.sh: $NODE never finished booting" >&2; stop_node; exit 1; }
        sleep 1
    done
    echo "$URL"
}

stop_node() {
    pid=$(node_pid)
    [ -n "$pid" ] || pid=$(cat "$DIR/launcher.pid" 2>/dev/null || true)
    if pid_alive "$pid"; then
        # With the pid file, `stop` returns only once the Erlang VM has exited.
        if [ -f "$PIDFILE" ]; then
            ctl stop "$PIDFILE" >/dev/null 2>&1 || true
        else
            ctl stop >/dev/null 2>&1 || true
        fi
    fi
    if pid_alive "$pid"; then
        kill "$pid" 2>/dev/null || true
        i=0
        while pid_alive "$pid" && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
        pid_alive "$pid" && kill -9 "$pid" 2>/dev/null || true
    fi
    kill_epmd
}

stop() {
    stop_node
    if [ -d "$DIR" ]; then
        if [ "${SLUICE_KEEP_BROKER_LOGS:-0}" = 1 ]; then
            rm -rf "$DIR/home" "$DIR/mnesia"
        else
            rm -rf "$DIR/home" "$DIR/mnesia" "$DIR/log"
        fi
        rm -f "$DIR/rabbitmq.conf" "$DIR/enabled_plugins" "$DIR/rabbitmq-env.conf" "$DIR/advanced.config" \
            "$DIR/feature_flags" "$DIR/rabbitmqctl" \
            "$DIR/launcher.pid"
        rmdir "$DIR" 2>/dev/null || true
    fi
}

case $CMD in
    start) start ;;
    stop) stop ;;
    status)
        if is_running; then
            echo "$URL"
        else
            echo "stopped" >&2
            exit 3
        fi
        ;;
    ctl) ctl "$@" ;;
    *) usage ;;
esac
