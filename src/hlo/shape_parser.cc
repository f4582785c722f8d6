// Shapes: `f32[2,3]{1,0}`, `s32[]`, `f32[<=10]`, `(s32[], f32[2]{0})`, `token[]`. Layouts
// (`{1,0}`, `{1,0:T(8,128)(2,1)}`, `{0:T(128)S(1)}`, `{:E(4)}`) are checked for token syntax and
// dropped.
#include <charconv>

#include "hlo/parser.h"

namespace lf::hlo {

namespace {

// A dimension size or bound: decimal digits that fit in int64.
bool parseDimension(std::string_view text, int64_t& value) {
  if (text.empty() || text[0] == '-') return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

bool Parser::atShapeStart() {
  if (at(TokKind::kLParen)) return true;
  return at(TokKind::kIdent) && lex_.peek().kind == TokKind::kLSquare;
}

Shape Parser::parseShape(int depth) {
  if (depth >= Lexer::kMaxDepth) fail(tok_.loc, "tuple shape nested too deeply");
  Shape shape;
  shape.loc = tok_.loc;
  if (accept(TokKind::kLParen)) {
    shape.isTuple = true;
    if (accept(TokKind::kRParen)) return shape;
    do {
      shape.tupleElements.push_back(parseShape(depth + 1));
    } while (accept(TokKind::kComma));
    expect(TokKind::kRParen, "',' or ')' in tuple shape");
    return shape;
  }
  if (!at(TokKind::kIdent)) failExpected("a shape");
  shape.elementType = std::string(take().text);
  expectWith(TokKind::kLSquare,
             [&] { return "'[' after element type '" + shape.elementType + "'"; });
  if (!at(TokKind::kRSquare)) {
    do {
      if (shape.dims.size() >= static_cast<size_t>(Lexer::kMaxDepth))
        fail(tok_.loc, "too many dimensions in shape");
      bool dynamic = accept(TokKind::kLeq);
      if (at(TokKind::kQuestion))
        fail(tok_.loc, "unbounded dynamic dimension '?' is not supported (give a bound: '<=N')");
      int64_t size = 0;
      if (!at(TokKind::kNumber) || !parseDimension(tok_.text, size))
        failExpected(dynamic ? "a dimension bound after '<='" : "a dimension size");
      take();
      shape.dims.push_back(size);
      shape.dynamic.push_back(dynamic);
    } while (accept(TokKind::kComma));
  }
  expect(TokKind::kRSquare, "']' after dimension list");
  if (at(TokKind::kLBrace)) {
    TokKind next = lex_.peek().kind;
    if (next == TokKind::kNumber || next == TokKind::kColon) skipLayout();
  }
  return shape;
}

// `{1,0}` or `{1,0:T(8,128)(2,1)E(4)S(1)}`: minor-to-major numbers, then after ':' the tiling,
// element size and memory space items, which are identifiers with parenthesised numbers.
void Parser::skipLayout() {
  take();  // '{'
  bool afterColon = false;
  int parens = 0;
  while (!at(TokKind::kRBrace) || parens > 0) {
    switch (tok_.kind) {
      case TokKind::kNumber:
      case TokKind::kComma:
        break;
      case TokKind::kColon:
        afterColon = true;
        break;
      case TokKind::kIdent:
      case TokKind::kStar:
      case TokKind::kLParen:
        if (!afterColon) failExpected("',' or '}' in layout");
        parens += at(TokKind::kLParen);
        break;
      case TokKind::kRParen:
        if (parens == 0) failExpected("'}' after layout");
        --parens;
        break;
      default:
        failExpected(parens > 0 ? "')' in layout" : "'}' after layout");
    }
    take();
  }
  take();  // '}'
}

}  // namespace lf::hlo
