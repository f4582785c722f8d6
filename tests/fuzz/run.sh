#!/usr/bin/env bash
# Builds the HLO parser fuzzer with clang (ASan + UBSan + libFuzzer) in build-fuzz and runs it
# for the given number of seconds (default 60), seeded with tests/hlo/testdata and
# tests/malformed. Exits non-zero if the fuzzer finds a crash.
#   usage: tests/fuzz/run.sh [seconds]
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build-fuzz"

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DLOOPFUSE_FUZZ=ON -DLOOPFUSE_TESTS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
cmake --build "$build" --target fuzz_hlo_parser -j"$(nproc)"

corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
cp "$root"/tests/hlo/testdata/*.hlo "$root"/tests/malformed/*.hlo "$corpus"/
cd "$build"
# The corpus folder keeps what the fuzzer learns between runs; crash-* files land in $build.
"$build/tests/fuzz/fuzz_hlo_parser" "$corpus" -max_total_time="$seconds" -max_len=65536 \
  -timeout=10 -rss_limit_mb=4096 -print_final_stats=1
