"""Renders BENCHMARKS.md from the result files of bench/run.py: a table and a plot per machine.

    .venv/bin/python bench/report.py            # bench/results/*.json -> BENCHMARKS.md, bench/plots/

The newest result file of each machine is shown (a --quick run only where that machine has no
full run), followed by bench/notes/<machine>.md where someone wrote down what the numbers say.
Where bench/baselines/ holds a full run of the same machine (the version 1 code generator, before
issue #6's fusion and loop-state work), each row also shows that run's ratio: before and after. matplotlib is imported only to draw the plots, so run.py can print the table on a
machine that lacks it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import pathlib
import sys
from typing import Any

BENCH_DIR = pathlib.Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent

INTRO = """\
# Benchmarks

Reproduce the CPU table (about 10 minutes on 2 cores; nothing else should be running):

    .venv/bin/python bench/run.py && .venv/bin/python bench/report.py

On a GPU machine: `bash bench/gpu.sh` (see [bench/gpu.sh](bench/gpu.sh)), then copy its JSON into
`bench/results/` and run `bench/report.py`.

Every program is a plain JAX function (`bench/programs.py`, `bench/workloads.py`, and the seed
program as its author wrote it in `bench/seed_program.py`), run with `jax.jit` and with `lf.jit`
alternately in one process. Compile time is measured on its own and excluded from the timing;
each function is called once to warm up, then the timed calls alternate between the two (each
followed by `block_until_ready`), and the table shows the median. **jax/loopfuse** is jax.jit's
median over loopfuse's: above 1 means loopfuse is faster. **us/iter** is the median divided by
the loop's trip count (for HMC, the leapfrog steps; for the seed, `maximum_iterations`), for all
chains of a batch together.
**reps** is the number of timed calls of each.
**agree** says whether loopfuse's outputs equal jax.jit's (allclose with the tolerance in
`bench/programs.py`, integers and RNG keys exact). **compile s** is jax.jit's lower+compile and
loopfuse's C++ compile (cold: the harness uses an empty kernel cache; a benchmark whose HLO was
already compiled in the same run, like the traced seed at another trip count, reuses it).
**peak MiB** is the growth of the process' resident memory during one warm call (VmHWM after a
reset through /proc/self/clear_refs, minus VmRSS before): outputs and temporaries on the host, not
GPU memory.

Limits of the suite: each benchmark has a time budget (compile included) and is recorded as a
timeout when it overruns it, and benchmarks over a work cap (iterations x batch, per platform,
`--max-work`) are skipped without running (100,000 iterations of the seed at 4,096 chains is
minutes of work for either side on this CPU). The rows say which were skipped and why.
"""


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}" if seconds < 1 else f"{seconds * 1e3:,.0f}"


def _us(value: float) -> str:
    return f"{value:.3f}" if value < 10 else f"{value:,.1f}"


def table(doc: dict[str, Any], baseline: dict[str, Any] | None = None) -> str:
    """The markdown table of one result file (with the baseline's ratio per row when given)."""
    before = {
        b["name"]: b for b in (baseline or {}).get("benchmarks", []) if b.get("status") == "ok"
    }
    head = (
        "| benchmark | iters | batch | jax.jit ms | loopfuse ms | jax/loopfuse "
        + ("| before: jax/loopfuse " if baseline else "")
        + "| jax us/iter | loopfuse us/iter | compile s (jax / lf) | peak MiB (jax / lf) | agree | reps |"
    )
    columns = 13 if baseline else 12
    rows = [head, "|" + "---|" * columns]
    for b in doc["benchmarks"]:
        lead = f"| `{b['name']}` | {b['iterations']:,} | {b['batch']:,} "
        if b.get("status") != "ok":
            reason = str(b.get("reason", "")).replace("|", "/").splitlines()[0][:120]
            rows.append(lead + f"| {b.get('status')}: {reason} |" + " |" * (columns - 4))
            continue
        j, lf = b["jax"], b["loopfuse"]
        old = before.get(b["name"])
        was = (f"| {old['ratio']:.2f}x " if old else "| - ") if baseline else ""
        rows.append(
            lead + f"| {_ms(j['median_s'])} | {_ms(lf['median_s'])} | **{b['ratio']:.2f}x** {was}"
            f"| {_us(j['per_iteration_us'])} | {_us(lf['per_iteration_us'])} "
            f"| {j['compile_s']:.2f} / {lf['compile_s']:.2f} "
            f"| {j['peak_rss_mib']:.1f} / {lf['peak_rss_mib']:.1f} "
            f"| {'yes' if b['agree'] else 'NO'} | {j['reps']} |"
        )
    return "\n".join(rows)


def summary(doc: dict[str, Any]) -> str:
    ok = [b for b in doc["benchmarks"] if b.get("status") == "ok"]
    counts = {}
    for b in doc["benchmarks"]:
        counts[b.get("status")] = counts.get(b.get("status"), 0) + 1
    parts = [f"{n} {status}" for status, n in sorted(counts.items())]
    if ok:
        geomean = math.exp(sum(math.log(b["ratio"]) for b in ok) / len(ok))
        faster = sum(b["ratio"] > 1 for b in ok)
        agree = sum(bool(b["agree"]) for b in ok)
        parts += [
            f"geometric mean of jax/loopfuse {geomean:.2f}x",
            f"loopfuse faster on {faster} of {len(ok)}",
            f"outputs agree on {agree} of {len(ok)}",
        ]
    return "; ".join(parts) + "."


def machine_section(
    doc: dict[str, Any], plot: str | None, baseline: dict[str, Any] | None = None
) -> str:
    v = doc["versions"]
    s = doc["settings"]
    lines = [
        f"## {doc['machine']}",
        "",
        f"- measured {doc['date']} with `{doc['command'].strip()}`",
        f"- CPU: {doc['cpu']}, {doc['cores']} cores; device: {doc['device']}"
        + (f"; card: {doc['card']}" if doc.get("card") else ""),
        f"- jax {v['jax']}, jaxlib {v['jaxlib']}, loopfuse {v['loopfuse']}, "
        f"Python {v['python']}; C++ compiler: {v['compiler']}",
        f"- per benchmark: budget {s['budget_s']:.0f} s, timed calls about {s['timing_s']:.1f} s "
        f"({s['min_reps']}-{s['max_reps']} per function); work cap {s['max_work']:,} "
        f"chain-iterations" + ("; **quick sizes** (smoke run, not a measurement)" * s["quick"]),
        f"- {summary(doc)}",
    ]
    if baseline:
        lines.append(
            f"- before: the version 1 code generator (every value materialised, loop state "
            f"copied), measured {baseline['date']} on this machine: {summary(baseline)}"
        )
    lines.append("")
    if plot:
        lines += [f"![time per iteration, {doc['machine']}]({plot})", ""]
    lines += [table(doc, baseline), ""]
    notes = BENCH_DIR / "notes" / f"{doc['machine']}.md"
    if notes.exists():  # what a person read in these numbers, kept apart from the generated text
        lines += [notes.read_text().strip(), ""]
    return "\n".join(lines)


def _seed_points(doc: dict[str, Any], vary: str) -> dict[str, list[tuple[int, float]]]:
    """Per-iteration times of the traced x64 seed (per chain-iteration when vary == "batch")."""
    rows = [
        b
        for b in doc["benchmarks"]
        if b["group"] == "seed"
        and b.get("status") == "ok"
        and b["x64"]
        and b["params"]["maximum_iterations"] == "traced"
    ]
    if vary == "iterations":
        rows = [b for b in rows if b["batch"] == 1]
    else:
        present = {(b["iterations"], b["batch"]) for b in rows}
        trips = [n for n, _ in present]
        # The trip count measured at the most batch sizes.
        best = max(set(trips), key=lambda n: (trips.count(n), n), default=None)
        rows = [b for b in rows if b["iterations"] == best]
    points: dict[str, list[tuple[int, float]]] = {"jax.jit": [], "loopfuse": []}
    for b in sorted(rows, key=lambda b: b[vary]):
        for label, key in (("jax.jit", "jax"), ("loopfuse", "loopfuse")):
            points[label].append((b[vary], b[key]["per_iteration_us"]))
    return points


def plot(doc: dict[str, Any], path: pathlib.Path) -> bool:
    """Time per iteration against trip count and against batch size; False if nothing to plot."""
    by_trips, by_batch = _seed_points(doc, "iterations"), _seed_points(doc, "batch")
    if not by_trips["jax.jit"] and not by_batch["jax.jit"]:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    panels = (
        (axes[0], by_trips, "trip count (maximum_iterations), batch 1"),
        (axes[1], by_batch, "batch size (vmapped chains)"),
    )
    for ax, points, xlabel in panels:
        for label, marker in (("jax.jit", "o"), ("loopfuse", "s")):
            if points[label]:
                xs, ys = zip(*points[label])
                ax.plot(xs, ys, marker=marker, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("time per loop iteration, all chains (us)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(f"seed program, x64, traced maximum_iterations: {doc['machine']}")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def newest_per_machine(results_dir: pathlib.Path) -> list[dict[str, Any]]:
    docs: dict[str, dict[str, Any]] = {}
    for path in sorted(results_dir.glob("*.json")):
        doc = json.loads(path.read_text())
        old = docs.get(doc["machine"])
        # A full run beats a quick one; among equals, the newest.
        rank = (not doc["settings"]["quick"], doc["date"])
        if old is None or rank >= (not old["settings"]["quick"], old["date"]):
            docs[doc["machine"]] = doc
    return [docs[m] for m in sorted(docs)]


def render(
    results_dir: pathlib.Path,
    out: pathlib.Path,
    plots_dir: pathlib.Path,
    baselines_dir: pathlib.Path = BENCH_DIR / "baselines",
) -> str:
    sections = [INTRO]
    docs = newest_per_machine(results_dir)
    baselines = (
        {d["machine"]: d for d in newest_per_machine(baselines_dir)}
        if baselines_dir.exists()
        else {}
    )
    if not docs:
        sections.append("No results yet: run `bench/run.py`.\n")
    for doc in docs:
        png = plots_dir / f"{doc['machine']}.png"
        link = os.path.relpath(png, out.parent) if plot(doc, png) else None
        sections.append(machine_section(doc, link, baselines.get(doc["machine"])))
    text = "\n".join(sections)
    out.write_text(text)
    return text


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--results", default=str(BENCH_DIR / "results"))
    p.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    p.add_argument("--plots-dir", default=str(BENCH_DIR / "plots"))
    p.add_argument("--baselines", default=str(BENCH_DIR / "baselines"))
    args = p.parse_args(argv)
    render(
        pathlib.Path(args.results),
        pathlib.Path(args.out),
        pathlib.Path(args.plots_dir),
        pathlib.Path(args.baselines),
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
