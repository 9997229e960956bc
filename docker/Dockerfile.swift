# A Swift build image for machines without a registry: the offline Debian base, the packages the official
# swift:bookworm image carries, and the host's toolchain (/opt/swift) copied in. Built by scripts/stack:
#   podman build -v /opt/swift:/toolchain:ro [-v /opt/swift-packages:/swift-packages:ro] \
#     -f docker/Dockerfile.swift -t localhost/sluice-swift:bookworm docker
ARG BASE_IMAGE=localhost/sluice-base:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      binutils ca-certificates git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev libncurses-dev \
      libpython3.11 libsqlite3-0 libstdc++-12-dev libxml2-dev libz3-dev pkg-config tzdata unzip zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
# The toolchain arrives as a build volume (podman build -v), so the context stays small.
RUN test -x /toolchain/usr/bin/swift || { echo "mount the toolchain: podman build -v /opt/swift:/toolchain:ro" >&2; exit 1; } \
 && mkdir -p /opt/swift && cp -a /toolchain/usr /opt/swift/ \
 && rm -rf /opt/swift/usr/bin/lldb* /opt/swift/usr/bin/sourcekit-lsp /opt/swift/usr/bin/clangd /opt/swift/usr/bin/docc
# Where github.com is not reachable either, a local Git mirror of the package sources (a tree of owner/name
# repositories, e.g. /opt/swift-packages) arrives the same way and stands in for https://github.com/.
RUN if [ -d /swift-packages ]; then \
      cp -a /swift-packages /opt/swift-packages \
      && git config --system url./opt/swift-packages/.insteadOf https://github.com/ \
      && git config --system --add safe.directory '*'; \
    fi
ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN swift --version
