# Sourced by the scripts run on a lent GPU (tests/gpu/check.sh, tests/gpu/probe.sh, bench/gpu.sh).
#
# use_carried_libs FROM TO: links into the folder TO each shared library in FROM (what was carried
# from the build machine: libzip, libxxhash, ...) that this machine's loader does not already
# have, and puts TO first on LD_LIBRARY_PATH. The machine's own copies win, so that its C and C++
# runtimes and anything its other programs load stay as they are.
use_carried_libs() {
  local from=$1 to=$2 lib
  mkdir -p "$to"
  for lib in "$from"/*.so*; do
    [ -e "$lib" ] || continue
    ldconfig -p | awk '{print $1}' | grep -qxF "$(basename "$lib")" || ln -sf "$lib" "$to/"
  done
  export LD_LIBRARY_PATH="$to${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
