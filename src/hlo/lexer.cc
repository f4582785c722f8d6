#include "hlo/lexer.h"

#include <cstdio>
#include <vector>

namespace lf::hlo {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isIdentStart(char c) { return isAlpha(c) || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c) || c == '.' || c == '-'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
// Printable ASCII other than space: what may appear in an attribute value outside a string.
bool isRawChar(char c) { return c > ' ' && c < 0x7f; }

}  // namespace

const char* tokKindName(TokKind kind) {
  switch (kind) {
    case TokKind::kEof:
      return "end of file";
    case TokKind::kIdent:
      return "identifier";
    case TokKind::kName:
      return "name";
    case TokKind::kNumber:
      return "number";
    case TokKind::kString:
      return "string";
    case TokKind::kEqual:
      return "'='";
    case TokKind::kComma:
      return "','";
    case TokKind::kColon:
      return "':'";
    case TokKind::kLParen:
      return "'('";
    case TokKind::kRParen:
      return "')'";
    case TokKind::kLSquare:
      return "'['";
    case TokKind::kRSquare:
      return "']'";
    case TokKind::kLBrace:
      return "'{'";
    case TokKind::kRBrace:
      return "'}'";
    case TokKind::kArrow:
      return "'->'";
    case TokKind::kLeq:
      return "'<='";
    case TokKind::kDots:
      return "'...'";
    case TokKind::kStar:
      return "'*'";
    case TokKind::kQuestion:
      return "'?'";
  }
  return "token";
}

void Lexer::fail(SourceLoc loc, const std::string& message) const {
  throw CompileError(loc, message);
}

void Lexer::failUnexpected(size_t at, SourceLoc loc) const {
  unsigned char c = static_cast<unsigned char>(text_[at]);
  if (c > ' ' && c < 0x7f) fail(loc, std::string("unexpected character '") + char(c) + "'");
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", c);
  fail(loc, std::string("unexpected character (byte ") + hex + ")");
}

void Lexer::advance(size_t n) {
  for (size_t end = pos_ + n; pos_ < end; ++pos_) {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
  }
}

void Lexer::skipTrivia() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (isSpace(c)) {
      advance(1);
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance(1);
    } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
      SourceLoc start = location();
      size_t close = text_.find("*/", pos_ + 2);
      if (close == std::string_view::npos) fail(start, "unterminated '/*' comment");
      advance(close + 2 - pos_);
    } else {
      return;
    }
  }
}

Token Lexer::make(TokKind kind, size_t begin, SourceLoc loc) const {
  return {kind, text_.substr(begin, pos_ - begin), loc};
}

Token Lexer::peek() {
  size_t pos = pos_;
  int line = line_, col = col_;
  Token t = next();
  pos_ = pos;
  line_ = line;
  col_ = col;
  return t;
}

size_t Lexer::nanPayloadLength(size_t at) const {
  // `(0x` hex+ `)`
  if (text_.substr(at, 3) != "(0x") return 0;
  size_t i = at + 3;
  while (i < text_.size() && isHexDigit(text_[i])) ++i;
  if (i == at + 3 || i >= text_.size() || text_[i] != ')') return 0;
  return i + 1 - at;
}

Token Lexer::lexNumber(size_t begin, SourceLoc loc) {
  size_t i = pos_;
  if (text_[i] == '-') ++i;
  for (std::string_view special : {"inf", "nan"}) {
    if (text_.substr(i, 3) == special && (i + 3 >= text_.size() || !isIdentChar(text_[i + 3]))) {
      i += 3;
      if (special == "nan") i += nanPayloadLength(i);
      advance(i - pos_);
      return make(TokKind::kNumber, begin, loc);
    }
  }
  if (i >= text_.size() || !isDigit(text_[i])) failUnexpected(pos_, loc);  // `-infinity`, `-x`
  while (i < text_.size() && isDigit(text_[i])) ++i;
  if (i < text_.size() && text_[i] == '.') {
    ++i;
    while (i < text_.size() && isDigit(text_[i])) ++i;
  }
  if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
    size_t j = i + 1;
    if (j < text_.size() && (text_[j] == '+' || text_[j] == '-')) ++j;
    if (j < text_.size() && isDigit(text_[j])) {
      while (j < text_.size() && isDigit(text_[j])) ++j;
      i = j;
    }
  }
  advance(i - pos_);
  return make(TokKind::kNumber, begin, loc);
}

Token Lexer::lexIdent(size_t begin, SourceLoc loc) {
  size_t i = pos_;
  // An identifier never swallows the `-` of a following `->`.
  while (i < text_.size() && isIdentChar(text_[i]) &&
         !(text_[i] == '-' && i + 1 < text_.size() && text_[i + 1] == '>'))
    ++i;
  if (text_.substr(pos_, i - pos_) == "nan") i += nanPayloadLength(i);
  advance(i - pos_);
  return make(TokKind::kIdent, begin, loc);
}

Token Lexer::lexString(size_t begin, SourceLoc loc) {
  char quote = text_[pos_];
  size_t i = pos_ + 1;
  while (true) {
    if (i >= text_.size()) fail(loc, "unterminated string");
    char c = text_[i];
    if (c == '\0') {
      advance(i - pos_);
      failUnexpected(i, location());
    }
    if (c == quote) break;
    i += (c == '\\') ? 2 : 1;
  }
  advance(i + 1 - pos_);
  return make(TokKind::kString, begin, loc);
}

Token Lexer::next() {
  skipTrivia();
  SourceLoc loc = location();
  size_t begin = pos_;
  if (pos_ >= text_.size()) return {TokKind::kEof, {}, loc};
  char c = text_[pos_];
  char c1 = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
  auto punct = [&](TokKind kind, size_t n) {
    advance(n);
    return make(kind, begin, loc);
  };
  if (isIdentStart(c)) return lexIdent(begin, loc);
  if (isDigit(c)) return lexNumber(begin, loc);
  switch (c) {
    case '-':
      if (c1 == '>') return punct(TokKind::kArrow, 2);
      if (isDigit(c1) || text_.substr(pos_ + 1, 3) == "inf" || text_.substr(pos_ + 1, 3) == "nan")
        return lexNumber(begin, loc);
      break;
    case '%':
      if (isIdentStart(c1)) {
        advance(1);
        Token t = lexIdent(pos_, loc);
        t.kind = TokKind::kName;
        return t;
      }
      fail(loc, "expected a name after '%'");
    case '"':
    case '\'':
      return lexString(begin, loc);
    case '=':
      return punct(TokKind::kEqual, 1);
    case ',':
      return punct(TokKind::kComma, 1);
    case ':':
      return punct(TokKind::kColon, 1);
    case '(':
      return punct(TokKind::kLParen, 1);
    case ')':
      return punct(TokKind::kRParen, 1);
    case '[':
      return punct(TokKind::kLSquare, 1);
    case ']':
      return punct(TokKind::kRSquare, 1);
    case '{':
      return punct(TokKind::kLBrace, 1);
    case '}':
      return punct(TokKind::kRBrace, 1);
    case '*':
      return punct(TokKind::kStar, 1);
    case '?':
      return punct(TokKind::kQuestion, 1);
    case '<':
      if (c1 == '=') return punct(TokKind::kLeq, 2);
      break;
    case '.':
      if (text_.substr(pos_, 3) == "...") return punct(TokKind::kDots, 3);
      break;
    default:
      break;
  }
  failUnexpected(pos_, loc);
}

Token Lexer::scanRawValue() {
  skipTrivia();
  SourceLoc loc = location();
  size_t begin = pos_;
  struct Open {
    char closer;
    SourceLoc loc;
  };
  std::vector<Open> open;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    char c1 = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    if (c == '"') {
      lexString(pos_, location());
      continue;
    }
    if (c == '/' && (c1 == '*' || c1 == '/')) {
      if (open.empty()) break;  // a comment after the value
      size_t before = pos_;
      skipTrivia();  // a comment inside brackets stays part of the text
      if (pos_ == before) break;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (open.size() >= static_cast<size_t>(kMaxDepth))
        fail(location(), "attribute value nested too deeply");
      open.push_back({c == '(' ? ')' : c == '[' ? ']' : '}', location()});
      advance(1);
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (open.empty()) break;  // closes an outer bracket
      if (c != open.back().closer)
        fail(location(), std::string("mismatched '") + c + "' in attribute value (expected '" +
                             open.back().closer + "')");
      open.pop_back();
      advance(1);
      continue;
    }
    if (open.empty() && (c == ',' || isSpace(c))) break;
    if (!isRawChar(c) && !isSpace(c)) failUnexpected(pos_, location());
    advance(1);
  }
  if (!open.empty())
    fail(open.back().loc,
         std::string("unterminated attribute value: missing '") + open.back().closer + "'");
  if (pos_ == begin) fail(loc, "expected an attribute value after '='");
  return make(TokKind::kIdent, begin, loc);
}

}  // namespace lf::hlo
