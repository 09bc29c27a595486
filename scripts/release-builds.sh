#!/usr/bin/env bash
# The release builds `make test` runs beside its test suite (scripts/test.sh says why), at the lowest CPU and I/O
# priority: `deb`, the Debian packages' three binaries (scripts/make-deb.sh --build-only); `fuzz`, then the fuzz
# targets in the same scratch (FUZZ_BUILD_ONLY=1 scripts/fuzz.sh). The steps that use them are told to take what
# these left (MAKE_DEB_PREBUILT=1, FUZZ_PREBUILT=1).
set -euo pipefail
cd "$(dirname "$0")/.."
low=(nice -n 19)
# SCHED_IDLE as well, not just nice 19: the daemon's automatic jobs (auto_transcribe) run SCHED_IDLE, and a
# nice-19 compile on every core starves them; the tests that wait for one then time out. Among SCHED_IDLE
# tasks they share.
chrt --idle 0 true 2>/dev/null && low=(chrt --idle 0 nice -n 19)
ionice -c3 true 2>/dev/null && low+=(ionice -c3)
for step in "$@"; do
  case "$step" in
    deb) "${low[@]}" ./scripts/make-deb.sh --build-only ;;
    fuzz) FUZZ_BUILD_ONLY=1 "${low[@]}" ./scripts/fuzz.sh ;;
    *) echo "release-builds: unknown step $step" >&2; exit 2 ;;
  esac
  # STEP_MARKS: a folder where each step done leaves `<step>.done`, so that what uses it can start while the
  # next step builds (scripts/test.sh runs the Debian package test while the fuzz targets build).
  [ -z "${STEP_MARKS:-}" ] || touch "$STEP_MARKS/$step.done"
done
