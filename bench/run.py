"""Runs the benchmark suite: jax.jit against lf.jit, one result file per run.

    .venv/bin/python bench/run.py                 # the full CPU suite -> bench/results/*.json
    .venv/bin/python bench/run.py --quick         # tiny sizes, seconds (the smoke test)
    .venv/bin/python bench/run.py --only seed/x64 --budget-s 60
    python3 bench/run.py --platform cuda          # on a GPU machine (bench/gpu.sh)

The benchmarks run in a worker process, one after the other; each has a time budget. A benchmark
that overruns it is recorded as a timeout and the worker is replaced, so one slow program never
hangs the suite. Benchmarks whose work (iterations x batch) is over the cap are recorded as
skipped without running. The file is `<out-dir>/<machine>-<date>.json`; the table is printed last.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform as platform_module
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from typing import Any

BENCH_DIR = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

import programs  # noqa: E402
import report  # noqa: E402

# The default cap on chain-iterations per call (--max-work), per platform: what v1 of the CPU
# code generator gets through within a benchmark's budget on a 2-core machine.
DEFAULT_MAX_WORK = {"cpu": 8_200_000, "cuda": 500_000_000}


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform_module.processor() or "unknown CPU"


def _compiler_version() -> str:
    """The host C++ compiler loopfuse builds CPU kernels with ($CXX, else c++)."""
    cxx = os.environ.get("CXX", "c++")
    try:
        out = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=20)
        return out.stdout.splitlines()[0] if out.stdout else f"{cxx}: no version"
    except (OSError, subprocess.SubprocessError):
        return f"{cxx}: not found"


def machine_facts(platform: str) -> dict[str, Any]:
    import jax
    import jaxlib

    import loopfuse

    devices = jax.devices()
    facts = {
        "platform": platform,
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "device": devices[0].device_kind if devices else None,
        "card": devices[0].device_kind if platform == "cuda" and devices else None,
        "versions": {
            "jax": jax.__version__,
            "jaxlib": jaxlib.__version__,
            "loopfuse": loopfuse.__version__,
            "python": platform_module.python_version(),
            "compiler": _compiler_version(),
        },
    }
    if platform == "cuda":
        query = ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]
        try:
            nvidia = subprocess.run(query, capture_output=True, text=True, timeout=30)
            facts["card"] = nvidia.stdout.strip().splitlines()[0] or facts["card"]
        except (OSError, subprocess.SubprocessError, IndexError):
            pass  # jax's device_kind stays
    return facts


def default_machine_name(facts: dict[str, Any]) -> str:
    label = facts["card"] if facts["platform"] == "cuda" else f"{facts['cpu']}-{facts['cores']}c"
    # "Intel(R) Xeon(R) Processor" -> "intel-xeon": trademarks and filler words say nothing.
    label = re.sub(r"\((r|tm)\)|\b(processor|cpu)\b", " ", label, flags=re.IGNORECASE)
    slug = re.sub(r"[^a-z0-9]+", "-", f"{facts['platform']}-{label}".lower()).strip("-")
    return slug[:60]


# --- the worker: runs benchmarks in this process and prints one JSON line per benchmark ----------


def worker(names: list[str], args: argparse.Namespace) -> None:
    import harness

    by_name = {b.name: b for b in programs.suite(args.platform, args.quick)}
    for name in names:
        print(json.dumps({"event": "start", "name": name}), flush=True)
        try:
            result = harness.measure(
                by_name[name],
                timing_s=args.timing_s,
                min_reps=args.min_reps,
                max_reps=args.max_reps,
                budget_s=args.budget_s,
            )
        except Exception as e:  # noqa: BLE001 -- recorded in the results, the suite goes on
            traceback.print_exc(file=sys.stderr)
            result = {"status": "error", "reason": f"{type(e).__name__}: {e}"[:2000]}
        print(json.dumps({"event": "result", "name": name, "result": result}), flush=True)


def _start_worker(names: list[str], argv: list[str]) -> tuple[subprocess.Popen[str], queue.Queue]:
    proc = subprocess.Popen(
        [sys.executable, str(BENCH_DIR / "run.py"), *argv, "--worker", *names],
        stdout=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue  # something a program printed, not the worker's protocol
            if isinstance(msg, dict) and msg.get("event") in ("start", "result"):
                lines.put(msg)
        lines.put(None)  # the worker ended

    threading.Thread(target=pump, daemon=True).start()
    return proc, lines


def run_suite(args: argparse.Namespace, worker_argv: list[str]) -> list[dict[str, Any]]:
    """Runs the selected benchmarks in worker processes, each within its budget."""
    selected = [b for b in programs.suite(args.platform, args.quick) if _selected(b, args.only)]
    records: dict[str, dict[str, Any]] = {}
    to_run: list[str] = []
    for b in selected:
        records[b.name] = {
            "name": b.name,
            "group": b.group,
            "iterations": b.iterations,
            "batch": b.batch,
            "x64": b.x64,
            "params": b.params,
        }
        if b.work > args.max_work:
            why = f"{b.work:,} chain-iterations is over the work cap of {args.max_work:,}"
            records[b.name] |= {"status": "skipped", "reason": why}
        else:
            to_run.append(b.name)
    suite_deadline = time.monotonic() + args.total_budget_s
    while to_run:
        proc, lines = _start_worker(to_run, worker_argv)
        current, deadline = None, time.monotonic() + args.budget_s + 60  # + jax's import
        while True:
            wait = min(deadline, suite_deadline) - time.monotonic()
            try:
                msg = lines.get(timeout=max(0.1, wait))
            except queue.Empty:
                msg = "timeout"
            if msg == "timeout" or msg is None:
                break
            if msg["event"] == "start":
                current, deadline = msg["name"], time.monotonic() + args.budget_s
            else:
                records[msg["name"]] |= msg["result"]
                to_run.remove(msg["name"])
                _print_progress(records[msg["name"]])
        if proc.poll() is None:
            proc.kill()  # the worker we started, by its handle
        proc.wait()
        if time.monotonic() >= suite_deadline:
            for name in to_run:
                records[name] |= {"status": "skipped", "reason": "the suite's time budget ran out"}
            break
        if msg == "timeout" and current in to_run:
            why = f"no result within the budget of {args.budget_s:.0f} s"
            records[current] |= {"status": "timeout", "reason": why}
            to_run.remove(current)
            _print_progress(records[current])
        elif msg is None or msg == "timeout":  # the worker died, or hung before its first start
            failed = [current] if current in to_run else list(to_run)
            for name in failed:
                records[name] |= {"status": "error", "reason": f"worker exited {proc.returncode}"}
                to_run.remove(name)
    return [records[b.name] for b in selected]


def _selected(bench: programs.Benchmark, only: str | None) -> bool:
    return not only or any(bench.name.startswith(p) for p in only.split(","))


def _print_progress(record: dict[str, Any]) -> None:
    if record.get("status") == "ok":
        what = f"jax/loopfuse = {record['ratio']:.2f}x  agree={record['agree']}"
    else:
        what = f"{record.get('status')}: {record.get('reason', '')}"
    print(f"  {record['name']:<40} {what}", file=sys.stderr, flush=True)


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--platform", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--quick", action="store_true", help="tiny sizes: seconds, for smoke tests")
    p.add_argument("--only", help="comma-separated name prefixes, e.g. seed/x64,rk4")
    p.add_argument("--budget-s", type=float, default=75.0, help="per benchmark, compile included")
    p.add_argument("--timing-s", type=float, default=3.0, help="timed calls per benchmark")
    p.add_argument("--min-reps", type=int, default=3)
    p.add_argument("--max-reps", type=int, default=30)
    p.add_argument("--max-work", type=int, help="cap on iterations x batch (default per platform)")
    p.add_argument("--total-budget-s", type=float, default=660.0, help="the suite's time limit")
    p.add_argument("--out-dir", default=str(BENCH_DIR / "results"))
    p.add_argument("--machine", help="name of the machine in the file name and the report")
    p.add_argument("--keep-cache", action="store_true", help="use loopfuse's on-disk cache")
    p.add_argument("--worker", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.max_work is None:
        args.max_work = DEFAULT_MAX_WORK[args.platform]
    # What the workers get: every option but --worker.
    worker_argv = list(argv)
    if "--worker" in worker_argv:
        worker_argv = worker_argv[: worker_argv.index("--worker")]
    return args, worker_argv


def main(argv: list[str]) -> int:
    args, worker_argv = parse_args(argv)
    os.environ.setdefault("JAX_PLATFORMS", args.platform)
    if args.worker is not None:
        worker(args.worker, args)
        return 0
    with tempfile.TemporaryDirectory(prefix="lf-bench-cache-") as cache:
        if not args.keep_cache:  # cold compiles: compile times as a first user sees them
            os.environ["LOOPFUSE_CACHE_DIR"] = cache
        facts = machine_facts(args.platform)
        started = datetime.datetime.now(datetime.timezone.utc)
        results = run_suite(args, worker_argv)
    machine = args.machine or default_machine_name(facts)
    doc = {
        "schema": 1,
        "machine": machine,
        "date": started.isoformat(timespec="seconds"),
        "command": "bench/run.py " + " ".join(worker_argv),
        "settings": {
            "quick": args.quick,
            "budget_s": args.budget_s,
            "timing_s": args.timing_s,
            "min_reps": args.min_reps,
            "max_reps": args.max_reps,
            "max_work": args.max_work,
            "cold_compile_cache": not args.keep_cache,
        },
        **facts,
        "benchmarks": results,
    }
    out_dir = pathlib.Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{machine}-{started.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {path}\n", flush=True)
    print(report.table(doc))  # last, so a caller that keeps only the tail sees it
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
