# Sourced by scripts/test: a build cache outside the clone, for runs from fresh clones (CI) on a machine that has
# built the project before.
#
# SwiftPM, swiftc and scripts/fuzz judge what to rebuild by the paths and modification times of the sources, so a
# build folder is worth keeping only for a source tree at the same path whose unchanged files keep their times. The
# cache is such a tree: $SLUICE_BUILD_CACHE/<key>/src, a copy of the clone made with `rsync --checksum`, which
# rewrites (with a new time) exactly the files whose bytes differ and deletes what the clone no longer has. The run
# then builds and tests there, with its build folders (.build, .build-tsan, .build-fuzz) beside the sources.
#
# What can never make it stale:
#   - a changed source: its bytes differ, so rsync rewrites it with a newer time than anything built from it;
#   - a changed toolchain or system library: <key> is a hash of `swift -version`, the machine's architecture and
#     the versions of the C libraries the package links, so a new one builds in a new folder;
#   - a build that fails there is retried once from nothing (scripts/test), so a bad cache costs time, never a
#     wrong verdict.
# One run at a time holds a folder (flock); a second waits for it.

# The folder for this machine's toolchain and libraries.
build_cache_folder() {
  local base=$1 key
  key=$( { swift -version 2>&1; uname -m; pkg-config --modversion libavformat libavcodec libavutil libswscale \
             libswresample librabbitmq sqlite3 2>&1; } | sha256sum | cut -c1-16)
  echo "$base/swift-$key"
}

# Copies the tree at $1 into $2/src (see above) and prints $2/src.
build_cache_sync() {
  local clone=$1 folder=$2
  mkdir -p "$folder/src"
  # Not -t: an unchanged file keeps the time the cache gave it, a changed one gets a new time.
  # Excluded (and so neither copied nor deleted): build folders, run state, what SwiftPM resolves itself.
  rsync -rlpc --delete \
    --exclude='/.build*' --exclude='/.stack' --exclude='/.bench' --exclude='/out' --exclude='/.swiftpm' \
    --exclude='/Package.resolved' --exclude='/sluice.sqlite*' --exclude='*.part' \
    "$clone/" "$folder/src/"
  echo "$folder/src"
}
