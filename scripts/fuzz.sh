#!/usr/bin/env bash
# Builds the libFuzzer targets with -sanitize=fuzzer,address and fuzzes each for a bounded time
# (FUZZ_SECONDS, default 60) starting from the committed corpus. Fails on any crash, leak or timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
scratch=.build-fuzz
for target in rpc push; do
  swift build --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product "tnotes-fuzz-$target" 2>&1 \
    | grep -v "Cannot export local symbol" | tail -3
  work=$(mktemp -d)
  cp -r "Tests/Fuzz/corpus-$target/." "$work/"
  echo "fuzzing $target for ${seconds}s"
  "$scratch/debug/tnotes-fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "$work" 2>&1 \
    | grep -E "^(INFO: Seed|#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY)" || true
  status=${PIPESTATUS[0]}
  rm -rf "$work"
  if [ "$status" -ne 0 ]; then echo "fuzz target $target failed (status $status)"; exit 1; fi
  echo "fuzz $target: no crash"
done
