"""Opcode statistics of JAX's short-form HLO text, for the corpus manifest and coverage.

A line of short-form HLO reads `[ROOT] name = shape opcode(operands), attrs`. The
shape may be a tuple `(s32[], /*index=5*/f32[2]{0})`, so the opcode is found as the
first lower-case identifier directly followed by `(` after ` = `.
"""

from __future__ import annotations

import collections
import re

_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?([\w.\-]+) = (.*)$")
_OPCODE = re.compile(r"(?:^|\s)([a-z][a-z0-9\-]*)\(")
_SHAPE_DTYPE = re.compile(r"^([a-z]+[0-9]*)\[")
_DIRECTION = re.compile(r"direction=([A-Z]+)")
_COMPARE_TYPE = re.compile(r"type=([A-Z]+)")
# jax 0.11 prints a total-order float compare as `order=TOTAL` (older XLA: type=TOTALORDER).
_COMPARE_ORDER = re.compile(r"order=([A-Z]+)")
_CUSTOM_CALL_TARGET = re.compile(r'custom_call_target="([^"]+)"')
ELIDED_CONSTANT = "{...}"

_FLOAT = {"f16", "bf16", "f32", "f64"}
_SIGNED = {"s8", "s16", "s32", "s64"}


def _default_compare_type(dtype: str) -> str:
    if dtype in _FLOAT:
        return "FLOAT"
    if dtype in _SIGNED:
        return "SIGNED"
    return "UNSIGNED"  # u8..u64 and pred


def _operand_names(rest: str, opcode: str) -> list[str]:
    start = rest.index(opcode + "(") + len(opcode) + 1
    depth, end = 1, start
    while depth and end < len(rest):
        depth += {"(": 1, ")": -1}.get(rest[end], 0)
        end += 1
    return [name.strip() for name in rest[start : end - 1].split(",") if name.strip()]


def analyse(hlo_text: str) -> dict:
    """Returns {"opcodes": {op: n}, "compare": {"LT:FLOAT": n}, "custom_calls": {target: n}}."""
    opcodes: collections.Counter = collections.Counter()
    compares: collections.Counter = collections.Counter()
    custom_calls: collections.Counter = collections.Counter()
    dtype_of: dict[str, str] = {}
    for line in hlo_text.splitlines():
        match = _INSTRUCTION.match(line)
        if not match or line.lstrip().startswith("HloModule"):
            continue
        name, rest = match.groups()
        opcode_match = _OPCODE.search(rest)
        if not opcode_match:
            continue
        opcode = opcode_match.group(1)
        opcodes[opcode] += 1
        dtype_match = _SHAPE_DTYPE.match(rest)
        if dtype_match:
            dtype_of[name] = dtype_match.group(1)
        if opcode == "compare":
            # Short-form HLO prints no operand shapes: look the first operand up.
            operand_dtype = dtype_of.get(_operand_names(rest, opcode)[0], "?")
            explicit = _COMPARE_TYPE.search(rest)
            order = _COMPARE_ORDER.search(rest)
            if explicit:
                kind = explicit.group(1)
            elif order:
                kind = order.group(1) + "ORDER"
            else:
                kind = _default_compare_type(operand_dtype)
            compares[f"{_DIRECTION.search(rest).group(1)}:{kind}"] += 1
        elif opcode == "custom-call":
            custom_calls[_CUSTOM_CALL_TARGET.search(rest).group(1)] += 1
    return {
        "opcodes": dict(sorted(opcodes.items())),
        "compare": dict(sorted(compares.items())),
        "custom_calls": dict(sorted(custom_calls.items())),
    }


_LAYOUT = re.compile(r"entry_computation_layout=\{\((.*)\)->(.*)\}")
_ARRAY_SHAPE = re.compile(r"([a-z]+[0-9]*)\[([0-9,]*)\]")


def entry_layout(hlo_text: str) -> tuple[list, list]:
    """[(dtype, dims)] of the entry parameters and of the result leaves, from the module header."""
    header = hlo_text.splitlines()[0]
    params, result = _LAYOUT.search(header).groups()

    def shapes(text):
        return [
            (dtype, [int(d) for d in dims.split(",") if d])
            for dtype, dims in _ARRAY_SHAPE.findall(text)
        ]

    return shapes(params), shapes(result)
