"""Smoke tests of the benchmark harness (bench/run.py) and the report (bench/report.py).

No timing is asserted (this machine's load is not ours to control): the harness must run two tiny
programs through jax.jit and lf.jit, find that their outputs agree, and write a result file with
the fields report.py reads; a benchmark over its budget or over the work cap must be recorded,
not hang the suite; report.py must render a table and the plot from a result file.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest
from conftest import ROOT, requires_core

BENCH = ROOT / "bench"


def _run_harness(out_dir: pathlib.Path, *extra: str) -> dict[str, Any]:
    argv = [sys.executable, str(BENCH / "run.py"), "--quick", "--only", "rk4,grad_scan"]
    argv += ["--out-dir", str(out_dir), *extra]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    files = list(out_dir.glob("*.json"))
    assert len(files) == 1, files
    assert "| benchmark |" in result.stdout  # the table is printed last
    return json.loads(files[0].read_text())


@requires_core
def test_quick_run_writes_results_that_agree(tmp_path: pathlib.Path) -> None:
    doc = _run_harness(tmp_path, "--timing-s", "0.1", "--min-reps", "2", "--max-reps", "2")
    assert doc["schema"] == 1 and doc["platform"] == "cpu" and doc["settings"]["quick"]
    assert set(doc["versions"]) >= {"jax", "jaxlib", "loopfuse", "python", "compiler"}
    names = [b["name"] for b in doc["benchmarks"]]
    assert [n.split("/")[0] for n in names] == ["rk4", "grad_scan"], names
    for b in doc["benchmarks"]:
        assert b["status"] == "ok", b
        assert b["agree"] is True, b
        for side in ("jax", "loopfuse"):
            m = b[side]
            assert m["reps"] == 2
            assert 0 < m["min_s"] <= m["median_s"]
            assert m["per_iteration_us"] == pytest.approx(m["median_s"] / b["iterations"] * 1e6)
            assert m["compile_s"] >= 0 and m["peak_rss_mib"] >= 0
        assert b["ratio"] == pytest.approx(b["jax"]["median_s"] / b["loopfuse"]["median_s"])


@requires_core
def test_budget_and_work_cap_are_recorded_not_waited_for(tmp_path: pathlib.Path) -> None:
    # rk4 quick is 200 iterations (over a cap of 100); grad_scan cannot compile in 10 ms.
    doc = _run_harness(tmp_path, "--max-work", "100", "--budget-s", "0.01")
    status = {b["group"]: (b["status"], b["reason"]) for b in doc["benchmarks"]}
    assert status["rk4"][0] == "skipped" and "work cap" in status["rk4"][1]
    assert status["grad_scan"][0] == "timeout", status


def _synthetic_result() -> dict[str, Any]:
    def measured(n: int, b: int, jax_s: float, lf_s: float) -> dict[str, Any]:
        def side(s: float) -> dict[str, Any]:
            return {
                "median_s": s,
                "min_s": s,
                "reps": 3,
                "per_iteration_us": s / n * 1e6,
                "compile_s": 1.5,
                "peak_rss_mib": 2.0,
            }

        return {
            "name": f"seed/x64/traced/n{n}/b{b}",
            "group": "seed",
            "iterations": n,
            "batch": b,
            "x64": True,
            "params": {"x64": True, "maximum_iterations": "traced"},
            "status": "ok",
            "jax": side(jax_s),
            "loopfuse": side(lf_s),
            "ratio": jax_s / lf_s,
            "agree": True,
        }

    benchmarks = [
        measured(1000, 1, 0.003, 0.002),
        measured(8000, 1, 0.024, 0.016),
        measured(1000, 1024, 0.030, 0.060),
        {
            "name": "gru/n1000/h128/b32",
            "group": "gru",
            "iterations": 1000,
            "batch": 32,
            "x64": False,
            "params": {},
            "status": "timeout",
            "reason": "no result within the budget of 90 s",
        },
    ]
    return {
        "schema": 1,
        "machine": "cpu-synthetic-2c",
        "date": "2026-01-01T00:00:00+00:00",
        "command": "bench/run.py",
        "settings": {
            "quick": False,
            "budget_s": 90.0,
            "timing_s": 4.0,
            "min_reps": 3,
            "max_reps": 30,
            "max_work": 8_200_000,
            "cold_compile_cache": True,
        },
        "platform": "cpu",
        "cpu": "Synthetic CPU",
        "cores": 2,
        "device": "cpu",
        "card": None,
        "versions": {
            "jax": "0.11.2",
            "jaxlib": "0.11.2",
            "loopfuse": "0.1.0",
            "python": "3.12",
            "compiler": "c++ 14",
        },
        "benchmarks": benchmarks,
    }


def test_report_renders_table_and_plot(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("matplotlib", reason="bench/requirements.txt (matplotlib) not installed")
    sys.path.insert(0, str(BENCH))
    import report

    results = tmp_path / "results"
    results.mkdir()
    (results / "cpu-synthetic-2c-20260101.json").write_text(json.dumps(_synthetic_result()))
    out = tmp_path / "BENCHMARKS.md"
    text = report.render(results, out, tmp_path / "plots")
    assert out.read_text() == text
    assert "## cpu-synthetic-2c" in text
    # Worked out by hand: 3 ms / 2 ms = 1.50x, 3 ms / 1000 iterations = 3 us per iteration.
    assert (
        "| `seed/x64/traced/n1000/b1` | 1,000 | 1 | 3.000 | 2.000 | **1.50x** | 3.000 | 2.000 |"
        in (text)
    )
    assert "| `gru/n1000/h128/b32` | 1,000 | 32 | timeout: no result within the budget" in text
    # ratios 1.5, 1.5, 0.5: geometric mean (1.125)^(1/3) = 1.04
    assert "geometric mean of jax/loopfuse 1.04x; loopfuse faster on 2 of 3" in text
    png = tmp_path / "plots" / "cpu-synthetic-2c.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "(plots/cpu-synthetic-2c.png)" in text


def test_agreement_check_fails_on_wrong_outputs() -> None:
    sys.path.insert(0, str(BENCH))
    import harness
    import numpy as np

    expected = {"x": np.array([1.0, 2.0], np.float32), "key": np.array([7, 9], np.uint32)}
    close = {"x": np.array([1.0, 2.0 + 1e-5], np.float32), "key": expected["key"]}
    assert harness.compare(close, expected, None)["agree"] is True
    off = {"x": np.array([1.0, 2.001], np.float32), "key": expected["key"]}
    check = harness.compare(off, expected, None)
    assert check["agree"] is False and check["max_abs_err"] == pytest.approx(1e-3, rel=1e-3)
    bad_key = {"x": expected["x"], "key": np.array([7, 8], np.uint32)}
    assert harness.compare(bad_key, expected, None)["agree"] is False
    assert harness.compare({"x": expected["x"]}, expected, None)["agree"] is False
