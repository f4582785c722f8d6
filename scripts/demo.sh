#!/usr/bin/env bash
# The main job: sets everything up (first run only), then runs the seed program through loopfuse
# beside jax.jit and prints both results, both times per call and the compile time.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/setup.sh"
exec "$root/.venv/bin/python" "$root/scripts/demo.py" "$@"
