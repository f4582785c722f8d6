// The syntax tree of an HLO module as XLA prints it. The parser fills it; it knows no op semantics
// (the frontend gives them meaning). Every node keeps the location it was read from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostic.h"

namespace lf::hlo {

// `f32[2,3]{1,0}`, `s32[]`, `f32[<=10]`, `(s32[], f32[2])`, `token[]`. The element type is kept as
// written ("f32", "c64", "token"); the frontend decides what it supports. Layouts are parsed and
// dropped: loopfuse works in row-major logical order, which is how HLO text prints values.
struct Shape {
  bool isTuple = false;
  std::string elementType;           // empty for tuples
  std::vector<int64_t> dims;         // for `<=N` dims: the bound N
  std::vector<bool> dynamic;         // same length as dims; true for `<=N`
  std::vector<Shape> tupleElements;  // for tuples
  SourceLoc loc;
  std::string toString() const;  // canonical text without layout: "f32[2,3]", "(s32[], f32[2])"
};

// The value of `name=value` after the operands, kept as its exact text (balanced brackets and
// quoted strings included). Typed readers live in hlo/attributes.h.
struct Attribute {
  std::string name;
  std::string value;
  SourceLoc loc;       // of the name
  SourceLoc valueLoc;  // of the first character of value
};

// `constant(...)`: the element texts in row-major order, checked against the shape by the parser
// (nesting, count, and that each element is a valid value of the element type).
struct Literal {
  std::vector<std::string> elements;  // "1", "-0.5", "inf", "-nan", "nan(0x7f)", "true", ...
  std::vector<SourceLoc> locs;        // one per element
  SourceLoc loc;
};

struct Operand {
  std::string name;  // without '%'
  SourceLoc loc;
  std::optional<Shape> shape;  // present in the long form
};

struct Instruction {
  std::string name;  // without '%'
  SourceLoc loc;     // of the name
  bool isRoot = false;
  Shape shape;
  std::string opcode;  // "add", "get-tuple-element", ...
  SourceLoc opcodeLoc;
  std::vector<Operand> operands;
  std::optional<Literal> literal;  // constant only
  int64_t parameterNumber = -1;    // parameter only
  std::vector<Attribute> attributes;

  const Attribute* attr(std::string_view attrName) const;  // nullptr when absent
};

struct Computation {
  std::string name;  // without '%'
  SourceLoc loc;
  bool isEntry = false;
  std::vector<Instruction> instructions;  // in text order
  int rootIndex = -1;                     // the ROOT instruction, else the last one
  const Instruction& root() const { return instructions[rootIndex]; }
  const Instruction* find(std::string_view instrName) const;
};

struct Module {
  std::string name;
  SourceLoc loc;
  std::vector<Attribute> attributes;  // entry_computation_layout, is_scheduled, ...
  std::vector<Computation> computations;
  int entryIndex = -1;  // the ENTRY computation, else the last one
  const Computation& entry() const { return computations[entryIndex]; }
  const Computation* find(std::string_view compName) const;
};

// Parses a whole module. Throws lf::CompileError with one diagnostic on the first syntax error.
Module parseModule(const SourceFile& file);

}  // namespace lf::hlo
