#!/usr/bin/env bash
# Fuzzes the three libFuzzer targets for a bounded time (FUZZ_SECONDS, default 60) each, from the committed
# corpus. Fails on any crash, memory error or timeout. FUZZ_TARGETS (default "rpc push render") picks some.
#
# - tnotes-fuzz-rpc (JSON-RPC lines through the daemon's own method table over a real store): a build with
#   coverage on this package's own modules and no ASan, fuzzed by two libFuzzer workers (one per core of the
#   2-core machines this runs on) that share one corpus. Every input it kept is then replayed through an ASan
#   build of the same target.
# - tnotes-fuzz-push (push bodies): ASan and coverage, one worker.
# - tnotes-fuzz-render (stored records and publication snapshots through every renderer: the public page and
#   its JSON, the CLI's views, exports and progress lines, the summariser, the assistant, the scripture scan,
#   ClockTime): the coverage build, two workers, like the RPC target; no ASan (see below).
#
# Why the RPC target runs without ASan while fuzzing: its inputs are many small JSON-RPC lines, and Swift code
# allocates for each; ASan's allocator (quarantine, poisoning, stack depot) was 35 % of the target's time and
# coverage of the dependencies 17 % (perf, 2026-11-25): 4.7 k inputs/s with ASan, 13-14 k/s without. Swift
# still traps on every bounds, overflow and precondition failure, and the corpus replay under ASan catches
# memory errors in the unsafe code (the JSON parser) on every input that found new coverage. The push target
# fuzzes that same parser under ASan at millions of inputs a minute.
#
# The render target has no ASan build at all: its work is Swift string handling (no unsafe code of its own but
# the JSON writer and parser the other two targets cover under ASan), and its rate without ASan is what the
# issue asks for (at least 100,000 inputs in 60 s on 2 cores, printed below). An ASan build of it would
# compile the server's modules a third time, for code with nothing unsafe in it.
#
# Only this package's own modules are instrumented (coverage, and ASan where named): Package.swift's
# TNOTES_FUZZ says why.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
wanted() { [[ " ${FUZZ_TARGETS:-rpc push render} " == *" $1 "* ]]; }
# SwiftPM gives every executable its own main (aliased with --defsym), which clashes with the main of the
# libFuzzer runtime that -sanitize=fuzzer links whole. So: coverage instrumentation from swiftc, libFuzzer
# *without* its main, entered through LLVMFuzzerRunDriver from the target's own @main.
rt=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/clang
rt=$(ls -d "$rt"/*/lib/linux | head -1)
link=(-Xlinker "$rt/libclang_rt.fuzzer_no_main-x86_64.a" -Xlinker -lstdc++)
# Optimized (-O keeps every precondition): 3-4x more inputs a minute than a debug build.
# The scratch and flags of the packages' release build (scripts/make-deb.sh; --static-swift-stdlib changes every
# Swift compile command): the dependencies are compiled once for the packages and both fuzz builds, and
# TNOTES_FUZZ (Package.swift) recompiles only this package's own modules.
# FUZZ_BUILD_ONLY=1: build and stop; FUZZ_PREBUILT=1: fuzz with what an earlier FUZZ_BUILD_ONLY=1 built
# (scripts/test.sh builds beside the test suite).
scratch=.build-release
bins=$scratch/fuzz
mkdir -p "$bins"
build() {  # mode product…
  local mode=$1; shift
  local p
  for p in "$@"; do
    TNOTES_FUZZ=$mode swift build -c release --scratch-path "$scratch" --static-swift-stdlib "${link[@]}" --product "$p" 2>&1 \
      | grep -v "Cannot export local symbol" | tail -2
    # The two modes write the same path: each binary is kept under its mode's name.
    cp "$scratch/release/$p" "$bins/$p-$mode"
  done
}
# SwiftPM takes one --product a call; a second call only plans (seconds) and builds what is new.
cov=(); asan=()
if wanted rpc; then cov+=(tnotes-fuzz-rpc); asan+=(tnotes-fuzz-rpc); fi
if wanted render; then cov+=(tnotes-fuzz-render); fi
if wanted push; then asan+=(tnotes-fuzz-push); fi
if [ "${FUZZ_PREBUILT:-0}" != 1 ]; then
  [ ${#cov[@]} -eq 0 ] || build coverage "${cov[@]}"
  [ ${#asan[@]} -eq 0 ] || build asan "${asan[@]}"
fi
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && exit 0
for p in "${cov[@]/%/-coverage}" "${asan[@]/%/-asan}"; do
  [ -x "$bins/$p" ] || { echo "fuzz: $bins/$p is missing (FUZZ_PREBUILT=1 with no FUZZ_BUILD_ONLY=1 before?)" >&2; exit 1; }
done

# Leak detection is off: the Swift runtime keeps process-wide caches (metadata, the concurrency pool) that
# LeakSanitizer reports on the first input. Memory errors (overflow, use-after-free) still abort.
export ASAN_OPTIONS=detect_leaks=0
# Swift's own backtracer would take the trap of a failed precondition before libFuzzer's handler, and then no
# crash-* input is written. (-O drops precondition messages: replay a failing input with the debug build,
# `swift build && .build/debug/tnotes-fuzz-rpc FILE`, for the message and a backtrace.)
export SWIFT_BACKTRACE=enable=no
common=(-timeout=10 -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1)

# The inputs that failed, then the end of the log; exits.
fail() {  # name work log
  echo "fuzz target $1 FAILED (inputs and logs kept in $2); the input that failed:"
  for f in "$2"/crash-* "$2"/timeout-* "$2"/oom-*; do [ -e "$f" ] && od -c "$f" | head -20; done
  tail -40 "$3"
  echo "replay it with the debug build for the message and a backtrace: .build/debug/tnotes-fuzz-<target> FILE"
  exit 1
}

# Working files on tmpfs when there is one: libFuzzer writes every new corpus entry as a file.
workdir() { mktemp -d -p "$( [ -d /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")"; }

# Two libFuzzer workers (one per core) of a coverage build over one corpus, in $work; prints the inputs run;
# exits through `fail` when a worker failed.
two_workers() {  # name
  cp -r "Tests/Fuzz/corpus-$1/." "$work/corpus"
  echo "fuzzing $1 for ${seconds}s (2 workers)"
  set +e
  (cd "$work" && "$OLDPWD/$bins/tnotes-fuzz-$1-coverage" -jobs=2 -workers=2 -max_total_time="$seconds" "${common[@]}" \
     -artifact_prefix="$work/" "$work/corpus" > "$work/log" 2>&1)
  local status=$?
  set -e
  for w in "$work"/fuzz-*.log; do
    grep -E "^(INFO: Seed|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" "$w" | sed "s|^|$(basename "$w" .log): |" || true
  done
  local total
  total=$(cat "$work"/fuzz-*.log | awk '/^stat::number_of_executed_units:/ { n += $2 } END { print n + 0 }')
  echo "$1: ${total:-0} inputs in ${seconds}s over both workers"
  # Issue #49 asks the render target for at least 100,000 inputs in 60 s on a 2-core machine. Reported, not
  # enforced: a CI machine shared with other work runs slower, and a red run over that would land nothing.
  if [ "$1" = render ] && [ "$seconds" -ge 60 ]; then
    if [ "${total:-0}" -ge $((100000 * seconds / 60)) ]; then echo "render rate: at or above 100,000 inputs a minute"
    else echo "render rate: BELOW 100,000 inputs a minute (a busy machine, or a slower renderer: see perf in fuzz.sh)"; fi
  fi
  if [ "$status" -ne 0 ]; then
    # The worker that failed is the one whose log reports it.
    local failed
    failed=$(grep -lE "==[0-9]+==ERROR|deadly signal|Fatal error|timeout after|out-of-memory" "$work"/fuzz-*.log | head -1)
    fail "$1" "$work" "${failed:-$work/log}"
  fi
}

# --- RPC: two workers over one corpus, then an ASan replay of that corpus.
if wanted rpc; then
  work=$(workdir)
  two_workers rpc
  kept=$(ls "$work/corpus" | wc -l)
  echo "replaying the $kept kept rpc inputs under ASan"
  set +e
  "$bins/tnotes-fuzz-rpc-asan" -runs=0 "${common[@]}" -artifact_prefix="$work/" "$work/corpus" > "$work/replay.log" 2>&1
  status=$?
  set -e
  [ "$status" -eq 0 ] || fail "rpc (ASan replay)" "$work" "$work/replay.log"
  rm -rf "$work"
  echo "fuzz rpc: no crash"
fi

# --- push: one ASan worker.
if wanted push; then
  work=$(workdir)
  cp -r Tests/Fuzz/corpus-push/. "$work/corpus"
  echo "fuzzing push for ${seconds}s"
  set +e
  "$bins/tnotes-fuzz-push-asan" -max_total_time="$seconds" "${common[@]}" -artifact_prefix="$work/" "$work/corpus" > "$work/log" 2>&1
  status=$?
  set -e
  grep -E "^(INFO: Seed|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" "$work/log" || true
  [ "$status" -eq 0 ] || fail push "$work" "$work/log"
  rm -rf "$work"
  echo "fuzz push: no crash"
fi

# --- render: two workers over one corpus.
if wanted render; then
  work=$(workdir)
  two_workers render
  rm -rf "$work"
  echo "fuzz render: no crash"
fi
