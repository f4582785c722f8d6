#!/usr/bin/env bash
# A program that mismatches on the GPU but not in the emulator: is it the code generator? Run
# THERE after check.sh (same carried build-gpu/dist), printing a few lines to stdout:
#   bash tests/gpu/probe.sh NAME...      (corpus names, e.g. shapes_dynamic_update_slice)
# Each program runs in its planned mode with the CUBIN prepare.sh built here (this machine's
# NVRTC), then compiled there by that machine's NVRTC, then with ptxas at -O1 and -O0
# (LOOPFUSE_NVRTC_OPTIONS). A result that changes with ptxas's level points at the code generator.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
DIST=${LF_GPU_DIST:-$ROOT/build-gpu/dist}
LF=$DIST/loopfuse
WORK=$(mktemp -d /tmp/lfprobe.XXXX)
source "$ROOT/tests/gpu/carried_libs.sh"
use_carried_libs "$DIST/lib" "$WORK/lib"
python3 -c 'import ctypes; l = ctypes.CDLL("libnvrtc.so.13"); a, b = ctypes.c_int(), ctypes.c_int(); l.nvrtcVersion(ctypes.byref(a), ctypes.byref(b)); print(f"probe: NVRTC there {a.value}.{b.value}")' 2>&1 | tail -1
for name in "$@"; do
  f=tests/programs/$name.hlo
  [ -f "tests/programs/$name.cuda.hlo" ] && f=tests/programs/$name.cuda.hlo
  for how in "carried:$DIST/cache:" "there:$WORK/c0:" "there-O1:$WORK/c1:--ptxas-options=-O1" \
    "there-O0:$WORK/c2:--ptxas-options=-O0"; do
    label=${how%%:*} rest=${how#*:}
    cache=${rest%%:*} opts=${rest#*:}
    out=$(LOOPFUSE_CACHE_DIR=$cache LOOPFUSE_NVRTC_OPTIONS=$opts timeout 60 "$LF" run "$f" \
      --inputs "tests/programs/$name.npz" --target cuda --check 2>&1)
    rc=$?
    echo "probe $name $label rc=$rc: $(echo "$out" | grep -E 'MISMATCH|error' | head -2 | tr '\n' ' ')"
  done
done
rm -rf "$WORK"
