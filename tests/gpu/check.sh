#!/usr/bin/env bash
# The GPU check: ONE call on a lent GPU machine, under 5 minutes, a short table printed LAST.
# See tests/gpu/README.md. Prepare here first (tests/gpu/prepare.sh), then run there with
# carry ["build-gpu/dist"] and the command `bash tests/gpu/check.sh`.
#
# Steps (each skipped once the time budget is spent; the table says so):
#   1. binaries: build-gpu/dist from prepare.sh; else try to build here, and name what is missing
#   2. the CUDA gtests (tests/runtime/cuda_runtime_test.cc) with the GPU present
#   3. every corpus program (tests/programs/*.hlo and *.cuda.hlo): loopfuse run --target cuda
#      --check, in the mode the planner chose (thread, block or grid)
#      and the five denormal edge programs against jax.jit on this GPU (tests/gpu/gpu_expected.py)
#   4. the seed program timed through loopfuse beside jax.jit: batch 1, vmap 1024, vmap 4096 (the
#      vmapped ones batch-mapped: one thread per chain)
#   5. lf.jit on CUDA: tests/python/test_jit_cuda.py with the carried extension (build-gpu/dist/py),
#      and the seed program through lf.jit beside jax.jit (batch 1 and vmapped over 4096 chains)
#   6. compute-sanitizer memcheck and racecheck on six programs: five in a block of 32 threads, the
#      vmapped Langevin sampler batch-mapped
#   7. the corpus batch-mapped wherever the analysis allows (LOOPFUSE_BATCH=on)
#   8. the corpus again in one block of 128 threads (the emitter's barriers under real parallelism)
# Logs go to $OUT (at most 8 files come back): summary.txt build.log tests.log (gtests, then
# pytest) corpus_plan.log timing.log (step 4, then step 5's) sanitizer.log corpus_batch.log
# corpus_t128.log.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/gpu-out}
mkdir -p "$OUT"
DIST=${LF_GPU_DIST:-$ROOT/build-gpu/dist}
WORK=$(mktemp -d /tmp/lfcheck.XXXX)
BUDGET=${LF_CHECK_BUDGET_S:-300}
START=$(date +%s)
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
row() { printf '%-34s %s\n' "$1" "$2" >>"$SUMMARY"; }
elapsed() { echo $(($(date +%s) - START)); }
time_left() { [ "$(elapsed)" -lt "$BUDGET" ]; }
finish() {
  row "total seconds" "$(elapsed)"
  echo
  echo "================ loopfuse GPU check ================"
  cat "$SUMMARY"
  rm -rf "$WORK"
  exit 0
}

# --- 1. binaries -------------------------------------------------------------------------------
{
  echo "== machine"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv 2>&1
  command -v compute-sanitizer nvcc python3 cmake g++ 2>&1
  ldconfig -p | grep -E 'libnvrtc|libcuda\.so' 2>&1
} >"$OUT/build.log"
row "GPU" "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# The /work/main path is compiled into test_runtime (LF_SOURCE_DIR): point it at this tree.
if [ ! -e /work/main ] && [ -w / ]; then mkdir -p /work && ln -s "$ROOT" /work/main; fi

if [ -x "$DIST/loopfuse" ]; then
  # Put on the loader's path only the carried libraries this machine lacks.
  source "$ROOT/tests/gpu/carried_libs.sh"
  use_carried_libs "$DIST/lib" "$WORK/lib"
  echo "== carried libraries used: $(ls "$WORK/lib" | tr '\n' ' ')" >>"$OUT/build.log"
  LF=$DIST/loopfuse
  TOOL=$DIST/lf_cuda_tool
  TESTS=$DIST/test_runtime
  export LOOPFUSE_CACHE_DIR=$DIST/cache
else
  echo "== no $DIST: building here" >>"$OUT/build.log"
  B=$WORK/build
  if cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release >>"$OUT/build.log" 2>&1 &&
    cmake --build "$B" --target loopfuse test_runtime lf_cuda_tool -j16 >>"$OUT/build.log" 2>&1; then
    LF=$B/loopfuse TOOL=$B/tests/gpu/lf_cuda_tool TESTS=$B/tests/test_runtime
  else
    missing=$(grep -oE 'CLI11|nlohmann_json|libzip|xxhash|GTest|XXHASH[A-Z_]*' "$OUT/build.log" | sort -u | tr '\n' ' ')
    row "build" "FAILED (missing: ${missing:-see build.log}); run tests/gpu/prepare.sh and carry build-gpu/dist"
    finish
  fi
  export LOOPFUSE_CACHE_DIR=$WORK/cache
fi
if ! "$LF" version >>"$OUT/build.log" 2>&1; then
  row "binaries" "CANNOT RUN: $(ldd "$LF" | grep 'not found' | tr -s ' \t\n' ' ')"
  finish
fi
# NVRTC: the loader's path or the toolkit; else any libnvrtc.so.13/12 on this machine.
if ! "$TOOL" warm-cache sm_90 tests/programs/loop_while_newton.hlo >>"$OUT/build.log" 2>&1; then
  found=$(find /usr/local /opt /usr/lib -name 'libnvrtc.so.1[23]' 2>/dev/null | head -1)
  [ -n "$found" ] && export LOOPFUSE_NVRTC_PATH=$found
  echo "== LOOPFUSE_NVRTC_PATH=${found:-none found}" >>"$OUT/build.log"
fi
row "binaries" "ok ($( [ -x "$DIST/loopfuse" ] && echo carried || echo built here))"

# --- 2. the CUDA gtests ------------------------------------------------------------------------
if "$TESTS" --gtest_filter='Cubin*:*CubinForSm90*:CudaDriver*:CudaExecutable*:*OnGpu*' \
  >"$OUT/tests.log" 2>&1; then
  row "cuda gtests" "PASS ($(grep -c '^\[       OK' "$OUT/tests.log") ok, $(grep -c '^\[  SKIPPED \].*ms)$' "$OUT/tests.log") skipped)"
else
  row "cuda gtests" "FAIL: $(grep '^\[  FAILED  \] [A-Za-z]' "$OUT/tests.log" | head -5 | awk '{print $4}' | tr '\n' ' ')"
fi

# --- 3 and 6. the corpus -----------------------------------------------------------------------
# One program: prints "<STATUS> <file>" and leaves its output in $WORK/runs/<threads>/<file>.log.
run_one() {
  local file=$1 threads=$2 base
  base=$(basename "$file" .hlo)
  base=${base%.cuda}
  local log=$WORK/runs/$threads/$(basename "$file").log
  # "plan": the mode and threads the planner chose; "batch": batch-mapped wherever possible; a
  # number: block mode with that many threads.
  local env=()
  case $threads in
    plan) ;;
    batch) env=(LOOPFUSE_BATCH=on) ;;
    *) env=(LOOPFUSE_CUDA_MODE=block LOOPFUSE_CUDA_BLOCK_THREADS="$threads") ;;
  esac
  env "${env[@]}" timeout "$RUN_TIMEOUT" "$LF" run "$file" \
    --inputs "tests/programs/$base.npz" --target cuda --check >"$log" 2>&1
  case $? in
    0) echo "PASS $file" ;;
    1) echo "MISMATCH $file" ;;
    124) echo "TIMEOUT $file" ;;
    *) echo "ERROR $file" ;;
  esac
}
export -f run_one
export LF WORK

corpus() {  # threads, log name, timeout per program
  local threads=$1 log=$OUT/$2
  export RUN_TIMEOUT=$3
  mkdir -p "$WORK/runs/$threads"
  ls tests/programs/*.hlo | xargs -P 8 -I{} bash -c "run_one {} $threads" | sort >"$WORK/status"
  {
    cat "$WORK/status"
    grep -v '^PASS' "$WORK/status" | while read -r status file; do
      echo "=== $status $file"
      tail -n 15 "$WORK/runs/$threads/$(basename "$file").log"
    done
  } >"$log"
  local total pass edges
  total=$(wc -l <"$WORK/status")
  pass=$(grep -c '^PASS' "$WORK/status")
  edges=$(grep '^MISMATCH' "$WORK/status" | grep -cE "/($DENORMAL_EDGES)(\.cuda)?\.hlo")
  row "corpus --check, $threads thread(s)" "$pass/$total pass; $(grep -c '^MISMATCH' "$WORK/status") mismatch ($edges of the denormal edge programs), $(grep -c '^ERROR' "$WORK/status") error, $(grep -c '^TIMEOUT' "$WORK/status") timeout"
}
# These programs feed denormals on purpose. Their expected values are XLA:CPU's, which flushes
# denormals; the GPU keeps them, as XLA:GPU does, so a mismatch at those elements is expected (see
# docs/ARCHITECTURE.md, "The CUDA emulator"). The logs show which elements differ.
DENORMAL_EDGES="elementwise_edge_values|elementwise_binary_edges|elementwise_f64_edges|elementwise_rounding|convert_float_to_int"

if time_left; then corpus plan corpus_plan.log 60; else row "corpus, planned modes" "skipped (time)"; fi

# The same denormal edge programs against jax.jit on THIS GPU (XLA:GPU keeps denormals too):
# gpu_expected.py writes their inputs with XLA:GPU's outputs; the log is appended to corpus_plan.log.
if time_left; then
  edges=${DENORMAL_EDGES//|/ }
  {
    echo
    echo "== the denormal edge programs against jax.jit on this GPU"
    XLA_PYTHON_CLIENT_PREALLOCATE=false timeout 120 python3 tests/gpu/gpu_expected.py \
      --out "$WORK/gpu_expected" $edges 2>&1 | grep -v '^WARNING'
  } >>"$OUT/corpus_plan.log"
  pass=0 total=0 bad=""
  for name in $edges; do
    total=$((total + 1))
    if [ -f "$WORK/gpu_expected/$name.npz" ] &&
      timeout 60 "$LF" run "tests/programs/$name.hlo" --inputs "$WORK/gpu_expected/$name.npz" \
        --target cuda --check >"$WORK/edge.log" 2>&1; then
      pass=$((pass + 1))
    else
      bad="$bad $name"
      { echo "=== against XLA:GPU: $name"; tail -n 20 "$WORK/edge.log"; } >>"$OUT/corpus_plan.log"
    fi
  done
  row "denormal edges vs jax.jit on GPU" "$pass/$total pass${bad:+; not:$bad}"
fi

# --- 4. timing: the seed program, loopfuse beside jax.jit --------------------------------------
if time_left; then
  {
    export XLA_PYTHON_CLIENT_PREALLOCATE=false
    timeout 150 python3 tests/gpu/seed_jax.py --out "$WORK/seed" --lower 4096 \
      --time 1 1024 4096 --repeat 3 2>&1 | grep -v '^WARNING'
    bench() {
      local env=()
      [ "$2" != plan ] && env=(LOOPFUSE_CUDA_MODE=block LOOPFUSE_CUDA_BLOCK_THREADS="$2")
      timeout 60 env "${env[@]}" "$TOOL" bench "$1" "$3" "$4" 2>&1 | sed "s/^/threads $2 /"
    }
    bench tests/programs/seed_x64.cuda.hlo plan tests/programs/seed_x64.npz 5
    # The planned launch (batch-mapped: one thread per chain), then the whole batch in one block
    # for comparison (the log has both; the table shows the planned one).
    for t in plan 256; do
      bench tests/programs/seed_vmap1024.cuda.hlo $t tests/programs/seed_vmap1024.npz 3
      [ -f "$WORK/seed/seed_vmap4096.hlo" ] &&
        bench "$WORK/seed/seed_vmap4096.hlo" $t "$WORK/seed/seed_vmap4096.npz" 3
    done
  } >"$OUT/timing.log" 2>&1
  ms() { grep -E "$1" "$OUT/timing.log" | awk '{for (i = 1; i < NF; i++) if ($i == "median_ms") print $(i + 1)}' | sort -g | head -1; }
  chk() { grep "$1" "$OUT/timing.log" | grep -q MISMATCH && echo " MISMATCH"; }
  printf -v header '%-12s %-14s %-14s %s' "" "loopfuse ms" "jax.jit ms" "jax/loopfuse"
  row "timing (median, best launch)" "$header"
  for case in "1:seed_x64.cuda.hlo" "1024:seed_vmap1024.cuda.hlo" "4096:seed_vmap4096.hlo"; do
    b=${case%%:*} f=${case#*:}
    l=$(ms "threads plan .*$f") j=$(ms "jax batch $b ")
    ratio=$(awk -v l="${l:-0}" -v j="${j:-0}" 'BEGIN { if (l > 0 && j > 0) printf "%.1fx", j / l; else print "-" }')
    printf -v line '%-12s %-14s %-14s %s%s' "batch $b" "${l:--}" "${j:--}" "$ratio" "$(chk "$f")"
    row "" "$line"
  done
else
  row "timing" "skipped (time)"
fi

# --- 5. lf.jit on CUDA ---------------------------------------------------------------------------
# The package as a user meets it: this tree's Python files beside the extension prepare.sh carried
# (built here against this machine's jax 0.11.2, CUDA handler included), run by XLA's FFI.
jit_step() {
  local core
  core=$(ls "$DIST"/py/_core*.so 2>/dev/null | head -1)
  if [ -z "$core" ]; then
    row "lf.jit on CUDA" "skipped (no $DIST/py/_core*.so: see prepare.sh)"
    return
  fi
  mkdir -p "$WORK/py/loopfuse"
  ln -s "$ROOT"/python/loopfuse/*.py "$WORK/py/loopfuse/"
  ln -s "$core" "$WORK/py/loopfuse/"
  local pypath=$WORK/py
  # pytest: this machine's own, else the copy prepare.sh carried (pure Python).
  python3 -c 'import pytest' 2>/dev/null || pypath=$pypath:$DIST/py/site
  {
    echo
    echo "== lf.jit on CUDA: pytest tests/python/test_jit_cuda.py"
    JAX_PLATFORMS=${LF_CHECK_JAX_PLATFORMS:-cuda,cpu} XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=$pypath \
      timeout 200 python3 -m pytest -q -p no:cacheprovider -rfEs tests/python/test_jit_cuda.py
  } >>"$OUT/tests.log" 2>&1
  local result
  result=$(grep -E '[0-9]+ (passed|failed|error|skipped)' "$OUT/tests.log" | tail -1 | tr -d '=')
  row "lf.jit pytest (CUDA)" "${result:-no result (see tests.log)}"
  time_left || { row "lf.jit seed timing" "skipped (time)"; return; }
  {
    echo
    echo "== lf.jit: the seed program through lf.jit beside jax.jit"
    XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONPATH=$pypath timeout 150 \
      python3 tests/gpu/seed_jax.py --lf --time 1 4096 --repeat 3 2>&1 | grep -v '^WARNING' |
      sed 's/^/jit-step /'
  } >>"$OUT/timing.log" 2>&1
  local b l j c a
  for b in 1 4096; do
    l=$(grep "^jit-step lfjit batch $b " "$OUT/timing.log" | awk '{print $6}')
    j=$(grep "^jit-step jax batch $b " "$OUT/timing.log" | awk '{print $6}')
    c=$(grep "^jit-step lfjit batch $b " "$OUT/timing.log" | awk '{print $10}')
    a=$(grep "^jit-step lfjit batch $b " "$OUT/timing.log" | awk '{print $12}')
    row "lf.jit seed, batch $b" "$(awk -v l="${l:-0}" -v j="${j:-0}" -v c="${c:--}" -v a="${a:-?}" \
      'BEGIN { if (l > 0 && j > 0) printf "lf.jit %s ms, jax.jit %s ms (%.1fx), first call %s s, agree %s", l, j, j / l, c, a; else print "no result (see timing.log)" }')"
  done
}
if time_left; then jit_step; else row "lf.jit on CUDA" "skipped (time)"; fi

# --- 6. compute-sanitizer ----------------------------------------------------------------------
# name:mode, mode "block32" (a block of 32 threads) or "plan" (the planner's launch).
SANITIZE="seed_x64:block32 loop_while_newton:block32 sort_values:block32 random_threefry_gpu_kernel:block32 reduce_variance_layernorm:block32 model_vmap_langevin:plan"
if time_left && command -v compute-sanitizer >/dev/null; then
  : >"$OUT/sanitizer.log"
  for tool in memcheck racecheck; do
    clean=0 dirty=""
    for entry in $SANITIZE; do
      p=${entry%%:*} mode=${entry#*:}
      f=tests/programs/$p.hlo
      [ -f tests/programs/$p.cuda.hlo ] && f=tests/programs/$p.cuda.hlo
      npz=tests/programs/$p.npz
      # The seed's 8000 iterations are slow under the sanitizer: 50 suffice to touch every access.
      if [ "$p" = seed_x64 ]; then
        python3 -c "import numpy as np, sys; d = dict(np.load(sys.argv[1])); d['input_3'] = np.int64(50); np.savez(sys.argv[2], **{k: v for k, v in d.items() if k.startswith('input_')})" \
          "$npz" "$WORK/seed50.npz" && npz=$WORK/seed50.npz
      fi
      echo "=== $tool $p" >>"$OUT/sanitizer.log"
      env=()
      [ "$mode" = block32 ] && env=(LOOPFUSE_CUDA_MODE=block LOOPFUSE_CUDA_BLOCK_THREADS=32)
      env "${env[@]}" timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 9 \
        --print-limit 10 "$LF" run "$f" --inputs "$npz" --target cuda >"$WORK/san.log" 2>&1
      rc=$?
      tail -n 30 "$WORK/san.log" >>"$OUT/sanitizer.log"
      if [ $rc -eq 0 ]; then clean=$((clean + 1)); else dirty="$dirty $p(rc $rc)"; fi
    done
    row "compute-sanitizer $tool" "$clean/6 clean${dirty:+; not clean:$dirty}"
  done
else
  row "compute-sanitizer" "skipped ($(command -v compute-sanitizer >/dev/null && echo time || echo 'not installed'))"
fi

# --- 7. the corpus batch-mapped --------------------------------------------------------------
if time_left; then corpus batch corpus_batch.log 40; else row "corpus, batch-mapped" "skipped (time)"; fi

# --- 8. the corpus in a block of 128 threads ---------------------------------------------------
if time_left; then corpus 128 corpus_t128.log 30; else row "corpus, 128 threads" "skipped (time)"; fi

finish
