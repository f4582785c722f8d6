"""What the corpus must cover (HLO opcodes, compare kinds, dtypes) and a report of gaps."""

from __future__ import annotations

import collections

REQUIRED_OPCODES = """
parameter constant iota broadcast reshape transpose convert bitcast-convert copy slice
dynamic-slice dynamic-update-slice concatenate pad reverse select clamp compare abs negate
sign floor ceil round-nearest-afz round-nearest-even exponential exponential-minus-one log
log-plus-one sqrt rsqrt cbrt tanh logistic sine cosine tan atan2 erf is-finite not popcnt
count-leading-zeros add subtract multiply divide remainder power maximum minimum and or xor
shift-left shift-right-logical shift-right-arithmetic dot reduce reduce-window gather scatter
sort while conditional call tuple get-tuple-element opt-barrier after-all custom-call
""".split()

# Opcodes that JAX 0.11.2 does not emit on CPU or CUDA, with the reason.
KNOWN_UNREACHABLE = {
    "logistic": "emitted only for TPU (jax_use_hlo_logistic_lowering); CPU/CUDA get 1/(1+exp(-x))",
    "copy": "jax emits no copy op at lowering time; XLA inserts copies later in compilation",
    "after-all": "tokens come only from effects (io_callback, ordered effects) that need a host "
    "callback, which a corpus program cannot carry",
}

REQUIRED_COMPARE_DIRECTIONS = ["EQ", "NE", "LT", "LE", "GT", "GE"]
REQUIRED_COMPARE_TYPES = ["FLOAT", "SIGNED", "UNSIGNED", "TOTALORDER"]
REQUIRED_DTYPES = "pred s8 s16 s32 s64 u8 u16 u32 u64 f16 bf16 f32 f64".split()
REQUIRED_CUSTOM_CALLS = ["cu_threefry2x32_ffi"]


def summarise(entries: list[dict]) -> dict:
    """Totals over the manifest entries of every program (CPU and CUDA HLO together)."""
    opcodes: collections.Counter = collections.Counter()
    programs_with: dict[str, list[str]] = collections.defaultdict(list)
    compares: collections.Counter = collections.Counter()
    custom_calls: collections.Counter = collections.Counter()
    dtypes: collections.Counter = collections.Counter()
    for entry in entries:
        seen: set[str] = set()
        for stats in (entry["hlo"], entry.get("cuda_hlo") or {}):
            for op, n in stats.get("opcodes", {}).items():
                opcodes[op] += n
                seen.add(op)
            compares.update(stats.get("compare", {}))
            custom_calls.update(stats.get("custom_calls", {}))
        for op in seen:
            programs_with[op].append(entry["name"])
        for leaf in entry["inputs"] + entry["outputs"]:
            dtypes[leaf["dtype"]] += 1
    return {
        "opcodes": opcodes,
        "programs_with": programs_with,
        "compare": compares,
        "custom_calls": custom_calls,
        "dtypes": dtypes,
    }


def missing(summary: dict) -> list[str]:
    """Every requirement the corpus does not meet, except the known-unreachable opcodes."""
    gaps = []
    for op in REQUIRED_OPCODES:
        if op not in summary["opcodes"] and op not in KNOWN_UNREACHABLE:
            gaps.append(f"opcode {op}")
    directions = {key.split(":")[0] for key in summary["compare"]}
    kinds = {key.split(":")[1] for key in summary["compare"]}
    gaps += [f"compare direction {d}" for d in REQUIRED_COMPARE_DIRECTIONS if d not in directions]
    gaps += [f"compare type {t}" for t in REQUIRED_COMPARE_TYPES if t not in kinds]
    gaps += [f"dtype {t}" for t in REQUIRED_DTYPES if t not in summary["dtypes"]]
    gaps += [f"custom-call {t}" for t in REQUIRED_CUSTOM_CALLS if t not in summary["custom_calls"]]
    return gaps


def report(entries: list[dict]) -> str:
    summary = summarise(entries)
    lines = ["opcode coverage (occurrences, programs):"]
    for op in sorted(set(REQUIRED_OPCODES) | set(summary["opcodes"])):
        n = summary["opcodes"].get(op, 0)
        note = (
            f"  -- not covered: {KNOWN_UNREACHABLE[op]}"
            if op in KNOWN_UNREACHABLE and not n
            else ""
        )
        lines.append(f"  {op:28s} {n:6d} {len(summary['programs_with'].get(op, [])):4d}{note}")
    lines.append(
        "compare kinds: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["compare"].items()))
    )
    lines.append(
        "dtypes (input/output leaves): "
        + ", ".join(f"{k}={v}" for k, v in sorted(summary["dtypes"].items()))
    )
    lines.append(
        "custom calls: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["custom_calls"].items()))
    )
    gaps = missing(summary)
    lines.append("MISSING: " + (", ".join(gaps) if gaps else "nothing"))
    return "\n".join(lines)
