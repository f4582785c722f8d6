#!/usr/bin/env bash
# Installs everything loopfuse needs on a fresh Debian machine and builds it. Idempotent and fast
# when already done: packages and the virtual environment are only installed when missing.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

debs=(cmake g++ pkg-config libgtest-dev libcli11-dev libzip-dev nlohmann-json3-dev libxxhash-dev
      liblapack-dev clang-format clang libclang-rt-14-dev)
missing=()
for p in "${debs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python 3.12 (jax 0.11 needs it): the system's, else pyenv's.
venv="$root/.venv"
stamp="$venv/.requirements.stamp"
if [ ! -x "$venv/bin/python" ] || ! cmp -s python/requirements.txt "$stamp"; then
  # A pyenv shim answers `command -v python3.12` even when no 3.12 is selected, so run each
  # candidate to see that it works.
  py=""
  for cand in python3.12 "$(PYENV_VERSION=3.12.1 pyenv which python3.12 2>/dev/null || true)" \
              /usr/bin/python3.12 /usr/local/bin/python3.12; do
    if [ -n "$cand" ] && "$cand" -c 'import sys; assert sys.version_info[:2] == (3, 12)' \
        >/dev/null 2>&1; then
      py=$cand; break
    fi
  done
  [ -n "$py" ] || { echo "setup: Python 3.12 not found (jax 0.11 needs it)" >&2; exit 1; }
  echo "setup: creating $venv with $py"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q -r python/requirements.txt
  cp python/requirements.txt "$stamp"
fi

build="${LOOPFUSE_BUILD_DIR:-$root/build}"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLOOPFUSE_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)"

# The Python package (editable, so python/loopfuse/*.py edits apply at once). The C++ extension is
# rebuilt when any C++ or build file changed since the last install (incrementally, in
# build-python/).
py_stamp="$venv/.loopfuse-install.stamp"
py_hash=$(find src python/ext python/CMakeLists.txt pyproject.toml CMakeLists.txt -type f \
            -print0 | sort -z | xargs -0 sha1sum | sha1sum | cut -d' ' -f1)
if [ ! -f "$py_stamp" ] || [ "$(cat "$py_stamp")" != "$py_hash" ]; then
  echo "setup: installing the loopfuse Python package into $venv"
  "$venv/bin/pip" install -q --no-build-isolation --no-deps -e "$root"
  echo "$py_hash" >"$py_stamp"
fi
