#!/usr/bin/env bash
# Builds the libFuzzer targets with -sanitize=fuzzer,address and fuzzes each for a bounded time
# (FUZZ_SECONDS, default 60) starting from the committed corpus. Fails on any crash, leak or timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
scratch=.build-fuzz
# SwiftPM gives every executable its own main (aliased with --defsym), which clashes with the main of the
# libFuzzer runtime that -sanitize=fuzzer links whole. So: coverage instrumentation and ASan from swiftc,
# libFuzzer *without* its main, entered through LLVMFuzzerRunDriver from the target's own @main.
rt=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/clang
rt=$(ls -d "$rt"/*/lib/linux | head -1)
flags=(-Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table
       -Xswiftc -DFUZZING -Xlinker "$rt/libclang_rt.fuzzer_no_main-x86_64.a" -Xlinker -lstdc++)
for target in rpc push; do
  swift build --scratch-path "$scratch" "${flags[@]}" --product "tnotes-fuzz-$target" 2>&1 \
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
