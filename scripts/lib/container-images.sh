#!/usr/bin/env bash
# Builds the stack's images with podman when no registry is reachable: a Debian bookworm base bootstrapped
# with mmdebstrap (cached as a tarball), a Swift build image with the host's toolchain, RabbitMQ and
# nginx-rtmp from Debian's packages, and the worker image from docker/Dockerfile on those bases.
#
#   scripts/lib/container-images.sh offline   # every image (SLUICE_REBUILD=1 bootstraps the bases again too)
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

worker_image() {
  stamp "building sluice:latest (swift build -c release inside localhost/sluice-swift:bookworm)"
  nice -n 10 podman build -q --format docker -f docker/Dockerfile \
    --build-arg SWIFT_IMAGE=localhost/sluice-swift:bookworm --build-arg RUNTIME_IMAGE=localhost/sluice-base:bookworm \
    -t localhost/sluice:latest . >/dev/null
}

case "${1:-}" in
  offline) base; swift_image; rabbitmq_image; rtmp_image; worker_image; stamp "images ready" ;;
  *) echo "usage: $0 offline" >&2; exit 2 ;;
esac
