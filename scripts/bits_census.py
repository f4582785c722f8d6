"""Which corpus float outputs loopfuse computes to JAX's exact bits on this CPU, and which not.

Runs every corpus program (tests/programs/NAME.hlo) with `build/loopfuse run` and compares each
float output with the JAX result in NAME.npz bit for bit. The tests hold floats to the tolerances
of src/runtime/tolerance.h; this census shows where the last bits still differ (dots and
reductions in XLA's own summation order, transcendentals that are the C library's), so that work
on exactness can be measured:

    .venv/bin/python scripts/bits_census.py            # summary and the outputs that differ
    .venv/bin/python scripts/bits_census.py --json F   # also every output's count, as JSON
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "programs"


def run_program(loopfuse: Path, name: str, out_dir: Path) -> str | None:
    """Runs one program; returns an error text, or None when it wrote its outputs."""
    result = subprocess.run(
        [str(loopfuse), "run", str(CORPUS / f"{name}.hlo"), "--inputs", str(CORPUS / f"{name}.npz")]
        + ["--outputs", str(out_dir / f"{name}.npz")],
        capture_output=True,
        text=True,
    )
    return None if result.returncode == 0 else result.stderr.strip()


def differing(expected: np.ndarray, actual: np.ndarray) -> int:
    bits = f"u{expected.itemsize}"
    flat_e = np.ascontiguousarray(expected).reshape(-1).view(bits)
    flat_a = np.ascontiguousarray(actual).reshape(-1).view(bits)
    return int(np.sum(flat_e != flat_a))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loopfuse", type=Path, default=ROOT / "build" / "loopfuse")
    parser.add_argument("--json", type=Path, help="write {program/output: [differ, size]} here")
    args = parser.parse_args()
    names = sorted(p.stem for p in CORPUS.glob("*.hlo") if not p.name.endswith(".cuda.hlo"))
    census: dict[str, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            errors = dict(
                zip(names, pool.map(lambda n: run_program(args.loopfuse, n, out_dir), names))
            )
        for name in names:
            if errors[name] is not None:
                print(f"{name}: did not run: {errors[name]}", file=sys.stderr)
                continue
            expected, actual = np.load(CORPUS / f"{name}.npz"), np.load(out_dir / f"{name}.npz")
            for key in sorted(k for k in expected.files if k.startswith("output_")):
                # Float outputs only (bf16 is stored as uint16 bits and compared by the tests).
                if expected[key].dtype.kind == "f":
                    census[f"{name}/{key}"] = (
                        differing(expected[key], actual[key]),
                        expected[key].size,
                    )
    exact = [k for k, (d, _) in census.items() if d == 0]
    print(f"float outputs bit-exact with JAX: {len(exact)} of {len(census)}")
    for key, (d, size) in sorted(census.items()):
        if d:
            print(f"  {key}: {d} of {size} values differ")
    if args.json:
        args.json.write_text(json.dumps(census, indent=1, sort_keys=True) + "\n")
    return 1 if any(e is not None for e in errors.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
