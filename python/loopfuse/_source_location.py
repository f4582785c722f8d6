"""Where an HLO instruction comes from in the user's Python source.

A loopfuse diagnostic points at a line of the HLO text. JAX's debug-info printing of the same
module adds `metadata={op_name=... stack_frame_id=N}` to each instruction and tables that resolve
the frame to file:line (FileNames, FunctionNames, FileLocations, StackFrames). The tables shift the
line numbers, so instructions are matched by name.
"""

from __future__ import annotations

import re

_DIAGNOSTIC = re.compile(r"^[^\n]*?:(\d+):(\d+): error: (.*)$", re.MULTILINE)
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=")
_TABLE_ENTRY = re.compile(r"^(\d+) (.*)$")


def first_diagnostic(message: str) -> tuple[int, str] | None:
    """(HLO line, message) of the first `file:line:col: error: message` in a loopfuse error."""
    m = _DIAGNOSTIC.search(message)
    return (int(m.group(1)), m.group(3).strip()) if m else None


def _tables(debug_text: str) -> dict[str, dict[int, str]]:
    tables: dict[str, dict[int, str]] = {}
    current: dict[int, str] | None = None
    for line in debug_text.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            current = tables.setdefault(line, {})
        elif not line.strip() or line.startswith(("ENTRY", "HloModule")):
            current = None
        elif current is not None and (m := _TABLE_ENTRY.match(line)):
            current[int(m.group(1))] = m.group(2)
    return tables


def _field(text: str, name: str) -> str | None:
    m = re.search(rf"\b{name}=(\"[^\"]*\"|\d+)", text)
    return m.group(1).strip('"') if m else None


def _frame_location(tables: dict[str, dict[int, str]], frame_id: int) -> str | None:
    frame = tables.get("StackFrames", {}).get(frame_id)
    if frame is None:
        return None
    location = tables.get("FileLocations", {}).get(int(_field(frame, "file_location_id") or -1))
    if location is None:
        return None
    file_name = tables.get("FileNames", {}).get(int(_field(location, "file_name_id") or -1), "?")
    return f"{file_name.strip(chr(34))}:{_field(location, 'line')}"


def python_location(hlo_text: str, debug_text: str, hlo_line: int) -> str | None:
    """`file.py:line (op_name)` of the instruction on `hlo_line` of `hlo_text`, when known."""
    lines = hlo_text.splitlines()
    if not 1 <= hlo_line <= len(lines):
        return None
    m = _INSTRUCTION.match(lines[hlo_line - 1])
    if not m:
        return None
    name = m.group(1)
    for line in debug_text.splitlines():
        d = _INSTRUCTION.match(line)
        if not d or d.group(1) != name:
            continue
        op_name = _field(line, "op_name")
        frame = _field(line, "stack_frame_id")
        where = _frame_location(_tables(debug_text), int(frame)) if frame else None
        parts = [p for p in (where, f"({op_name})" if op_name else None) if p]
        return " ".join(parts) or None
    return None
