"""Generates the corpus of JAX programs: HLO text, inputs and JAX's outputs.

    .venv/bin/python tests/programs/generate.py            # regenerate everything
    .venv/bin/python tests/programs/generate.py NAME...    # regenerate some programs
    .venv/bin/python tests/programs/generate.py --check    # exit 1 if the files are stale
    .venv/bin/python tests/programs/generate.py --list     # list the program names

For each program NAME (registered in progs_*.py) it writes, next to this file:
  NAME.hlo       jax.jit(f).lower(*args).as_text(dialect="hlo"), lowered for the CPU
  NAME.cuda.hlo  the same lowered for CUDA (no GPU needed), only where the text differs
  NAME.npz       input_0.. (flattened argument leaves, in entry-parameter order) and
                 output_0.. (flattened result leaves, in root-tuple order), computed by
                 JAX on the CPU; bf16 arrays are stored as their uint16 bit patterns
and manifest.json, which describes every program (see README.md).
"""

from __future__ import annotations

import os
import sys

# A fixed string-hash seed: numpyro's Trace_ELBO sums its sites in the order of a set of their
# names, so with Python's per-process salt the SVI program's HLO (and its last bits) changed from
# one run to the next. The generator re-runs itself under seed 0 when started without it.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.argv])

# Before jax is imported: lower and run on the CPU only, whatever this machine has.
os.environ["JAX_PLATFORMS"] = "cpu"
os.environ.setdefault("XLA_FLAGS", "")

import argparse  # noqa: E402
import importlib  # noqa: E402
import inspect  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import pathlib  # noqa: E402

import numpy as np  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jax  # noqa: E402

import coverage  # noqa: E402
import hlo_stats  # noqa: E402
from registry import PROGRAMS, Program, program_config  # noqa: E402
from tolerances import TOLERANCES, as_real, within_tolerance  # noqa: E402

MAX_NPZ_BYTES = 200 * 1024
MANIFEST = "manifest.json"

# numpy dtype name -> HLO element type name.
HLO_DTYPE = {
    "bool": "pred",
    "int8": "s8",
    "int16": "s16",
    "int32": "s32",
    "int64": "s64",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "uint64": "u64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "c64",
    "complex128": "c128",
}


def load_programs() -> None:
    for path in sorted(HERE.glob("progs_*.py")):
        importlib.import_module(path.stem)


def path_string(arg_name: str, key_path) -> str:
    parts = [arg_name]
    for key in key_path:
        if isinstance(key, jax.tree_util.DictKey):
            parts.append(str(key.key))
        elif isinstance(key, jax.tree_util.SequenceKey):
            parts.append(str(key.idx))
        elif isinstance(key, jax.tree_util.GetAttrKey):
            parts.append(key.name)
        else:
            parts.append(str(key))
    return "/".join(parts)


def storable(leaf) -> np.ndarray:
    array = np.asarray(leaf)
    if array.dtype.name == "bfloat16":
        return array.view(np.uint16)  # numpy has no bf16: keep the bits
    return array


def describe(path: str, leaf) -> dict:
    array = np.asarray(leaf)
    return {"path": path, "dtype": HLO_DTYPE[array.dtype.name], "shape": list(array.shape)}


class CorpusError(Exception):
    pass


def lower_and_run(prog: Program) -> tuple[list, str, str, object]:
    """Returns (arguments, CPU HLO, CUDA HLO, JAX's outputs on the CPU)."""
    # JAX caches traced sub-computations (threefry, sort, ...) across programs, and their
    # HLO parameter names come from whichever program traced them first: start afresh so
    # that a program's text does not depend on which programs were generated before it.
    jax.clear_caches()
    with program_config(prog):
        args = prog.make_args(prog.rng())
        jitted = jax.jit(prog.fn, static_argnums=prog.static_argnums, keep_unused=True)
        hlo = jitted.lower(*args).as_text(dialect="hlo")
        try:
            cuda_lowered = jitted.trace(*args).lower(lowering_platforms=("cuda",))
            cuda_hlo = cuda_lowered.as_text(dialect="hlo")
        except ValueError as e:
            # A host callback (jax.pure_callback, jax.debug.callback) is registered with the
            # backend it runs on, so its CUDA lowering needs a CUDA backend: without one the
            # CPU lowering stands for both (the CUDA tests compile it for CUDA, where loopfuse
            # treats the CPU and GPU callback targets alike).
            if "different from the lowering platform" not in str(e):
                raise
            cuda_hlo = hlo
        outputs = jax.device_get(jitted(*args))
        # Python scalars become arrays of the dtype JAX gives them (s32, or s64 under x64).
        args = [
            arg
            if i in prog.static_argnums
            else jax.tree_util.tree_map(lambda leaf: np.asarray(jax.numpy.asarray(leaf)), arg)
            for i, arg in enumerate(args)
        ]
    return args, hlo, cuda_hlo, outputs


def flatten_arguments(prog: Program, args: list) -> tuple[list, list[str], dict]:
    """(input leaves, their pytree paths, static arguments by name) in entry-parameter order."""
    arg_names = list(inspect.signature(prog.fn).parameters)
    leaves, paths, static_args = [], [], {}
    for index, arg in enumerate(args):
        name = arg_names[index] if index < len(arg_names) else f"arg{index}"
        if index in prog.static_argnums:
            static_args[name] = repr(arg)
            continue
        for key_path, leaf in jax.tree_util.tree_flatten_with_path(arg)[0]:
            leaves.append(leaf)
            paths.append(path_string(name, key_path))
    return leaves, paths, static_args


def validate(
    prog: Program,
    hlo: str,
    cuda_hlo: str,
    inputs: list[dict],
    outputs: list[dict],
    input_leaves: list,
) -> None:
    for text, which in ((hlo, "CPU"), (cuda_hlo, "CUDA")):
        if hlo_stats.ELIDED_CONSTANT in text:
            raise CorpusError(f"{prog.name}: the {which} HLO elides a constant ({{...}})")
    expected_inputs, expected_outputs = hlo_stats.entry_layout(hlo)
    for which, described, expected in (
        ("inputs", inputs, expected_inputs),
        ("outputs", outputs, expected_outputs),
    ):
        got = [(d["dtype"], d["shape"]) for d in described]
        if got != expected:
            raise CorpusError(
                f"{prog.name}: {which} {got} do not match the HLO entry layout {expected}"
            )
    if not prog.zero_inputs_ok:
        for described, leaf in zip(inputs, input_leaves):
            if np.asarray(leaf).size > 1 and not np.any(np.asarray(leaf)):
                raise CorpusError(
                    f"{prog.name}: input {described['path']} is all zeros; draw it at random"
                )


def npz_bytes(prog: Program, input_leaves: list, output_leaves: list) -> bytes:
    arrays = {f"input_{i}": storable(leaf) for i, leaf in enumerate(input_leaves)}
    arrays.update({f"output_{i}": storable(leaf) for i, leaf in enumerate(output_leaves)})
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # deterministic: zip entries get a fixed 1980 timestamp
    if len(buffer.getvalue()) > MAX_NPZ_BYTES:
        raise CorpusError(
            f"{prog.name}: npz is {len(buffer.getvalue())} bytes (limit {MAX_NPZ_BYTES})"
        )
    return buffer.getvalue()


def build(prog: Program) -> dict:
    """Lowers and runs one program; returns its files' contents and its manifest entry."""
    args, hlo, cuda_hlo, outputs = lower_and_run(prog)
    input_leaves, input_paths, static_args = flatten_arguments(prog, args)
    output_flat = jax.tree_util.tree_flatten_with_path(outputs)[0]
    inputs = [describe(path, leaf) for path, leaf in zip(input_paths, input_leaves)]
    outputs_described = [describe(path_string("out", kp), leaf) for kp, leaf in output_flat]
    validate(prog, hlo, cuda_hlo, inputs, outputs_described, input_leaves)

    has_cuda = cuda_hlo != hlo
    entry = {
        "name": prog.name,
        "source": f"{prog.module}.py",
        "x64": prog.x64,
        "config": {key: value for key, value in prog.config},
        "static_args": static_args,
        "inputs": inputs,
        "outputs": outputs_described,
        "has_cuda_hlo": has_cuda,
        "hlo": hlo_stats.analyse(hlo),
        "cuda_hlo": hlo_stats.analyse(cuda_hlo) if has_cuda else None,
    }
    files = {
        f"{prog.name}.hlo": hlo.encode(),
        f"{prog.name}.npz": npz_bytes(prog, input_leaves, [leaf for _, leaf in output_flat]),
    }
    if has_cuda:
        files[f"{prog.name}.cuda.hlo"] = cuda_hlo.encode()
    return {"files": files, "entry": entry}


def manifest_bytes(entries: list[dict]) -> bytes:
    entries = sorted(entries, key=lambda e: e["name"])
    return (json.dumps({"programs": entries}, indent=1, sort_keys=True) + "\n").encode()


def read_manifest(directory: pathlib.Path) -> list[dict]:
    path = directory / MANIFEST
    return json.loads(path.read_text())["programs"] if path.exists() else []


def corpus_files(directory: pathlib.Path) -> set[str]:
    return {p.name for pattern in ("*.hlo", "*.npz") for p in directory.glob(pattern)}


# JAX's CPU results differ between host CPUs (FMA contraction, vector widths: Eigen's GEMM and
# convolution on an AVX-512 host sum in another order than on an AVX2 one), so float outputs may
# move by a few ulp, or, in dots and convolutions, by about the tests' tolerance (tolerances.py):
# conv_forms' input gradient, a sum that cancels to 0.0013, moved by 1.03x that tolerance between
# two hosts. A changed program or input shows in the HLO text and the inputs, which must match
# exactly; an output counts as stale beyond 4 ulp and 4x the tolerance.
MAX_OUTPUT_ULPS = 4
OUTPUT_TOLERANCE_SCALE = 4.0


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in representable values between floats of equal dtype (NaN == NaN)."""
    int_type = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    width = a.dtype.itemsize * 8

    def ordered(x):  # sign-magnitude bits -> a monotonic integer scale
        i = x.view(int_type).astype(np.int64) if width < 64 else x.view(np.int64)
        minimum = np.int64(-(2 ** (width - 1)))
        return np.where(i < 0, minimum - i, i).astype(object if width == 64 else np.int64)

    distance = np.abs(ordered(a) - ordered(b))
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, distance)


def arrays_match(key: str, x: np.ndarray, y: np.ndarray) -> bool:
    if x.dtype != y.dtype or x.shape != y.shape:
        return False
    if x.tobytes() == y.tobytes():
        return True
    if x.dtype.kind == "c":  # as loopfuse reads it: the (real, imaginary) pairs (0-d included)
        return arrays_match(key, as_real(x), as_real(y))
    if key.startswith("output_") and x.dtype.kind == "f":
        same_sign = (np.signbit(x) == np.signbit(y)) | (np.isnan(x) & np.isnan(y))
        if np.all(same_sign) and np.all(ulp_distance(x, y) <= MAX_OUTPUT_ULPS):
            return True
        return x.dtype.name in TOLERANCES and within_tolerance(x, y, OUTPUT_TOLERANCE_SCALE)
    return False


def npz_equal(a: bytes, b: bytes) -> bool:
    with np.load(io.BytesIO(a)) as x, np.load(io.BytesIO(b)) as y:
        if sorted(x.files) != sorted(y.files):
            return False
        return all(arrays_match(k, x[k], y[k]) for k in x.files)


def generate(names: list[str]) -> tuple[dict[str, bytes], list[dict]]:
    files: dict[str, bytes] = {}
    entries = []
    for name in names:
        print(f"  {name}", file=sys.stderr, flush=True)
        built = build(PROGRAMS[name])
        files.update(built["files"])
        entries.append(built["entry"])
    return files, entries


def check(names: list[str], everything: bool, directory: pathlib.Path) -> int:
    # Regenerated in memory, never written: a check leaves the tree as it was.
    files, entries = generate(names)
    stale = []
    for filename, content in sorted(files.items()):
        path = directory / filename
        if not path.exists():
            stale.append(f"missing {filename}")
        elif filename.endswith(".npz"):
            if not npz_equal(path.read_bytes(), content):
                stale.append(f"stale {filename}")
        elif path.read_bytes() != content:
            stale.append(f"stale {filename}")
    committed = {e["name"]: e for e in read_manifest(directory)}
    for entry in entries:
        if committed.get(entry["name"]) != json.loads(json.dumps(entry)):
            stale.append(f"stale {MANIFEST} entry {entry['name']}")
    if everything:
        expected = set(files)
        stale += [
            f"unexpected {f} (no program makes it)"
            for f in sorted(corpus_files(directory) - expected)
        ]
        stale += [f"unexpected {MANIFEST} entry {n}" for n in sorted(set(committed) - set(names))]
    for line in stale:
        print(line)
    if stale:
        print(
            f"{len(stale)} corpus files are stale: run {pathlib.Path(__file__).name} to regenerate"
        )
        return 1
    print(f"corpus is fresh ({len(names)} programs)")
    return 0


def write(names: list[str], everything: bool, directory: pathlib.Path) -> int:
    files, entries = generate(names)
    if everything:
        for stale in corpus_files(directory) - set(files):
            (directory / stale).unlink()
    else:  # keep the other programs' entries; drop a .cuda.hlo that no longer differs
        kept = [e for e in read_manifest(directory) if e["name"] not in set(names)]
        for name in names:
            cuda = directory / f"{name}.cuda.hlo"
            if cuda.name not in files and cuda.exists():
                cuda.unlink()
        entries = kept + entries
    for filename, content in files.items():
        (directory / filename).write_bytes(content)
    (directory / MANIFEST).write_bytes(manifest_bytes(entries))
    print(coverage.report(entries))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files")
    parser.add_argument("--list", action="store_true", help="list program names and exit")
    parser.add_argument("--coverage", action="store_true", help="print coverage of manifest.json")
    parser.add_argument(
        "--dir",
        type=pathlib.Path,
        default=HERE,
        help="corpus directory to write or check (default: %(default)s)",
    )
    parser.add_argument("names", nargs="*", help="programs to generate (default: all)")
    options = parser.parse_args()
    load_programs()
    if options.list:
        print("\n".join(sorted(PROGRAMS)))
        return 0
    if options.coverage:
        print(coverage.report(read_manifest(options.dir)))
        return 0
    unknown = [n for n in options.names if n not in PROGRAMS]
    if unknown:
        parser.error(f"unknown programs: {', '.join(unknown)}")
    names = options.names or sorted(PROGRAMS)
    everything = not options.names
    try:
        if options.check:
            return check(names, everything, options.dir)
        return write(names, everything, options.dir)
    except CorpusError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
