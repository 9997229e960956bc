# Sourced by scripts/test: the stages of a run, each timed and logged, some side by side, and the report at the end.
# Needs $root (the tree) and $work (the run's scratch folder); writes $work/logs/, $work/stages, $work/failures and
# $work/counts, and keeps the log of every test run that failed in $kept_logs, which outlives $work.

mkdir -p "$work/logs"
# The test bundles the debug and ThreadSanitizer builds make.
test_bundle="$root/.build/debug/SluicePackageTests.xctest"
tsan_test_bundle="$root/.build-tsan/debug/SluicePackageTests.xctest"
: > "$work/stages"
: > "$work/counts"
# Where the logs of failed test runs are kept once $work is gone: one folder per run under SLUICE_TEST_LOGS (by default
# .build-test-logs in the tree, which the build cache keeps too), the newest 20 runs' folders kept. Made at the first
# failure.
kept_logs_base=${SLUICE_TEST_LOGS:-$root/.build-test-logs}
kept_logs="$kept_logs_base/$(date -u +%Y%m%dT%H%M%SZ)-$$"

# A process and everything it started (a background stage's builds and tests), ended on an early exit.
kill_tree() {
  local pid=$1 child
  for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do kill_tree "$child"; done
  kill "$pid" 2>/dev/null || true
}

# Runs the command at a lower priority: a shell function too, which `nice` cannot run.
niced() {
  renice -n "$1" -p "$BASHPID" >/dev/null
  shift
  "$@"
}

# The tests run as units side by side, each unit one process of the test bundle: every top-level suite of the targets
# that start processes, servers or timers, and each of the other targets whole. A process runs its own suites side by
# side (Swift Testing) on a cooperative pool as wide as the cores, which a test that waits on a child or a socket
# holds; more processes than cores keep the waiting ones from holding up the rest. The units that took longest last
# time start first ($test_times). SLUICE_TEST_JOBS sets how many run at once.
integration_targets="LiveRelayTests SluiceTests WorkerTests JobQueueTests SluiceHTTPTests SRTTransportTests"
test_jobs=${SLUICE_TEST_JOBS:-4}
test_times="$root/.build/test-times"
# The targets whose suites start processes, servers or timers: what `--stress` runs.
stress_targets="LiveRelayTests SluiceTests WorkerTests JobQueueTests SluiceHTTPTests MediaEngineTests JobStoreTests SRTTransportTests"

# The private services (scripts/lib/test-services.d/), their settings kept in $work/services.env for the shell
# that started them in the background; each start script leaves a stop-* hook in $work.
start_services() {
  local service
  for service in scripts/lib/test-services.d/*.sh; do
    [ -e "$service" ] || continue
    # shellcheck source=/dev/null
    source "$service"
  done
  declare -px | grep -E '^declare -x SLUICE_TEST_' > "$work/services.env"
}

# One run of tests, its output in $work/logs/NAME.log (and on stdout when SLUICE_TEST_ECHO=1): a run that executed
# no test, reported a data race, or (under CI) skipped a test fails, whatever the runner's own status. What failed
# goes to $work/failures for the report at the end (CI shows only the tail of a long log), and its whole log to
# $kept_logs.
#   checked_test NAME BUNDLE FILTER     the built test bundle itself, on the suites FILTER matches: runs side by side
#                                       freely (`swift test` would wait for the lock on its build folder)
#   checked_test NAME swift-test ARG…   `swift test --skip-build ARG…` (scripts/test --filter)
# With SLUICE_TEST_TSAN=1 (a ThreadSanitizer build), every report of the run's processes (the test bundle and the
# `sluice` binaries it starts) is written to a file of its own (TSan's log_path), appended to the log after the run,
# and shown trimmed in the report at the end (scripts/lib/tsan-summary.py).
checked_test() {
  local name=$1 runner=$2; shift 2
  local log="$work/logs/$name.log" status command tsan_reports="" report tsan_options=${TSAN_OPTIONS:-}
  if [ "$runner" = swift-test ]; then
    command=(swift test --skip-build "$@")
  else
    command=("$runner" --testing-library swift-testing --filter "$1")
    # The sanitized runs leave out what scripts/test names in tsan_skip (tests that would judge its slowness).
    if [ "${SLUICE_TEST_TSAN:-}" = 1 ] && [ -n "${tsan_skip:-}" ]; then command+=(--skip "$tsan_skip"); fi
  fi
  if [ "${SLUICE_TEST_TSAN:-}" = 1 ]; then
    tsan_reports="$work/tsan-reports/$name"
    rm -rf "$tsan_reports"
    mkdir -p "$tsan_reports"
    # halt_on_error=0: every race of the run is reported, not only the first.
    tsan_options="halt_on_error=0 second_deadlock_stack=1 log_path=$tsan_reports/report"
  fi
  set +e
  if [ "${SLUICE_TEST_ECHO:-}" = 1 ]; then
    TSAN_OPTIONS=$tsan_options NO_COLOR=1 "${command[@]}" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
  else
    TSAN_OPTIONS=$tsan_options NO_COLOR=1 "${command[@]}" > "$log" 2>&1
    status=$?
  fi
  set -e
  if [ -n "$tsan_reports" ]; then
    for report in "$tsan_reports"/report.*; do
      [ -e "$report" ] || continue
      { echo "== ThreadSanitizer's output in process ${report##*.}:"; cat "$report"; } >> "$log"
      if [ "${SLUICE_TEST_ECHO:-}" = 1 ]; then cat "$report"; fi
    done
  fi
  local ran failed
  ran=$(sed -n 's/.*Test run with \([0-9][0-9]*\) tests\{0,1\} .*/\1/p' "$log" | tail -1)
  failed=$(grep -E '^[^ ]+ Test .* failed after' "$log" | grep -cv 'Test run with' || true)
  echo "$name ${ran:-0} ${failed:-0}" >> "$work/counts"
  if (( ${ran:-0} == 0 )); then
    echo "test: ${command[*]} ran zero tests" >> "$log"
    status=1
  fi
  if grep -q 'WARNING: ThreadSanitizer' "$log"; then
    echo "test: ThreadSanitizer reported $(grep -c 'WARNING: ThreadSanitizer' "$log") data race(s) in ${command[*]}" >> "$log"
    status=1
  fi
  if [ "${CI:-}" = true ] && grep -qE '^[^ ]+ (Test|Suite) (".*"|[A-Za-z0-9_.]+) skipped' "$log"; then
    { echo "test: under CI nothing may be skipped; skipped in ${command[*]}:"
      grep -E '^[^ ]+ (Test|Suite) (".*"|[A-Za-z0-9_.]+) skipped' "$log" | sed 's/^/  /'; } >> "$log"
    status=1
  fi
  if [ "$status" -ne 0 ]; then
    mkdir -p "$kept_logs"
    cp "$log" "$kept_logs/"
    { grep -E 'recorded an issue|✘ Test .* failed|: error: |Fatal error|ran zero tests|ThreadSanitizer reported|nothing may be skipped' "$log" \
        | head -20 | sed "s|^|  [$name] |"
      # The first lines of why: each failing expectation's own message, a few lines after it.
      grep -A4 -m3 'recorded an issue' "$log" | sed "s|^|  [$name]   |" | head -15
      # Each race with both its stacks and where its threads began, trimmed to this tree's frames.
      if grep -q 'WARNING: ThreadSanitizer' "$log"; then
        python3 "$root/scripts/lib/tsan-summary.py" "$log" "$root" | sed "s|^|  [$name]   |"
      fi
      echo "  [$name] the whole log: $kept_logs/$name.log"; } > "$work/failure-$name" 2>&1 || true
    # One append per failed run: runs side by side do not interleave their lines.
    cat "$work/failure-$name" >> "$work/failures"
    echo "test: $name FAILED (${command[*]}; log $kept_logs/$name.log)" >&2
  else
    echo "test: $name passed: ${ran:-0} tests ($(grep -oE 'passed after [0-9.]+ seconds' "$log" | tail -1 | sed 's/passed after //'))" >&2
  fi
  return "$status"
}

# A stage in the foreground: its time and status in $work/stages.
timed_stage() {
  local name=$1; shift
  local began=$SECONDS status=0
  "$@" || status=$?
  echo "$name $((SECONDS - began)) $status" >> "$work/stages"
  return "$status"
}

# A stage in the background, its output in $work/logs/stage-NAME.log; stage_wait NAME waits for it and shows the
# log's tail if it failed.
stage() {
  local name=$1; shift
  ( trap - EXIT INT TERM; timed_stage "$name" "$@" ) > "$work/logs/stage-$name.log" 2>&1 &
  echo $! > "$work/pid-$name"
  background+=("$!")
  echo "test: stage $name started beside the rest" >&2
}

stage_wait() {
  local name=$1 status=0
  wait "$(cat "$work/pid-$name")" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "test: stage $name FAILED; the end of its log:" >&2
    tail -40 "$work/logs/stage-$name.log" | sed "s|^|  [$name] |" >&2
    tail -40 "$work/logs/stage-$name.log" | sed "s|^|  [$name] |" >> "$work/failures"
  else
    echo "test: stage $name passed" >&2
  fi
  return "$status"
}

stage_passed() {
  awk -v n="$1" '$1 == n {s = $3} END {exit !(s == "0")}' "$work/stages"
}

# The units of a bundle (see above), longest last time first, as "FILTER" lines; $2, when given, keeps only the
# targets it names.
test_units() {
  local bundle=$1 only=${2:-}
  "$bundle" --testing-library swift-testing --list-tests 2>/dev/null | sed 's|/.*||' | sort -u | while read -r id; do
    local target=${id%%.*}
    [ -z "$only" ] || [[ " $only " == *" $target "* ]] || continue
    if [[ " $integration_targets " == *" $target "* ]]; then
      [ "$id" = "$target" ] && echo "^$target/" || echo "^${id//./\\.}/"
    else
      echo "^$target\\."
    fi
  done | sort -u | while read -r filter; do
    echo "$(awk -v f="$filter" '$1 == f {t = $2} END {print (t == "" ? 9999 : t)}' "$test_times" 2>/dev/null || echo 9999) $filter"
  done | sort -rn | cut -d' ' -f2
}

# CPU seconds (user + system) of the processes this shell has waited for, into the variable named $1: for a unit's
# subshell, the test bundle and every child it waited for (ffmpeg, the peers, rabbitmqctl), not the services. `times`
# runs in the shell itself: in a pipe or $(…) it would be a fresh process's, with no children.
children_cpu() {
  local file="$work/times-$BASHPID"
  times > "$file"
  printf -v "$1" '%s' "$(awk 'NR == 2 { cpu = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); cpu += p[1] * 60 + p[2] } printf "%.0f", cpu }' "$file")"
  rm -f "$file"
}

# Runs the units of a bundle ($1), $2 at a time, named with prefix $3; $4 keeps only the targets it names. A subshell,
# so it waits only for its own processes.
run_test_units() (
  trap - EXIT INT TERM
  local bundle=$1 jobs=$2 prefix=$3 only=${4:-} status=0 running=0 filter name
  mapfile -t units < <(test_units "$bundle" "$only")
  ((${#units[@]})) || { echo "test: no tests listed by $bundle" >&2; exit 1; }
  for filter in "${units[@]}"; do
    name=$(printf '%s' "$prefix${filter#^}" | tr -c 'A-Za-z0-9_-' '-' | sed 's/-*$//')
    (
      trap - EXIT INT TERM
      began=$SECONDS
      unit_status=0
      checked_test "$name" "$bundle" "$filter" || unit_status=$?
      # Wall seconds, then CPU seconds: what a unit costs the machine, which its wall time hides.
      children_cpu cpu
      [ -z "$prefix" ] && echo "$filter $((SECONDS - began)) $cpu" >> "$work/unit-times"
      exit "$unit_status"
    ) &
    running=$((running + 1))
    if ((running >= jobs)); then
      wait -n || status=1
      running=$((running - 1))
    fi
  done
  while ((running > 0)); do
    wait -n || status=1
    running=$((running - 1))
  done
  # The next run starts the longest first.
  if [ -s "$work/unit-times" ]; then
    mkdir -p "$(dirname "$test_times")" && cp "$work/unit-times" "$test_times"
    echo "test: the units that cost the most CPU (seconds of CPU, of wall): $(sort -k3,3nr "$work/unit-times" | head -8 | awk '{ gsub(/[\\^\/]/, "", $1); sub(/\.$/, "", $1); printf "%s%s %s/%s", (NR > 1 ? ", " : ""), $1, $3, $2 }')" >&2
  fi
  exit "$status"
)

# ThreadSanitizer's build, then the fuzz targets' (both niced by the caller: they fill the cores the tests leave).
build_tsan_then_fuzz() {
  build_tsan
  scripts/fuzz --build-only
}

# --stress: ROUNDS rounds beside two busy-loop CPU hogs that run for the whole time, of KIND `tests` (the
# process-starting suites, or one run of the bundle on FILTER) or `tsan` (the ThreadSanitizer run, or the suites
# FILTER names, as `--tsan FILTER`).
stress_run() {
  local rounds=$1 kind=$2 filter=${3:-} hogs=() round status=0 began=$SECONDS
  for _ in 1 2; do
    ( trap - EXIT INT TERM; while :; do :; done ) &
    hogs+=($!); background+=($!)
  done
  echo "test: stress: $rounds rounds beside two CPU hogs (pids ${hogs[*]})" >&2
  for round in $(seq 1 "$rounds"); do
    echo "== stress round $round of $rounds ($((SECONDS - began)) s so far)" >&2
    if [ "$kind" = tsan ]; then
      run_tsan "$filter" "round$round-" || status=1
    elif [ -n "$filter" ]; then
      checked_test "round$round-filtered" "$test_bundle" "$filter" || status=1
    else
      run_test_units "$test_bundle" "$test_jobs" "round$round-" "$stress_targets" || status=1
    fi
  done
  echo "test: stress: $rounds rounds in $((SECONDS - began)) s" >&2
  kill "${hogs[@]}" 2>/dev/null || true
  report_tests
  if [ "$status" -ne 0 ]; then
    echo "test: stress: a failure in $rounds rounds (above); each is a bug, in the product or in the test" >&2
  fi
  return "$status"
}

# The tests run and failed, summed over every `swift test` of the run, as one closing line.
report_tests() {
  local ran failed
  ran=$(awk '{s += $2} END {print s + 0}' "$work/counts")
  failed=$(awk '{s += $3} END {print s + 0}' "$work/counts")
  if [ -s "$work/failures" ]; then
    echo "test: what failed:" >&2
    cat "$work/failures" >&2
  fi
  # What nginx-rtmp logged at alert level or above (a worker that crashed cuts every stream of its server): the
  # private servers' lines, kept as each stopped, and the shared server's, still running (nginx-rtmp.sh alerts).
  # Under set -e: none of these may fail the run.
  local alerts
  alerts=$({ cat "$work/nginx-alerts"
             [ -x "$work/nginx-rtmp-ctl" ] && "$work/nginx-rtmp-ctl" alerts; } 2>/dev/null || true)
  if [ -n "$alerts" ]; then
    echo "test: nginx-rtmp logged alerts:" >&2
    printf '%s\n' "$alerts" | sed -n '1,20s/^/  /p' >&2
  fi
  echo "test: tests per target (run/failed): $(awk '{split($1, p, "-"); t[p[1]] += $2; f[p[1]] += $3} END {for (k in t) printf "%s %d/%d  ", k, t[k], f[k]}' "$work/counts")" >&2
  if [ -d "$kept_logs" ]; then
    echo "test: the whole logs of what failed are kept in $kept_logs" >&2
    # The newest 20 runs' folders stay.
    find "$kept_logs_base" -mindepth 1 -maxdepth 1 -type d -printf '%T@ %p\n' | sort -rn | tail -n +21 | cut -d' ' -f2- \
      | while read -r old; do rm -rf "$old"; done
  fi
  echo "tests: $((ran - failed)) passed, $failed failed"
}

# The end of a full run: each stage's time, what failed, the closing line; the exit status.
finish_run() {
  local failed_stages
  echo "test: stage times (s): $(awk '{printf "%s %s%s  ", $1, $2, ($3 == "0" ? "" : " FAILED")}' "$work/stages")total $((SECONDS - started_at))" >&2
  failed_stages=$(awk '$3 != "0" {print $1}' "$work/stages" | tr '\n' ' ')
  report_tests
  if [ -n "$failed_stages" ]; then
    echo "test: failed in $failed_stages" >&2
    exit 1
  fi
  echo "test: every stage passed" >&2
}

# The from-source worker image (`source-image`) proves that the stack builds from source as users build it. The tests'
# own build compiles every Swift source of the tree; what only this image's build meets is its recipe: docker/ (the
# Dockerfiles and the build script), Package.swift, the C modules under Sources/ (their maps and headers name the
# system libraries a build needs), and the scripts that build and check the image. A full run builds the image when the
# digest of those files, with the toolchain's and the C libraries' versions, differs from the last one that built and
# passed on this machine: its release build of what changed cost every change to Sources/ minutes of CPU beside the
# tests and the other builds.
# SLUICE_TEST_SOURCE_IMAGE=1 builds it regardless, 0 never.
source_image_record=${SLUICE_IMAGE_CACHE:-/var/cache/sluice}/source-image.recipe
# Named here, not by SLUICE_WORKER_IMAGE from the caller's environment, so the image recorded is the image built.
source_image=localhost/sluice:source
source_image_recipe() {
  {
    { git -C "$root" ls-files docker Package.swift scripts/lib/container-images.sh scripts/lib/container-stack.sh
      git -C "$root" ls-files Sources | grep -v '\.swift$'; } | LC_ALL=C sort | while IFS= read -r path; do
      printf '%s %s\n' "$(sha256sum < "$root/$path" | cut -c1-64)" "$path"
    done
    swift -version 2>&1
    pkg-config --modversion libavformat libavcodec libavutil libswscale libswresample librabbitmq sqlite3 2>&1
  } | sha256sum | cut -c1-64
}
# Whether the image must be built: prints why (nothing when the recorded recipe is this tree's and its image is there).
source_image_due() {
  local recipe recorded image
  [ "${SLUICE_TEST_SOURCE_IMAGE:-}" = 1 ] && { echo "SLUICE_TEST_SOURCE_IMAGE=1"; return; }
  recipe=$(source_image_recipe)
  [ -s "$source_image_record" ] || { echo "no image built from source here yet"; return; }
  read -r recorded image _ < "$source_image_record"
  [ "$recorded" = "$recipe" ] || { echo "its recipe changed since $(cut -d' ' -f3- "$source_image_record")"; return; }
  [ "$(podman image inspect --format '{{.Id}}' "$source_image" 2>/dev/null)" = "$image" ] \
    || echo "the image built from this recipe is no longer in the image store"
}
# The stage: the image built and checked, then its recipe recorded with the image's id. (Run as `cmd || status=$?`,
# where `set -e` does not hold: a failed build returns before anything is recorded.)
source_image_stage() {
  local recipe
  recipe=$(source_image_recipe)
  SLUICE_WORKER_IMAGE=$source_image scripts/stack image-source --containers || return
  mkdir -p "$(dirname "$source_image_record")"
  echo "$recipe $(podman image inspect --format '{{.Id}}' "$source_image") $(date -u +%FT%TZ) source id $(docker/source-id | cut -c1-16)" \
    > "$source_image_record"
}
