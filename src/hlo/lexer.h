// Splits HLO text into tokens. Comments (`// ...` and `/* ... */`) and whitespace are skipped.
// Attribute values are not tokenised: the parser asks for them as raw, bracket-balanced text
// (scanRawValue), since the parser gives them no meaning.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "support/diagnostic.h"

namespace lf::hlo {

enum class TokKind {
  kEof,
  kIdent,   // [A-Za-z_][A-Za-z0-9_.-]*, also `nan(0x7f)` with its payload
  kName,    // %ident; text() is without the '%'
  kNumber,  // -?digits(.digits)?([eE][+-]?digits)?, also `-inf`, `-nan`, `-nan(0x7f)`
  kString,  // "..." or '...'; text() includes the quotes, escapes kept as written
  kEqual,
  kComma,
  kColon,
  kLParen,
  kRParen,
  kLSquare,
  kRSquare,
  kLBrace,
  kRBrace,
  kArrow,  // ->
  kLeq,    // <=
  kDots,   // ...
  kStar,   // * (tile dimensions in layouts)
  kQuestion,
};

// A short human name for a token kind, for "expected X" messages.
const char* tokKindName(TokKind kind);

struct Token {
  TokKind kind = TokKind::kEof;
  std::string_view text;  // a view into the source text
  SourceLoc loc;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // The next token; throws CompileError on bytes that start no token, unterminated strings and
  // comments, and NUL bytes.
  Token next();

  // The token that next() would return, without consuming it.
  Token peek();

  // Reads an attribute value starting at the current position (after `name=`): a run of
  // characters up to a top-level `,`, whitespace, or a `)`/`}` that closes an outer bracket;
  // brackets ({[( and quoted strings inside are balanced. Throws on mismatched brackets, an
  // unterminated string, nesting deeper than kMaxDepth, or an empty value.
  Token scanRawValue();

  SourceLoc location() const { return {line_, col_}; }

  static constexpr int kMaxDepth = 256;

 private:
  void skipTrivia();
  void advance(size_t n);
  Token make(TokKind kind, size_t begin, SourceLoc loc) const;
  Token lexNumber(size_t begin, SourceLoc loc);
  Token lexIdent(size_t begin, SourceLoc loc);
  Token lexString(size_t begin, SourceLoc loc);
  size_t nanPayloadLength(size_t at) const;  // length of `(0x[0-9a-f]+)` at `at`, or 0
  [[noreturn]] void fail(SourceLoc loc, const std::string& message) const;
  [[noreturn]] void failUnexpected(size_t at, SourceLoc loc) const;

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

}  // namespace lf::hlo
