// Constants: every form XLA prints, checked against the shape and the element type.
#include "hlo/parse_helpers.h"

namespace lf::hlo {
namespace {

using testing::firstErrorLine;
using testing::locString;
using testing::parseText;
using Strings = std::vector<std::string>;

// The literal of `ROOT c = <shape> constant(<value>)` in a one-instruction module.
Literal constantOf(const std::string& shape, const std::string& value) {
  Module m =
      parseText("HloModule m\nENTRY e {\n  ROOT c = " + shape + " constant(" + value + ")\n}\n");
  return *m.entry().root().literal;
}

// "+N: message": the error's column relative to the first character of `value` (on line 3).
std::string constantError(const std::string& shape, const std::string& value) {
  std::string prefix = "  ROOT c = " + shape + " constant(";
  std::string line = firstErrorLine("HloModule m\nENTRY e {\n" + prefix + value + ")\n}\n");
  std::string head = "test.hlo:3:";
  if (line.rfind(head, 0) != 0) return "unexpected: " + line;
  size_t colon = line.find(':', head.size());
  int col = std::stoi(line.substr(head.size(), colon - head.size()));
  return "+" + std::to_string(col - 1 - static_cast<int>(prefix.size())) + line.substr(colon);
}

TEST(Literal, Scalars) {
  EXPECT_EQ(constantOf("s32[]", "1").elements, Strings{"1"});
  EXPECT_EQ(constantOf("f32[]", "-0.5").elements, Strings{"-0.5"});
  EXPECT_EQ(constantOf("pred[]", "true").elements, Strings{"true"});
  EXPECT_EQ(constantOf("pred[]", "false").elements, Strings{"false"});
  EXPECT_EQ(constantOf("f32[]", "inf").elements, Strings{"inf"});
  EXPECT_EQ(constantOf("f64[]", "-inf").elements, Strings{"-inf"});
  EXPECT_EQ(constantOf("f32[]", "nan").elements, Strings{"nan"});
  EXPECT_EQ(constantOf("f32[]", "-nan").elements, Strings{"-nan"});
  EXPECT_EQ(constantOf("bf16[]", "nan(0x7f)").elements, Strings{"nan(0x7f)"});
  EXPECT_EQ(constantOf("f16[]", "0.0999755859").elements, Strings{"0.0999755859"});
  EXPECT_EQ(constantOf("f32[]", "1e-05").elements, Strings{"1e-05"});
  EXPECT_EQ(constantOf("f64[]", "1.5E+10").elements, Strings{"1.5E+10"});
  EXPECT_EQ(constantOf("f32[]", "3").elements, Strings{"3"});
  EXPECT_EQ(constantOf("s64[]", "-9223372036854775808").elements, Strings{"-9223372036854775808"});
  EXPECT_EQ(constantOf("u64[]", "18446744073709551615").elements, Strings{"18446744073709551615"});
  EXPECT_EQ(constantOf("u32[]", "466688986").elements, Strings{"466688986"});
  EXPECT_EQ(constantOf("s8[]", "-128").elements, Strings{"-128"});
  EXPECT_EQ(constantOf("u8[]", "255").elements, Strings{"255"});
  EXPECT_EQ(constantOf("s4[]", "-8").elements, Strings{"-8"});
  EXPECT_EQ(constantOf("c64[]", "(1, -2.5)").elements, Strings{"(1, -2.5)"});
}

TEST(Literal, ElementLocations) {
  Literal lit = constantOf("s32[3]", "{1,  22, -3}");
  EXPECT_EQ(lit.elements, (Strings{"1", "22", "-3"}));
  ASSERT_EQ(lit.locs.size(), 3u);
  // "  ROOT c = s32[3] constant(" is 27 characters.
  EXPECT_EQ(locString(lit.loc), "3:28");
  EXPECT_EQ(locString(lit.locs[0]), "3:29");
  EXPECT_EQ(locString(lit.locs[1]), "3:33");
  EXPECT_EQ(locString(lit.locs[2]), "3:37");
}

TEST(Literal, ArraysAreRowMajor) {
  EXPECT_EQ(constantOf("s32[3]", "{1, 2, 3}").elements, (Strings{"1", "2", "3"}));
  EXPECT_EQ(constantOf("f32[2,2]{1,0}", "{ { 1, 2 }, { 3, 4 } }").elements,
            (Strings{"1", "2", "3", "4"}));
  EXPECT_EQ(constantOf("f32[2,2]{0,1}", "{ { 1, 2 }, { 3, 4 } }").elements,
            (Strings{"1", "2", "3", "4"}));
  EXPECT_EQ(constantOf("f32[0]", "{}").elements, Strings{});
  EXPECT_EQ(constantOf("f32[2,0]", "{ {}, {} }").elements, Strings{});
}

TEST(Literal, RankFourWithIndexComments) {
  Literal lit = constantOf("s32[2,1,1,2]", R"({
  { /*i0=0*/
    { /*i1=0*/
      {1, 2}
    }
  },
  { /*i0=1*/
    { /*i1=0*/
      {3, 4}
    }
  }
})");
  EXPECT_EQ(lit.elements, (Strings{"1", "2", "3", "4"}));
  EXPECT_EQ(locString(lit.locs[3]), "11:11");
}

TEST(Literal, PredArraysAsBitsOrWords) {
  EXPECT_EQ(constantOf("pred[3]", "{1, 0, 1}").elements, (Strings{"1", "0", "1"}));
  EXPECT_EQ(constantOf("pred[2]", "{true, false}").elements, (Strings{"true", "false"}));
}

TEST(Literal, ElidedConstantSaysHowToPrintIt) {
  EXPECT_EQ(constantError("f32[100]", "{...}"),
            "+0: error: constant elided as {...}: print the HLO with all constants, "
            "e.g. jax's lowered.as_text(dialect=\"hlo\") (jax >= 0.5) or "
            "as_hlo_text(print_large_constants=True), or XLA's --xla_dump_large_constants");
}

TEST(Literal, WrongCountsAndNesting) {
  EXPECT_EQ(constantError("s32[3]", "{1, 2}"),
            "+5: error: too few elements in dimension 0 of the constant of shape "
            "s32[3]: expected 3, found 2");
  EXPECT_EQ(constantError("s32[2]", "{1, 2, 3}"),
            "+7: error: too many elements in dimension 0 of the constant of shape "
            "s32[2] (expected 2)");
  EXPECT_EQ(constantError("s32[2,2]", "{1, 2}"),
            "+1: error: expected '{' to start dimension 1 of the constant of shape "
            "s32[2,2], found '1'");
  EXPECT_EQ(constantError("s32[2]", "{{1}, {2}}"),
            "+1: error: too many '{' levels: the constant of shape s32[2] has 1 "
            "dimension(s)");
  EXPECT_EQ(constantError("s32[]", "{1}"),
            "+0: error: expected a scalar value for a constant of shape s32[], found "
            "'{'");
  EXPECT_EQ(constantError("s32[2]", "1"),
            "+0: error: expected '{' to start dimension 0 of the constant of shape "
            "s32[2], found '1'");
  EXPECT_EQ(constantError("(s32[], s32[])", "(1, 2)"),
            "+0: error: tuple-shaped constants are not supported");
}

TEST(Literal, InvalidElements) {
  EXPECT_EQ(constantError("s32[]", "1.5"), "+0: error: invalid s32 value '1.5': not an integer");
  EXPECT_EQ(constantError("s8[]", "128"), "+0: error: invalid s8 value '128': out of range");
  EXPECT_EQ(constantError("u8[]", "-1"), "+0: error: invalid u8 value '-1': out of range");
  EXPECT_EQ(constantError("s64[]", "9223372036854775808"),
            "+0: error: invalid s64 value '9223372036854775808': out of range");
  EXPECT_EQ(constantError("u64[]", "18446744073709551616"),
            "+0: error: invalid u64 value '18446744073709551616': out of range");
  EXPECT_EQ(constantError("pred[]", "maybe"),
            "+0: error: invalid pred value 'maybe': expected true, false, 0 or 1");
  EXPECT_EQ(constantError("pred[]", "2"),
            "+0: error: invalid pred value '2': expected true, false, 0 or 1");
  EXPECT_EQ(constantError("f32[]", "true"), "+0: error: invalid f32 value 'true': not a number");
  EXPECT_EQ(constantError("s32[]", "inf"), "+0: error: invalid s32 value 'inf': not an integer");
  EXPECT_EQ(constantError("f32[]", ")"),
            "+0: error: expected a constant value of type f32, found ')'");
}

TEST(Literal, ParameterNumbers) {
  EXPECT_EQ(firstErrorLine("HloModule m\nENTRY e {\n  p = f32[] parameter(x)\n}\n"),
            "test.hlo:3:23: error: expected a parameter number, found 'x'");
  EXPECT_EQ(firstErrorLine("HloModule m\nENTRY e {\n  p = f32[] parameter(-1)\n}\n"),
            "test.hlo:3:23: error: expected a parameter number, found '-1'");
}

}  // namespace
}  // namespace lf::hlo
