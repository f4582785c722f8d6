#!/usr/bin/env bash
# Run HERE (the build machine, no GPU needed) before calling tests/gpu/check.sh on a lent GPU.
#
# Builds loopfuse, test_runtime and lf_cuda_tool (Release) in build-gpu/, and gathers what the GPU
# machine needs into build-gpu/dist/ (the path to `carry`):
#   dist/loopfuse, dist/test_runtime, dist/lf_cuda_tool   stripped binaries
#   dist/lib/                                             shared libraries they need beyond glibc
#                                                         and libstdc++ (libzip, libxxhash, ...:
#                                                         the GPU image may lack them)
#   dist/cache/                                           CUBINs of every corpus program for sm_90,
#                                                         so the GPU's minutes go to running
#   dist/py/_core*.so, dist/py/site/                      the Python extension (lf.jit, check.sh's
#                                                         step 5), rebuilt in build-python/ from
#                                                         scripts/setup.sh's install, and pytest's
#                                                         pure-Python files (that machine may lack
#                                                         pytest; it has jax 0.11.2 and Python 3.12)
# Prints dist's size: the working tree plus carried paths must stay under 64 MiB.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${LF_GPU_BUILD:-$ROOT/build-gpu}
DIST=$ROOT/build-gpu/dist  # the path check.sh expects
JOBS=${JOBS:-2}

# LF_GPU_BUILD may name an existing build folder (its build type is kept) to save a full build.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DLOOPFUSE_WERROR=ON >/dev/null
fi
cmake --build "$BUILD" --target loopfuse test_runtime lf_cuda_tool -j"$JOBS"

rm -rf "$DIST"
mkdir -p "$DIST/lib" "$DIST/cache"
cp "$BUILD/loopfuse" "$BUILD/tests/test_runtime" "$BUILD/tests/gpu/lf_cuda_tool" "$DIST/"
strip "$DIST/loopfuse" "$DIST/test_runtime" "$DIST/lf_cuda_tool"

# Every library the binaries load except the C and C++ runtimes, which must be the GPU machine's
# own (check.sh puts only the libraries that machine lacks on the loader's path).
for bin in "$DIST/loopfuse" "$DIST/test_runtime" "$DIST/lf_cuda_tool"; do
  ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$DIST/lib/"; done

# The extension for lf.jit: the editable install's build folder (scripts/setup.sh), brought up to
# date with this tree, then copied with what pytest needs. Without it check.sh skips step 5.
PYBUILD=$(ls -d "$ROOT"/build-python/pip-cp312-* 2>/dev/null | head -1)
if [ -n "$PYBUILD" ] && [ -x "$ROOT/.venv/bin/python" ]; then
  cmake --build "$PYBUILD" --target _core -j"$JOBS"
  mkdir -p "$DIST/py/site"
  core=$(ls "$PYBUILD"/python/_core*.so | head -1)
  cp "$core" "$DIST/py/"
  strip "$DIST/py/$(basename "$core")"
  ldd "$core" | awk '/=> \// {print $3}' |
    grep -Ev '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
    while read -r lib; do cp -L "$lib" "$DIST/lib/"; done
  site=$("$ROOT/.venv/bin/python" -c 'import os, pytest; print(os.path.dirname(os.path.dirname(pytest.__file__)))')
  for module in pytest _pytest pluggy iniconfig packaging py.py; do
    cp -r "$site/$module" "$DIST/py/site/"
  done
  find "$DIST/py/site" -name __pycache__ -prune -exec rm -rf {} +
else
  echo "no build-python/pip-cp312-* or .venv: run scripts/setup.sh first, or check.sh skips lf.jit"
fi

LOOPFUSE_CACHE_DIR="$DIST/cache" "$DIST/lf_cuda_tool" warm-cache sm_90 "$ROOT"/tests/programs/*.hlo |
  grep -v ' ok ' || true
echo "cached $(ls "$DIST/cache" | grep -c "\.cubin$") cubins"
du -sh "$DIST" "$DIST/lib" "$DIST/cache"
echo "next: the device tool's run with carry [\"build-gpu/dist\"], command \"bash tests/gpu/check.sh\""
