"""The seed program of ../shared/seeds/000_fc20e847646d6162.txt, for the demo and the benchmarks.

The program itself lives once, as its author wrote it, in the corpus
(tests/programs/progs_seed.py); this module only gives it the names the demo and the benchmarks
use.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "programs"))

import progs_seed  # noqa: E402

# The jitted function as written (`@partial(jit, static_argnums=())`), and the same without jit.
infer_encoding = progs_seed.infer_encoding
infer_encoding_unjitted = progs_seed.infer_encoding.__wrapped__


def seed_inputs() -> tuple[Any, Any]:
    """The weights and rng the seed script builds (call inside `enable_x64()` for the x64 run)."""
    weights, inference_rng, _ = progs_seed.seed_args(None)
    return weights, inference_rng
