#!/usr/bin/env bash
# The whole test suite: unit and integration tests against real processes, sockets and SQLite files.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
