"""The committed corpus (tests/programs/*.hlo, *.npz, manifest.json) matches what the
programs in tests/programs/progs_*.py generate with the installed JAX.

A failure means someone changed a program (or JAX) without regenerating:
    .venv/bin/python tests/programs/generate.py
"""

import json
import pathlib
import subprocess
import sys

import pytest

PROGRAMS_DIR = pathlib.Path(__file__).resolve().parents[1] / "programs"
GENERATOR = PROGRAMS_DIR / "generate.py"

pytest.importorskip("jax")
pytest.importorskip("haiku")
pytest.importorskip("tjax")


def run_generator(*args: str, timeout: int = 1200) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(GENERATOR), *args], capture_output=True, text=True, timeout=timeout
    )


def test_corpus_is_fresh():
    result = run_generator("--check")
    assert result.returncode == 0, f"stale corpus:\n{result.stdout}\n{result.stderr[-4000:]}"


def test_check_detects_stale_and_missing_files(tmp_path):
    # The check must be able to fail: a corrupted copy of the corpus is reported.
    name = "elementwise_binary"
    hlo = (PROGRAMS_DIR / f"{name}.hlo").read_bytes()
    (tmp_path / f"{name}.hlo").write_bytes(hlo.replace(b"subtract(", b"add(", 1))
    (tmp_path / "manifest.json").write_bytes((PROGRAMS_DIR / "manifest.json").read_bytes())
    result = run_generator("--check", "--dir", str(tmp_path), name)
    assert result.returncode == 1
    assert f"stale {name}.hlo" in result.stdout
    assert f"missing {name}.npz" in result.stdout


def test_manifest_lists_every_program_and_full_coverage():
    listed = run_generator("--list").stdout.split()
    manifest = json.loads((PROGRAMS_DIR / "manifest.json").read_text())["programs"]
    assert sorted(entry["name"] for entry in manifest) == sorted(listed)
    assert len(listed) >= 65
    coverage = run_generator("--coverage").stdout
    assert "MISSING: nothing" in coverage, coverage
