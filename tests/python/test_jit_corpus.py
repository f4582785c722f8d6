"""Every corpus program (tests/programs) through lf.jit equals jax.jit, within the C++ tests'
tolerances; integer outputs (jax.random's bits among them) exactly."""

from __future__ import annotations

import jax
import pytest

import loopfuse as lf
from conftest import assert_close, corpus_programs, program_config, requires_core

PROGRAMS = corpus_programs()


@requires_core
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_corpus_program_matches_jax(name: str) -> None:
    prog = PROGRAMS[name]
    with program_config(prog):
        args = prog.make_args(prog.rng())
        expected = jax.jit(prog.fn, static_argnums=prog.static_argnums)(*args)
        # fallback="error": a program loopfuse cannot compile fails here instead of quietly
        # running with XLA.
        compiled = lf.jit(prog.fn, static_argnums=prog.static_argnums, fallback="error")
        actual = compiled(*args)
    assert_close(actual, expected, what=name)
