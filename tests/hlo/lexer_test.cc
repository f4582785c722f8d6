// The lexer on its own: token kinds and texts, locations, comments, and errors on bad bytes.
#include "hlo/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace lf::hlo {
namespace {

std::vector<Token> lexAll(std::string_view text) {
  Lexer lex(text);
  std::vector<Token> out;
  for (Token t = lex.next(); t.kind != TokKind::kEof; t = lex.next()) out.push_back(t);
  return out;
}

std::string errorOf(std::string_view text) {
  try {
    lexAll(text);
  } catch (const CompileError& e) {
    const Diagnostic& d = e.diagnostics().at(0);
    return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
  }
  return "";
}

TEST(Lexer, NamesNumbersAndPunctuation) {
  auto toks = lexAll("%get-tuple-element.45 = f32[<=3]{0} -> ... -1.5e-05 1E+10 -inf nan(0x7f)");
  ASSERT_EQ(toks.size(), 16u);
  EXPECT_EQ(toks[0].kind, TokKind::kName);
  EXPECT_EQ(toks[0].text, "get-tuple-element.45");
  EXPECT_EQ(toks[1].kind, TokKind::kEqual);
  EXPECT_EQ(toks[2].kind, TokKind::kIdent);
  EXPECT_EQ(toks[2].text, "f32");
  EXPECT_EQ(toks[4].kind, TokKind::kLeq);
  EXPECT_EQ(toks[10].kind, TokKind::kArrow);
  EXPECT_EQ(toks[11].kind, TokKind::kDots);
  EXPECT_EQ(toks[12].text, "-1.5e-05");
  EXPECT_EQ(toks[13].text, "1E+10");
  EXPECT_EQ(toks[14].kind, TokKind::kNumber);
  EXPECT_EQ(toks[14].text, "-inf");
  EXPECT_EQ(toks[15].kind, TokKind::kIdent);
  EXPECT_EQ(toks[15].text, "nan(0x7f)");
}

TEST(Lexer, IdentifierStopsBeforeArrow) {
  auto toks = lexAll("a->b");
  ASSERT_EQ(toks.size(), 3u);
  EXPECT_EQ(toks[0].text, "a");
  EXPECT_EQ(toks[1].kind, TokKind::kArrow);
  EXPECT_EQ(toks[2].text, "b");
}

TEST(Lexer, CommentsAreSkippedAndLocationsAreOneBased) {
  auto toks = lexAll("// line comment\n  /* block\n comment */ x /*index=5*/y");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0].text, "x");
  EXPECT_EQ(toks[0].loc.line, 3);
  EXPECT_EQ(toks[0].loc.col, 13);
  EXPECT_EQ(toks[1].text, "y");
  EXPECT_EQ(toks[1].loc.col, 26);
}

TEST(Lexer, StringsKeepQuotesAndEscapes) {
  auto toks = lexAll(R"("a\"b" 'c')");
  ASSERT_EQ(toks.size(), 2u);
  EXPECT_EQ(toks[0].kind, TokKind::kString);
  EXPECT_EQ(toks[0].text, R"("a\"b")");
  EXPECT_EQ(toks[1].text, "'c'");
}

TEST(Lexer, RawValueStopsAtTopLevelSeparator) {
  Lexer lex(R"({a, "}", [1 (2)]}, next  LT)x  b01f_01io->b01f )");
  EXPECT_EQ(lex.scanRawValue().text, R"({a, "}", [1 (2)]})");
  EXPECT_EQ(lex.next().kind, TokKind::kComma);
  Token v = lex.scanRawValue();
  EXPECT_EQ(v.text, "next");
  EXPECT_EQ(v.loc.col, 20);
  EXPECT_EQ(lex.scanRawValue().text, "LT");
  EXPECT_EQ(lex.next().kind, TokKind::kRParen);
  EXPECT_EQ(lex.scanRawValue().text, "x");
  EXPECT_EQ(lex.scanRawValue().text, "b01f_01io->b01f");
}

TEST(Lexer, Errors) {
  EXPECT_EQ(errorOf("a $"), "1:3: unexpected character '$'");
  EXPECT_EQ(errorOf(std::string("a\0b", 3)), "1:2: unexpected character (byte 0x00)");
  EXPECT_EQ(errorOf("\xff"), "1:1: unexpected character (byte 0xff)");
  EXPECT_EQ(errorOf("x \"abc"), "1:3: unterminated string");
  EXPECT_EQ(errorOf("x\n /* abc"), "2:2: unterminated '/*' comment");
  EXPECT_EQ(errorOf("% x"), "1:1: expected a name after '%'");
  EXPECT_EQ(errorOf("a / b"), "1:3: unexpected character '/'");
  EXPECT_EQ(errorOf(".."), "1:1: unexpected character '.'");
  EXPECT_EQ(errorOf("x -infinity"), "1:3: unexpected character '-'");
  EXPECT_EQ(errorOf("-nanx"), "1:1: unexpected character '-'");
  EXPECT_EQ(errorOf("1 - 2"), "1:3: unexpected character '-'");
}

TEST(Lexer, RawValueErrors) {
  auto rawError = [](std::string_view text) -> std::string {
    Lexer lex(text);
    try {
      lex.scanRawValue();
    } catch (const CompileError& e) {
      const Diagnostic& d = e.diagnostics().at(0);
      return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": " + d.message;
    }
    return "";
  };
  EXPECT_EQ(rawError("{a, (b}"), "1:7: mismatched '}' in attribute value (expected ')')");
  EXPECT_EQ(rawError("{a, {b}"), "1:1: unterminated attribute value: missing '}'");
  EXPECT_EQ(rawError(", x"), "1:1: expected an attribute value after '='");
  EXPECT_EQ(rawError("{\"abc}"), "1:2: unterminated string");
  EXPECT_EQ(rawError(std::string(300, '{')), "1:257: attribute value nested too deeply");
}

}  // namespace
}  // namespace lf::hlo
