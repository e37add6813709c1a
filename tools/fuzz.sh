#!/usr/bin/env bash
# tools/fuzz.sh [SECONDS] [BUILD_DIR] — runs every libFuzzer target of fuzz/ for SECONDS
# each (default 20), from a scratch copy of its seed corpus (fuzz/corpus/<target>/, so the
# repository is not modified) with its dictionary (fuzz/dict/<target>.dict) when there is one.
#
# BUILD_DIR (default build/fuzz) is configured with clang++ and -DGSEARCH_FUZZ=ON when it
# has no CMakeCache.txt yet; the targets are then (re)built there. Prints, per target, the
# inputs run (libFuzzer's stat::number_of_executed_units) and the outcome, and exits 1 when
# any target crashed, leaked, ran out of memory or timed out. The input that did it is kept
# in BUILD_DIR/fuzz-artifacts/<target>/ (crash-*, leak-*, oom-*, timeout-*), with the log
# next to it; reproduce with `BUILD_DIR/bin/fuzz_<target> <that file>`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
build="${2:-build/fuzz}"

if ! command -v clang++ >/dev/null; then
  echo "tools/fuzz.sh: clang++ not found (libFuzzer needs clang)" >&2
  exit 2
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DGSEARCH_FUZZ=ON \
    -DGSEARCH_BUILD_TESTS=OFF -DGSEARCH_BUILD_EXAMPLES=OFF -DGSEARCH_BUILD_BENCHMARKS=OFF \
    -DGSEARCH_INSTALL=OFF -DGSEARCH_CUDA=OFF >/dev/null
fi
cmake --build "$build" --target fuzzers -j"$(nproc)"

scratch="$(mktemp -d "${TMPDIR:-/tmp}/gsearch-fuzz-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
artifacts="$build/fuzz-artifacts"
rm -rf "$artifacts"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

failed=0
summary=""
shopt -s nullglob
targets=("$build"/bin/fuzz_*)
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "tools/fuzz.sh: no fuzz targets in $build/bin" >&2
  exit 2
fi
for exe in "${targets[@]}"; do
  name="${exe##*/fuzz_}"
  mkdir -p "$scratch/$name" "$artifacts/$name"
  if [[ -d "fuzz/corpus/$name" ]]; then cp -R "fuzz/corpus/$name/." "$scratch/$name/"; fi
  args=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048
        -max_len=4096 -artifact_prefix="$artifacts/$name/")
  if [[ -f "fuzz/dict/$name.dict" ]]; then args+=(-dict="fuzz/dict/$name.dict"); fi
  log="$artifacts/$name/fuzz.log"
  echo "== fuzz_$name (${seconds} s)"
  status=0
  "$exe" "${args[@]}" "$scratch/$name" >"$log" 2>&1 || status=$?
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)"
  found=("$artifacts/$name"/crash-* "$artifacts/$name"/leak-* "$artifacts/$name"/oom-* \
         "$artifacts/$name"/timeout-* "$artifacts/$name"/slow-unit-*)
  if [[ $status -ne 0 || ${#found[@]} -gt 0 ]]; then
    failed=1
    outcome="FAILED (exit $status): ${found[*]:-no input saved}; log $log"
    grep -m1 -E 'ERROR: |runtime error|FUZZ_CHECK|deadly signal' "$log" || true
  else
    outcome="ok"
    rmdir "$artifacts/$name" 2>/dev/null || true
  fi
  summary+="$(printf '%-16s %12s  %s' "$name" "${execs:-?}" "$outcome")"$'\n'
done

echo
printf '%-16s %12s  %s\n' target executions outcome
printf '%s' "$summary"
exit $failed
