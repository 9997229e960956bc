#!/usr/bin/env bash
# Builds the stack's images with podman when no registry is reachable: a Debian bookworm base bootstrapped
# with mmdebstrap (cached as a tarball), a Swift build image with the host's toolchain, RabbitMQ and
# nginx-rtmp from Debian's packages, and the worker image from docker/Dockerfile on those bases.
#
#   scripts/lib/container-images.sh offline   # every image (SLUICE_REBUILD=1 bootstraps the bases again too)
#   scripts/lib/container-images.sh bases     # the Debian base, RabbitMQ and nginx-rtmp images only
#   scripts/lib/container-images.sh worker    # the worker image only (and the bases it needs)
#
# The worker image is docker/Dockerfile's `source` target: the package built (release) inside the Swift image, its
# build folder kept in a build cache mount so that a changed file recompiles only what it touches (docker/release-build).
# SLUICE_PREBUILT_BIN=PATH: its `prebuilt` target instead, given that binary (one the tests built and ran), the Swift
# runtime libraries it links from the toolchain, and the source id of the tree it was built from. No Swift image
# is needed then. SLUICE_WORKER_IMAGE names the worker image (default localhost/sluice:latest).
#
# The bases (Debian, Swift) are kept once built; the images made from this repository's files are built on
# every call, so they never lag behind the sources (the engine's layer cache makes an unchanged build quick).
#
# Images: localhost/sluice-base:bookworm, localhost/sluice-swift:bookworm, localhost/sluice-rabbitmq:bookworm,
# sluice-rtmp:latest, sluice:latest (the names docker/docker-compose.offline.yml uses).
# Run from the repository root. Heavy steps run under `nice -n 10`: the machine is shared. `--format docker`
# keeps the images' HEALTHCHECKs (the OCI format drops them).
set -euo pipefail

cache="${SLUICE_IMAGE_CACHE:-/var/cache/sluice}"
toolchain="${SLUICE_SWIFT_TOOLCHAIN:-/opt/swift}"
# A local Git mirror of github.com's package repositories (owner/name), for machines that cannot reach GitHub.
packages="${SLUICE_SWIFT_PACKAGES:-/opt/swift-packages}"
mirror="${SLUICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${SLUICE_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"

have() { [ "${SLUICE_REBUILD:-0}" != 1 ] && podman image exists "$1"; }
stamp() { echo "images: $* ($(date -u +%H:%M:%S))" >&2; }

base() {
  have localhost/sluice-base:bookworm && return
  mkdir -p "$cache"
  local tarball="$cache/debian-bookworm-minbase.tar"
  if [ ! -s "$tarball" ]; then
    stamp "bootstrapping Debian bookworm (mmdebstrap --variant=minbase) into $tarball"
    # Without manuals, docs and translations, as debian:bookworm-slim is (copyright files stay).
    rm -rf "$tarball.tmp"
    nice -n 10 mmdebstrap --variant=minbase --mode=root --format=tar \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
      --dpkgopt='path-exclude=/usr/share/info/*' \
      bookworm "$tarball.tmp" \
      "deb $mirror bookworm main" "deb $mirror bookworm-updates main" "deb $security bookworm-security main"
    mv "$tarball.tmp" "$tarball"
  fi
  stamp "importing localhost/sluice-base:bookworm"
  podman import --change 'CMD ["/bin/bash"]' "$tarball" localhost/sluice-base:bookworm >/dev/null
}

swift_image() {
  have localhost/sluice-swift:bookworm && return
  [ -x "$toolchain/usr/bin/swift" ] || { echo "images: no Swift toolchain at $toolchain (SLUICE_SWIFT_TOOLCHAIN)" >&2; exit 1; }
  stamp "building localhost/sluice-swift:bookworm with the toolchain of $toolchain"
  local mirror=()
  [ -d "$packages" ] && mirror=(-v "$packages:/swift-packages:ro")
  nice -n 10 podman build -q --format docker -v "$toolchain:/toolchain:ro" "${mirror[@]}" -f docker/Dockerfile.swift \
    -t localhost/sluice-swift:bookworm docker >/dev/null
}

rabbitmq_image() {
  stamp "building localhost/sluice-rabbitmq:bookworm (Debian's rabbitmq-server)"
  nice -n 10 podman build -q --format docker -f docker/Dockerfile.rabbitmq -t localhost/sluice-rabbitmq:bookworm . >/dev/null
}

rtmp_image() {
  stamp "building sluice-rtmp:latest (Debian's nginx + libnginx-mod-rtmp)"
  nice -n 10 podman build -q --format docker -f docker/Dockerfile.rtmp --build-arg RUNTIME_IMAGE=localhost/sluice-base:bookworm \
    -t localhost/sluice-rtmp:latest . >/dev/null
}

# The context of docker/Dockerfile's `prebuilt` variant, in a temporary folder: prebuilt/bin/sluice (without its
# debug sections), prebuilt/lib/ (the libraries it loads from the toolchain) and prebuilt/share/sluice/source-id.
stage_prebuilt() {
  local binary=$1 context=$2
  [ -x "$binary" ] || { echo "images: no binary at $binary (SLUICE_PREBUILT_BIN)" >&2; exit 1; }
  mkdir -p "$context/prebuilt/bin" "$context/prebuilt/lib" "$context/prebuilt/share/sluice"
  objcopy --strip-debug "$binary" "$context/prebuilt/bin/sluice"
  local library
  for library in $(ldd "$binary" | awk -v toolchain="$toolchain/" 'index($3, toolchain) == 1 {print $3}'); do
    cp -L "$library" "$context/prebuilt/lib/"
  done
  docker/source-id > "$context/prebuilt/share/sluice/source-id"
}

worker_image() {
  local image=${SLUICE_WORKER_IMAGE:-localhost/sluice:latest}
  if [ -n "${SLUICE_PREBUILT_BIN:-}" ]; then
    stamp "building $image from the prebuilt $SLUICE_PREBUILT_BIN (docker/Dockerfile, target prebuilt)"
    local context
    context=$(mktemp -d /tmp/sluice-image.XXXXXX)
    stage_prebuilt "$SLUICE_PREBUILT_BIN" "$context"
    local status=0
    nice -n 10 podman build -q --format docker -f docker/Dockerfile --target prebuilt \
      --build-arg RUNTIME_IMAGE=localhost/sluice-base:bookworm -t "$image" "$context" >/dev/null || status=$?
    rm -rf "$context"
    return "$status"
  fi
  swift_image
  stamp "building $image (docker/Dockerfile, target source: swift build -c release inside localhost/sluice-swift:bookworm)"
  # Not -q: the release build's own lines (and its time) are the ones worth reading when it fails or is slow.
  nice -n 10 podman build --format docker -f docker/Dockerfile --target source \
    --build-arg SWIFT_IMAGE=localhost/sluice-swift:bookworm --build-arg RUNTIME_IMAGE=localhost/sluice-base:bookworm \
    -t "$image" . >&2
}

case "${1:-}" in
  offline) base; rabbitmq_image; rtmp_image; worker_image; stamp "images ready" ;;
  bases) base; rabbitmq_image; rtmp_image; stamp "base, RabbitMQ and nginx-rtmp images ready" ;;
  worker) base; worker_image; stamp "worker image ready" ;;
  *) echo "usage: $0 offline|bases|worker" >&2; exit 2 ;;
esac
