// The recursive-descent parser behind hlo::parseModule. Internal to src/hlo: its methods are split
// over parser.cc (module, computations, instructions), shape_parser.cc and literal_parser.cc.
#pragma once

#include <string>
#include <vector>

#include "hlo/ast.h"
#include "hlo/lexer.h"

namespace lf::hlo {

class Parser {
 public:
  explicit Parser(const SourceFile& file) : lex_(file.text()) { tok_ = lex_.next(); }

  Module parseModule();

 private:
  // Token helpers. tok_ is the current (not yet consumed) token.
  Token take();
  bool at(TokKind kind) const { return tok_.kind == kind; }
  bool atIdent(std::string_view text) const { return at(TokKind::kIdent) && tok_.text == text; }
  bool accept(TokKind kind);
  Token expect(TokKind kind, const char* what);
  // As expect, building the message only on failure (it names things, which costs allocations).
  template <typename Describe>
  Token expectWith(TokKind kind, Describe describe) {
    if (!at(kind)) failExpected(describe());
    return take();
  }
  [[noreturn]] void fail(SourceLoc loc, const std::string& message) const;
  // "expected X" at the current token, naming what was found instead.
  [[noreturn]] void failExpected(const std::string& what) const;
  // A name: `%x` or `x`.
  Token expectName(const char* what);

  // parser.cc
  void skipStackFrameTable();
  Computation parseComputation();
  void parseParameterList();
  // Parses one instruction; nested operand instructions are appended to `out` before it.
  void parseInstruction(std::vector<Instruction>& out);
  void parseOperandList(Instruction& instr, std::vector<Instruction>& out, int depth);
  Operand parseOperand(std::vector<Instruction>& out, int depth);
  Attribute parseAttribute();

  // shape_parser.cc
  bool atShapeStart();
  Shape parseShape(int depth = 0);
  void skipLayout();

  // literal_parser.cc: the operands of `constant(...)` and `parameter(N)`, after the '('.
  Literal parseConstantValue(const Shape& shape);
  void parseLiteralList(const Shape& shape, size_t dim, Literal& out);
  void parseLiteralElement(const Shape& shape, Literal& out);
  int64_t parseParameterNumber();

  Lexer lex_;
  Token tok_;
  int nestedCount_ = 0;  // for names of hoisted nested instructions
};

// checks.cc: the checks that need no op semantics, run after parsing. Each throws CompileError.
void checkComputation(const Computation& comp);  // duplicate names, undefined operands, cycles
void checkModule(const Module& module);          // duplicate computations, missing callees

}  // namespace lf::hlo
