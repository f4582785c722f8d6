#!/usr/bin/env bash
# Fails when a C++ file is not formatted with the repository's .clang-format.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
files=$(git ls-files -- '*.cc' '*.h' | grep -v -E '^tests/(programs|codegen/golden)/' || true)
[ -z "$files" ] && exit 0
bad=$(echo "$files" | xargs clang-format --dry-run 2>&1 | grep -E '^[^ ].*: (warning|error):' | cut -d: -f1 | sort -u || true)
if [ -n "$bad" ]; then
  echo "not clang-formatted (run: clang-format -i FILE):"; echo "$bad"; exit 1
fi
echo "format ok"
