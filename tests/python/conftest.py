"""Shared set-up for the loopfuse pytest suite.

Four CPU devices (for shard_map) must be requested before jax is imported, so it happens here.
Helpers: `assert_close` (the per-dtype tolerances of src/runtime/tolerance.h), `corpus_programs`
(the registry of tests/programs), and the `requires_core` marker that skips end-to-end tests
cleanly when the extension is not built.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pathlib
import sys
from typing import Any

os.environ.setdefault("JAX_PLATFORMS", "cpu")
if "--xla_force_host_platform_device_count" not in os.environ.get("XLA_FLAGS", ""):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=4"
    ).strip()

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import loopfuse as lf  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS_DIR = ROOT / "tests" / "programs"

requires_core = pytest.mark.skipif(
    not lf.available(), reason="the loopfuse._core extension is not built (pip install .)"
)

# The C++ tests' tolerances (src/runtime/tolerance.h), kept for Python in tests/programs/tolerances.py:
# integers and pred exact, floats a few ulp.
if str(PROGRAMS_DIR) not in sys.path:
    sys.path.insert(0, str(PROGRAMS_DIR))
from tolerances import TOLERANCES, as_real, close_mask  # noqa: E402


def assert_close(actual: Any, expected: Any, *, what: str = "output", scale: float = 1.0) -> None:
    """Same pytree, dtypes and shapes; values within the dtype's tolerance (NaN matches NaN).

    `scale` widens float tolerances for results that went through more rounding than the
    corpus' (gradients through loops).
    """
    actual_leaves, actual_tree = jax.tree_util.tree_flatten(actual)
    expected_leaves, expected_tree = jax.tree_util.tree_flatten(expected)
    assert actual_tree == expected_tree, f"{what}: pytree {actual_tree} != {expected_tree}"
    for i, (a, e) in enumerate(zip(actual_leaves, expected_leaves)):
        a, e = np.asarray(a), np.asarray(e)
        label = f"{what} leaf {i}"
        assert a.dtype == e.dtype, f"{label}: dtype {a.dtype} != {e.dtype}"
        assert a.shape == e.shape, f"{label}: shape {a.shape} != {e.shape}"
        real_a, real_e = as_real(a), as_real(e)  # complex: the (real, imaginary) pairs
        if real_e.dtype.name in TOLERANCES:
            close = close_mask(a, e, scale)
            if not close.all():  # numpy's report, on the elements outside the tolerance
                rtol, atol = TOLERANCES[real_e.dtype.name]
                np.testing.assert_allclose(
                    real_a[~close].astype(np.float64),
                    real_e[~close].astype(np.float64),
                    rtol=rtol * scale,
                    atol=atol * scale,
                    equal_nan=True,
                    err_msg=f"{label}: {int((~close).sum())} of {close.size} values",
                )
        else:  # integers, pred, and jax.random's bits: exact
            np.testing.assert_array_equal(real_a, real_e, err_msg=label)


def assert_same_bits(actual: Any, expected: Any, what: str) -> None:
    """Same dtype and shape, and every element's bits equal (floats included: NaN payloads too)."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, (
        f"{what}: {a.dtype}{a.shape} != {e.dtype}{e.shape}"
    )
    a, e = as_real(a), as_real(e)
    bits = f"u{e.itemsize}"
    differ = int(np.sum(a.view(bits) != e.view(bits)))
    assert differ == 0, f"{what}: {differ} of {e.size} values differ from jax.jit"


def corpus_programs() -> dict[str, Any]:
    """The corpus registry (tests/programs/registry.py) with every progs_*.py module loaded."""
    registry = importlib.import_module("registry")
    for path in sorted(PROGRAMS_DIR.glob("progs_*.py")):
        importlib.import_module(path.stem)
    return registry.PROGRAMS


def program_config(prog: Any) -> contextlib.AbstractContextManager[None]:
    """The program's jax.config settings and x64 flag, as the corpus generator sets them."""
    # Only the registry (tests/programs is on sys.path since this module's import): importing
    # every progs_*.py would need haiku, which a GPU image may lack.
    return importlib.import_module("registry").program_config(prog)
