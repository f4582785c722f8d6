// Module, computation and instruction syntax (grammar as XLA's hlo_parser.cc prints it):
//   module      ::= 'HloModule' name (',' attribute)* (stack_frame_table | computation)+
//   computation ::= 'ENTRY'? name ('(' params ')' '->' shape)? '{' instruction+ '}'
//                   (',' attribute)*
//   instruction ::= 'ROOT'? name '=' shape opcode '(' operands ')' (',' attribute)*
//   operand     ::= shape? name | shape opcode '(' operands ')'      (nested, hoisted)
#include "hlo/parser.h"

#include <string>

namespace lf::hlo {

Token Parser::take() {
  Token t = tok_;
  tok_ = lex_.next();
  return t;
}

bool Parser::accept(TokKind kind) {
  if (!at(kind)) return false;
  take();
  return true;
}

void Parser::fail(SourceLoc loc, const std::string& message) const {
  throw CompileError(loc, message);
}

void Parser::failExpected(const std::string& what) const {
  std::string found = at(TokKind::kEof) ? "end of file" : "'" + std::string(tok_.text) + "'";
  if (at(TokKind::kName)) found = "'%" + std::string(tok_.text) + "'";
  fail(tok_.loc, "expected " + what + ", found " + found);
}

Token Parser::expect(TokKind kind, const char* what) {
  if (!at(kind)) failExpected(what);
  return take();
}

Token Parser::expectName(const char* what) {
  if (!at(TokKind::kName) && !at(TokKind::kIdent)) failExpected(what);
  return take();
}

Module Parser::parseModule() {
  Module module;
  if (!atIdent("HloModule")) failExpected("'HloModule' at the start of the module");
  module.loc = take().loc;
  module.name = std::string(expectName("the module name after 'HloModule'").text);
  while (accept(TokKind::kComma)) module.attributes.push_back(parseAttribute());

  bool haveEntry = false;
  while (!at(TokKind::kEof)) {
    bool isTable = atIdent("FileNames") || atIdent("FunctionNames") || atIdent("FileLocations") ||
                   atIdent("StackFrames");
    if (isTable && lex_.peek().kind == TokKind::kNumber) {
      skipStackFrameTable();
      continue;
    }
    Computation comp = parseComputation();
    if (comp.isEntry) {
      if (haveEntry)
        fail(comp.loc, "second ENTRY computation '" + comp.name + "' (the entry is '" +
                           module.computations[module.entryIndex].name + "')");
      haveEntry = true;
      module.entryIndex = static_cast<int>(module.computations.size());
    }
    module.computations.push_back(std::move(comp));
  }
  if (module.computations.empty()) fail(tok_.loc, "expected a computation, found end of file");
  if (!haveEntry) module.entryIndex = static_cast<int>(module.computations.size()) - 1;
  checkModule(module);
  return module;
}

// The debug-info tables that XLA dumps print after the module header, e.g.
//   FileNames
//   1 "/x.py"
//   FileLocations
//   1 {file_name_id=1 function_name_id=1 line=3 ...}
// loopfuse has no use for them; they are checked for balanced syntax and skipped.
void Parser::skipStackFrameTable() {
  take();  // the table name
  while (at(TokKind::kNumber)) {
    lex_.scanRawValue();
    tok_ = lex_.next();
  }
}

Computation Parser::parseComputation() {
  Computation comp;
  if (atIdent("ENTRY")) {
    comp.isEntry = true;
    take();
  }
  Token name = expectName("a computation name");
  comp.name = std::string(name.text);
  comp.loc = name.loc;
  if (at(TokKind::kLParen)) {
    parseParameterList();
    expectWith(TokKind::kArrow, [&] {
      return std::string("'->' after the parameter list of computation '") + comp.name + "'";
    });
    parseShape();
  }
  expectWith(TokKind::kLBrace, [&] {
    return std::string("'{' to start the body of computation '") + comp.name + "'";
  });
  while (!at(TokKind::kRBrace)) {
    if (at(TokKind::kEof))
      failExpected("an instruction or '}' to end computation '" + comp.name + "'");
    parseInstruction(comp.instructions);
  }
  Token close = take();
  if (comp.instructions.empty())
    fail(close.loc, "computation '" + comp.name + "' has no instructions");
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    if (!comp.instructions[i].isRoot) continue;
    if (comp.rootIndex >= 0)
      fail(comp.instructions[i].loc, "second ROOT instruction '" + comp.instructions[i].name +
                                         "' in computation '" + comp.name + "'");
    comp.rootIndex = static_cast<int>(i);
  }
  if (comp.rootIndex < 0) comp.rootIndex = static_cast<int>(comp.instructions.size()) - 1;
  // `, execution_thread="host"` and the like: syntax-checked and dropped.
  while (accept(TokKind::kComma)) parseAttribute();
  checkComputation(comp);
  return comp;
}

// `(p: f32[2], q: (s32[], f32[]))` in the long form; the parameter instructions in the body say
// the same, so this is only checked for syntax.
void Parser::parseParameterList() {
  take();  // '('
  if (accept(TokKind::kRParen)) return;
  do {
    expectName("a parameter name");
    expect(TokKind::kColon, "':' after the parameter name");
    parseShape();
  } while (accept(TokKind::kComma));
  expect(TokKind::kRParen, "',' or ')' in the parameter list");
}

void Parser::parseInstruction(std::vector<Instruction>& out) {
  Instruction instr;
  if (atIdent("ROOT")) {
    instr.isRoot = true;
    take();
  }
  Token name = expectName("an instruction name");
  instr.name = std::string(name.text);
  instr.loc = name.loc;
  expectWith(TokKind::kEqual,
             [&] { return std::string("'=' after instruction name '") + instr.name + "'"; });
  if (!atShapeStart()) failExpected("a shape (like f32[2,3]) after '='");
  instr.shape = parseShape();
  if (!at(TokKind::kIdent)) failExpected("an opcode after the shape");
  Token opcode = take();
  instr.opcode = std::string(opcode.text);
  instr.opcodeLoc = opcode.loc;
  expectWith(TokKind::kLParen,
             [&] { return std::string("'(' after opcode '") + instr.opcode + "'"; });
  parseOperandList(instr, out, 0);
  while (accept(TokKind::kComma)) instr.attributes.push_back(parseAttribute());
  out.push_back(std::move(instr));
}

// After the '(' of the operand list, through the ')'.
void Parser::parseOperandList(Instruction& instr, std::vector<Instruction>& out, int depth) {
  if (instr.opcode == "constant") {
    instr.literal = parseConstantValue(instr.shape);
  } else if (instr.opcode == "parameter") {
    instr.parameterNumber = parseParameterNumber();
  } else if (!at(TokKind::kRParen)) {
    do {
      instr.operands.push_back(parseOperand(out, depth));
    } while (accept(TokKind::kComma));
  }
  expectWith(TokKind::kRParen,
             [&] { return std::string("',' or ')' after the operands of '") + instr.name + "'"; });
}

Operand Parser::parseOperand(std::vector<Instruction>& out, int depth) {
  Operand operand;
  if (atShapeStart()) operand.shape = parseShape();
  Token name = expectName("an operand name");
  operand.loc = name.loc;
  if (name.kind != TokKind::kIdent || !at(TokKind::kLParen)) {
    operand.name = std::string(name.text);
    return operand;
  }
  // A nested instruction, e.g. `add(f32[] constant(1), x)`: hoisted before its user under a
  // generated name that no parsed name can clash with ('#' never lexes as part of a name).
  if (!operand.shape)
    fail(name.loc, "nested instruction '" + std::string(name.text) +
                       "' needs its shape, e.g. 'f32[] constant(1)'");
  if (depth >= Lexer::kMaxDepth) fail(name.loc, "nested instructions nested too deeply");
  take();  // '('
  Instruction nested;
  nested.name = std::string(name.text) + "#" + std::to_string(++nestedCount_);
  nested.loc = operand.shape->loc;
  nested.shape = *operand.shape;
  nested.opcode = std::string(name.text);
  nested.opcodeLoc = name.loc;
  parseOperandList(nested, out, depth + 1);
  operand.name = nested.name;
  operand.shape.reset();
  out.push_back(std::move(nested));
  return operand;
}

// `name=value`; the value is kept as raw text (see Lexer::scanRawValue).
Attribute Parser::parseAttribute() {
  Attribute attr;
  if (!at(TokKind::kIdent)) failExpected("an attribute name");
  Token name = take();
  attr.name = std::string(name.text);
  attr.loc = name.loc;
  if (!at(TokKind::kEqual)) failExpected("'=' after attribute name '" + attr.name + "'");
  Token value = lex_.scanRawValue();  // starts right after the '=' (tok_)
  attr.value = std::string(value.text);
  attr.valueLoc = value.loc;
  tok_ = lex_.next();
  return attr;
}

Module parseModule(const SourceFile& file) { return Parser(file).parseModule(); }

}  // namespace lf::hlo
