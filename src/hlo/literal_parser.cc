// The operands of `constant(...)` and `parameter(N)`. A constant's value is checked against its
// shape (nesting of `{...}` and element count per dimension) and each element against the element
// type: integers in range for sN/uN, `true`/`false`/`0`/`1` for pred, float syntax (with inf, nan,
// nan(0x7f)) for floating types, `(re, im)` for complex types.
#include <charconv>

#include "hlo/parser.h"

namespace lf::hlo {

namespace {

enum class ElementClass { kPred, kSigned, kUnsigned, kFloat, kComplex, kOther };

bool isDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

ElementClass classify(std::string_view type, int& bits) {
  bits = 0;
  if (type == "pred") return ElementClass::kPred;
  if (type == "c64" || type == "c128") return ElementClass::kComplex;
  if (type == "bf16" || (type.size() >= 2 && type[0] == 'f' && isDigits(type.substr(1, 1))))
    return ElementClass::kFloat;
  if (type.size() >= 2 && (type[0] == 's' || type[0] == 'u') && isDigits(type.substr(1))) {
    std::from_chars(type.data() + 1, type.data() + type.size(), bits);
    if (bits >= 1 && bits <= 64)
      return type[0] == 's' ? ElementClass::kSigned : ElementClass::kUnsigned;
  }
  return ElementClass::kOther;
}

bool isFloatWord(const Token& t) {
  return t.kind == TokKind::kIdent &&
         (t.text == "inf" || t.text == "nan" || t.text.starts_with("nan("));
}

bool isIntegerText(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return isDigits(s);
}

// Whether the integer text fits in an sN / uN.
bool integerInRange(std::string_view s, bool isSigned, int bits) {
  const char* end = s.data() + s.size();
  if (isSigned) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc() || p != end) return false;
    if (bits == 64) return true;
    int64_t limit = int64_t{1} << (bits - 1);
    return v >= -limit && v < limit;
  }
  if (s[0] == '-') return s.find_first_not_of("-0") == std::string_view::npos;  // "-0"
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end) return false;
  return bits == 64 || v < (uint64_t{1} << bits);
}

constexpr const char* kElidedMessage =
    "constant elided as {...}: print the HLO with all constants, e.g. jax's "
    "lowered.as_text(dialect=\"hlo\") (jax >= 0.5) or as_hlo_text(print_large_constants=True), "
    "or XLA's --xla_dump_large_constants";

}  // namespace

Literal Parser::parseConstantValue(const Shape& shape) {
  Literal literal;
  literal.loc = tok_.loc;
  if (shape.isTuple) fail(tok_.loc, "tuple-shaped constants are not supported");
  if (shape.dims.empty()) {
    if (at(TokKind::kLBrace)) {
      if (lex_.peek().kind == TokKind::kDots) fail(tok_.loc, kElidedMessage);
      failExpected("a scalar value for a constant of shape " + shape.toString());
    }
    parseLiteralElement(shape, literal);
  } else {
    parseLiteralList(shape, 0, literal);
  }
  return literal;
}

void Parser::parseLiteralList(const Shape& shape, size_t dim, Literal& out) {
  auto where = [&] {
    return "dimension " + std::to_string(dim) + " of the constant of shape " + shape.toString();
  };
  if (!at(TokKind::kLBrace)) failExpected("'{' to start " + where());
  if (lex_.peek().kind == TokKind::kDots) fail(tok_.loc, kElidedMessage);
  take();
  int64_t expected = shape.dims[dim];
  int64_t count = 0;
  bool innermost = dim + 1 == shape.dims.size();
  if (!at(TokKind::kRBrace)) {
    do {
      if (count == expected)
        fail(tok_.loc,
             "too many elements in " + where() + " (expected " + std::to_string(expected) + ")");
      if (!innermost) {
        parseLiteralList(shape, dim + 1, out);
      } else {
        if (at(TokKind::kLBrace))
          fail(tok_.loc, "too many '{' levels: the constant of shape " + shape.toString() +
                             " has " + std::to_string(shape.dims.size()) + " dimension(s)");
        parseLiteralElement(shape, out);
      }
      ++count;
    } while (accept(TokKind::kComma));
  }
  if (at(TokKind::kRBrace) && count < expected)
    fail(tok_.loc, "too few elements in " + where() + ": expected " + std::to_string(expected) +
                       ", found " + std::to_string(count));
  expectWith(TokKind::kRBrace, [&] { return "',' or '}' in " + where(); });
}

void Parser::parseLiteralElement(const Shape& shape, Literal& out) {
  int bits = 0;
  ElementClass cls = classify(shape.elementType, bits);
  const std::string& type = shape.elementType;
  Token t = tok_;
  auto bad = [&](const std::string& why) {
    fail(t.loc, "invalid " + type + " value '" + std::string(t.text) + "': " + why);
  };
  if (cls == ElementClass::kComplex) {
    // `(re, im)`
    if (!at(TokKind::kLParen)) failExpected("'(' to start a complex value (re, im)");
    take();
    std::string text = "(";
    for (int part = 0; part < 2; ++part) {
      if (!at(TokKind::kNumber) && !isFloatWord(tok_))
        failExpected(part == 0 ? "the real part of a complex value" : "the imaginary part");
      text += std::string(take().text);
      if (part == 0) {
        expect(TokKind::kComma, "',' between the parts of a complex value");
        text += ", ";
      }
    }
    expect(TokKind::kRParen, "')' after a complex value");
    out.elements.push_back(text + ")");
    out.locs.push_back(t.loc);
    return;
  }
  if (t.kind != TokKind::kNumber && t.kind != TokKind::kIdent)
    failExpected("a constant value of type " + type);
  switch (cls) {
    case ElementClass::kPred:
      if (t.text != "true" && t.text != "false" && t.text != "0" && t.text != "1")
        bad("expected true, false, 0 or 1");
      break;
    case ElementClass::kSigned:
    case ElementClass::kUnsigned:
      if (t.kind != TokKind::kNumber || !isIntegerText(t.text)) bad("not an integer");
      if (!integerInRange(t.text, cls == ElementClass::kSigned, bits)) bad("out of range");
      break;
    case ElementClass::kFloat:
      if (t.kind != TokKind::kNumber && !isFloatWord(t)) bad("not a number");
      break;
    case ElementClass::kComplex:
      break;
    case ElementClass::kOther:
      if (t.kind != TokKind::kNumber && !isFloatWord(t) && t.text != "true" && t.text != "false")
        failExpected("a constant value");
      break;
  }
  take();
  out.elements.emplace_back(t.text);
  out.locs.push_back(t.loc);
}

int64_t Parser::parseParameterNumber() {
  int64_t number = -1;
  if (at(TokKind::kNumber) && isDigits(tok_.text)) {
    auto [p, ec] = std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), number);
    if (ec != std::errc()) number = -1;
  }
  if (number < 0) failExpected("a parameter number");
  take();
  return number;
}

}  // namespace lf::hlo
