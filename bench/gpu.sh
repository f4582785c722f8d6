#!/usr/bin/env bash
# The benchmark suite on a lent GPU (H200): ONE call of the device tool, under 8 minutes, the
# table printed LAST and the result JSON written under $OUT.
#
# Here first (no GPU needed), after `scripts/setup.sh` has built and installed the package:
#     bash bench/gpu.sh --prepare
# copies the built extension loopfuse._core (CUDA_BUILT must be True) and the shared libraries it
# needs beyond glibc/libstdc++ into build-bench-gpu/ (a few MB). Then the device tool:
#     run(command="bash bench/gpu.sh", carry=["build-bench-gpu"], timeout_s=540)
# and copy the JSON it brings back into bench/results/, then `bench/report.py`.
#
# There: python3 with jax 0.11.2 for CUDA (no haiku/tjax: the seed benchmarks use the haiku-free
# copy tests/gpu/seed_jax.py and say so in their "note"). The package's Python files come from
# this tree and the extension from build-bench-gpu/, through PYTHONPATH. The suite stops starting
# benchmarks after LF_BENCH_BUDGET_S (default 330 s) and records the rest as skipped; each
# benchmark has 100 s. Writes $OUT/<machine>-<date>.json and $OUT/bench.log (the progress lines).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CARRY=$ROOT/build-bench-gpu

if [ "${1:-}" = "--prepare" ]; then
  set -e
  core=$("$ROOT/.venv/bin/python" -c 'import loopfuse._core as c; assert c.CUDA_BUILT; print(c.__file__)')
  rm -rf "$CARRY"
  mkdir -p "$CARRY/lib"
  cp "$core" "$CARRY/"
  ldd "$core" | awk '/=> \// {print $3}' |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$CARRY/lib/"; done
  du -sh "$CARRY"
  echo "next: run(command=\"bash bench/gpu.sh\", carry=[\"build-bench-gpu\"], timeout_s=540)"
  exit 0
fi

OUT=${OUT:-$ROOT/gpu-bench-out}
mkdir -p "$OUT"
WORK=$(mktemp -d /tmp/lfbench.XXXX)
trap 'rm -rf "$WORK"' EXIT
PYTHON=${PYTHON:-python3}

# The package: this tree's Python files beside the carried extension.
mkdir -p "$WORK/py/loopfuse" "$WORK/lib"
ln -s "$ROOT"/python/loopfuse/*.py "$WORK/py/loopfuse/"
core=$(ls "$CARRY"/_core*.so 2>/dev/null | head -1)
if [ -z "$core" ]; then
  echo "no $CARRY/_core*.so: run 'bash bench/gpu.sh --prepare' here and carry build-bench-gpu"
  exit 1
fi
ln -s "$core" "$WORK/py/loopfuse/"
# Only the carried libraries this machine lacks go on the loader's path.
source "$ROOT/tests/gpu/carried_libs.sh"
use_carried_libs "$CARRY/lib" "$WORK/lib"
export PYTHONPATH="$WORK/py${PYTHONPATH:+:$PYTHONPATH}"
export LOOPFUSE_CACHE_DIR=$WORK/cache

{
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$PYTHON" --version
  "$PYTHON" -c 'import jax, loopfuse._core as c; print("jax", jax.__version__, jax.devices(), "CUDA_BUILT", c.CUDA_BUILT)'
} 2>&1 | tee "$OUT/bench.log"

# stderr (progress lines, tracebacks) to the log; stdout (the table) last.
# LF_BENCH_PLATFORM=cpu LF_BENCH_ARGS=--quick try the script on a machine without a GPU.
# shellcheck disable=SC2086
"$PYTHON" "$ROOT/bench/run.py" --platform "${LF_BENCH_PLATFORM:-cuda}" --out-dir "$OUT" \
  --total-budget-s "${LF_BENCH_BUDGET_S:-330}" --budget-s 100 --timing-s 2 --max-reps 20 \
  ${LF_BENCH_ARGS:-} 2>>"$OUT/bench.log" >"$WORK/table.txt"
status=$?
echo "== progress (tail of $OUT/bench.log)"
grep -E '^  [a-z_0-9]+/' "$OUT/bench.log" | tail -60
echo
echo "================ loopfuse GPU benchmarks (exit $status) ================"
cat "$WORK/table.txt"
