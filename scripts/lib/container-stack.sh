# Sourced by scripts/stack: `up|status|down --containers`, docker/docker-compose.yml on the machine's engine.
#
# Docker where its daemon answers (official images from the registry, `docker compose` or docker-compose);
# otherwise Debian's podman serving the Docker API to docker-compose, with images built from Debian's
# packages (scripts/lib/container-images.sh) and docker/docker-compose.offline.yml on top.
#
# Podman on these machines: the runc runtime (crun fails on hybrid cgroups), cgroupfs (no systemd), and
# default ulimits, all set in /etc/containers/containers.conf when that file does not exist yet.
# State: $stack/containers/ (service pid, env, logs saved at `down`); the API socket is /tmp/sluice-podman-*.sock.

compose_project="${SLUICE_COMPOSE_PROJECT:-sluice}"
engine=""
compose=()

# True when a Docker daemon answers: not podman's Docker API (a DOCKER_HOST from .stack/containers/env).
docker_engine_runs() {
  command -v docker >/dev/null || return 1
  local components
  components=$(timeout 10 docker version --format '{{range .Server.Components}}{{.Name}},{{end}}' 2>/dev/null) || return 1
  [ -n "$components" ] && [[ "$components" != *Podman* ]]
}

# The API socket `podman system service` serves for this stack.
podman_socket() {
  echo "/tmp/sluice-podman-$(printf '%s' "$stack" | md5sum | cut -c1-12).sock"
}

# Engine and compose command of a stack that is already up, starting and installing nothing.
containers_attach() {
  if docker_engine_runs; then
    engine=docker
    if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
    compose+=(-p "$compose_project" -f docker/docker-compose.yml)
  else
    engine=podman
    export DOCKER_HOST="unix://$(podman_socket)"
    compose=(docker-compose -p "$compose_project" -f docker/docker-compose.yml -f docker/docker-compose.offline.yml)
  fi
}

containers_setup() {
  mkdir -p "$stack/containers"
  if docker_engine_runs; then
    engine=docker
    if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
    compose+=(-p "$compose_project" -f docker/docker-compose.yml)
    return
  fi
  engine=podman
  podman_packages
  podman_configure
  podman_service
  compose=(docker-compose -p "$compose_project" -f docker/docker-compose.yml -f docker/docker-compose.offline.yml)
}

podman_packages() {
  local missing=()
  for tool in podman:podman mmdebstrap:mmdebstrap runc:runc docker-compose:docker-compose \
              fuse-overlayfs:fuse-overlayfs newuidmap:uidmap slirp4netns:slirp4netns curl:curl \
              /usr/lib/podman/netavark:netavark /usr/lib/podman/aardvark-dns:aardvark-dns iptables:iptables; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool##*:}")
  done
  ((${#missing[@]})) || return 0
  echo "stack: installing ${missing[*]}" >&2
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq >&2
  # With podman's recommends (buildah, catatonit): the set this stack was tested with. netavark and
  # aardvark-dns give the compose network its DNS, so services reach each other by name.
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

podman_configure() {
  local conf=/etc/containers/containers.conf
  if [ ! -e "$conf" ]; then
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo mkdir -p /etc/containers
    $sudo tee "$conf" >/dev/null <<'CONF'
# Written by sluice's scripts/stack: runc (crun fails on hybrid cgroups here), cgroupfs and file events
# (no systemd), and default ulimits (containers get none otherwise, which RabbitMQ and nginx refuse).
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
  elif ! grep -q 'runtime *= *"runc"' "$conf"; then
    echo "stack: warning: $conf exists without runtime = \"runc\"; crun fails on hybrid cgroups" >&2
  fi
}

# The Docker API on a socket of the stack's own, served by `podman system service` until `down`.
podman_service() {
  # In /tmp: a socket path must stay under 108 bytes, which a deep checkout's .stack may not.
  local socket pidfile="$stack/containers/podman-service.pid"
  socket=$(podman_socket)
  export DOCKER_HOST="unix://$socket"
  if [ -S "$socket" ] && curl -fsS --unix-socket "$socket" http://d/_ping >/dev/null 2>&1; then return; fi
  rm -f "$socket"
  setsid nohup podman system service --time=0 "$DOCKER_HOST" > "$stack/containers/podman-service.log" 2>&1 < /dev/null &
  for _ in $(seq 1 100); do
    if curl -fsS --unix-socket "$socket" http://d/_ping >/dev/null 2>&1; then
      # By its exact command line (the socket is this stack's own): $! may be a setsid that forked.
      pgrep -f -x "podman system service --time=0 $DOCKER_HOST" > "$pidfile"
      return
    fi
    sleep 0.1
  done
  echo "stack: podman system service did not answer on $socket (see $stack/containers/podman-service.log)" >&2
  exit 1
}

# Polls URL until it answers 200, up to $2 seconds.
wait_http() {
  local url=$1 limit=$2 start=$SECONDS
  until curl -fsS -o /dev/null "$url" 2>/dev/null; do
    if ((SECONDS - start > limit)); then return 1; fi
    sleep 1
  done
}

# The images alone (all, or `bases`: all but the worker's), so a caller can build them while it does something else
# (scripts/test: the bases beside the build, the worker image from the binary the tests run).
containers_images() {
  if docker_engine_runs; then
    echo "stack: Docker builds the images at up" >&2
    return
  fi
  podman_packages
  podman_configure
  scripts/lib/container-images.sh "${1:-offline}"
}

# The worker image as users build it, from source (docker/Dockerfile's default target), as $SLUICE_WORKER_IMAGE
# (default localhost/sluice:source), and the proof that it runs this tree's sources: the source id it recorded is the
# tree's (docker/source-id, which the prebuilt image records too), and its binary starts and opens a database.
containers_source_image() {
  local image=${SLUICE_WORKER_IMAGE:-localhost/sluice:source} began=$SECONDS
  if docker_engine_runs; then
    engine=docker
    DOCKER_BUILDKIT=1 docker build -f docker/Dockerfile --target source -t "$image" . >&2
  else
    engine=podman
    podman_packages
    podman_configure
    SLUICE_WORKER_IMAGE=$image scripts/lib/container-images.sh worker
  fi
  local built=$((SECONDS - began)) recorded tree
  recorded=$($engine run --rm --network none --entrypoint cat "$image" /usr/local/share/sluice/source-id | tr -d '\r\n')
  tree=$(docker/source-id)
  if [ "$recorded" != "$tree" ]; then
    echo "stack: $image was built from source id $recorded, this tree is $tree" >&2
    return 1
  fi
  $engine run --rm --network none "$image" jobs list --db /tmp/probe.sqlite >&2
  echo "stack: $image built from source in ${built} s, runs, and carries this tree's source id ${tree:0:16}…" >&2
}

containers_up() {
  local started=$SECONDS
  containers_setup
  # The workers' secrets key (docker-compose.yml `secrets:`): made once, private, never committed.
  if [ -z "${SLUICE_SECRETS_KEY_HOST_FILE:-}" ] && [ ! -s docker/secrets.key ]; then
    (umask 077 && printf 'k1:%s\n' "$(head -c 32 /dev/urandom | base64 -w0)" > docker/secrets.key)
    # Compose mounts the file as it is: the image's user (uid 10001, docker/Dockerfile) must be able to read it.
    chown 10001:10001 docker/secrets.key 2>/dev/null || chmod 0644 docker/secrets.key
    echo "stack: made docker/secrets.key, the key that seals job secrets in the workers' databases" >&2
  fi
  echo "stack: engine $engine; compose: ${compose[*]}" >&2
  if [ "$engine" = podman ]; then
    scripts/lib/container-images.sh offline
    "${compose[@]}" up -d --no-build >&2
  else
    # BuildKit: docker/Dockerfile's build cache mount and its unused `prebuilt` stage need it (docker-compose 1.x
    # builds with the legacy builder otherwise).
    DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1 "${compose[@]}" up -d --build >&2
  fi
  local built=$((SECONDS - started))
  echo "stack: waiting for RabbitMQ, both workers and the ledger to be healthy" >&2
  local name port
  for entry in worker-1:9091 worker-2:9092 ledger:9093; do
    name=${entry%%:*}; port=${entry##*:}
    if ! wait_http "http://127.0.0.1:$port/healthz" 180; then
      echo "stack: $name is not healthy on 127.0.0.1:$port after 180 s; its log:" >&2
      "${compose[@]}" logs --no-color --tail 40 "$name" >&2 || true
      exit 1
    fi
  done
  local ready=$((SECONDS - started))
  cat > "$stack/containers/env" <<ENV
export SLUICE_AMQP_URL='amqp://sluice:${SLUICE_AMQP_PASSWORD:-sluice}@127.0.0.1:5672/'
export SLUICE_STACK_RTMP='rtmp://127.0.0.1:1935'
export SLUICE_STACK_ENGINE='$engine'
${DOCKER_HOST:+export DOCKER_HOST='$DOCKER_HOST'}
ENV
  echo "$ready" > "$stack/containers/cold-start-s"
  echo "stack: up in ${ready} s (${built} s images and containers, $((ready - built)) s until healthy)" >&2
  echo "stack: AMQP 127.0.0.1:5672, management 127.0.0.1:15672, RTMP 127.0.0.1:1935," \
       "workers http://127.0.0.1:9091/ and :9092/, ledger http://127.0.0.1:9093/" >&2
  echo "stack: source $stack/containers/env; ${compose[*]} exec ledger sluice jobs list" >&2
}

containers_status() {
  containers_setup
  "${compose[@]}" ps
}

# SIGTERM with each service's stop_grace_period (workers drain), logs and exit codes kept, then removal.
containers_down() {
  containers_setup
  local saved="$stack/containers/down"
  rm -rf "$saved"; mkdir -p "$saved"
  "${compose[@]}" stop >&2 || true
  for service in worker-1 worker-2 ledger rabbitmq rtmp; do
    "${compose[@]}" logs --no-color "$service" > "$saved/$service.log" 2>&1 || true
    local id
    id=$("${compose[@]}" ps -q "$service" 2>/dev/null | head -n 1)
    [ -n "$id" ] && $engine inspect -f '{{.State.ExitCode}}' "$id" > "$saved/$service.exit" 2>/dev/null || true
  done
  "${compose[@]}" down ${SLUICE_STACK_DOWN_VOLUMES:+-v} >&2 || true
  if [ "$engine" = podman ]; then
    # Every service this stack started on its socket, by id (found by the exact command line).
    local pids
    pids=$(cat "$stack/containers/podman-service.pid" 2>/dev/null; pgrep -f -x "podman system service --time=0 $DOCKER_HOST" || true)
    for pid in $(echo "$pids" | sort -u); do kill "$pid" 2>/dev/null || true; done
    rm -f "$stack/containers/podman-service.pid" "${DOCKER_HOST#unix://}"
  fi
  echo "stack: down (logs and exit codes in $saved)" >&2
}
