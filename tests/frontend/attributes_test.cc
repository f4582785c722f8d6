// hlo/attributes.h: typed readers of raw attribute text, and errors at the exact character.
#include <gtest/gtest.h>

#include "hlo/attributes.h"

namespace lf::hlo {
namespace {

Attribute attr(std::string value) { return Attribute{"a", std::move(value), {3, 10}, {3, 12}}; }

SourceLoc errorLoc(void (*f)(const Attribute&), const std::string& value) {
  try {
    f(attr(value));
  } catch (const CompileError& e) {
    return e.diagnostics().at(0).loc;
  }
  return {};
}

TEST(Attributes, Lists) {
  EXPECT_EQ(readIntList(attr("{1,0}")), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(readIntList(attr("{}")), (std::vector<int64_t>{}));
  EXPECT_EQ(readIntList(attr("{ -3, 4 }")), (std::vector<int64_t>{-3, 4}));
  EXPECT_EQ(readComputationList(attr("{%a, b.2}")), (std::vector<std::string>{"a", "b.2"}));
  EXPECT_EQ(readComputationName(attr("%region_0.5")), "region_0.5");
  // "{1,x}": the x is at offset 3, so column 12 + 3.
  SourceLoc loc = errorLoc([](const Attribute& a) { readIntList(a); }, "{1,x}");
  EXPECT_EQ(loc.line, 3);
  EXPECT_EQ(loc.col, 15);
}

TEST(Attributes, ScalarsAndStrings) {
  EXPECT_EQ(readInt(attr("-7")), -7);
  EXPECT_TRUE(readBool(attr("true")));
  EXPECT_FALSE(readBool(attr("false")));
  EXPECT_THROW(readBool(attr("yes")), CompileError);
  EXPECT_EQ(readString(attr(R"("a\"b\n\x41\101")")), "a\"b\nAA");
  EXPECT_EQ(readComparisonDirection(attr("GE")), "GE");
  EXPECT_THROW(readComparisonDirection(attr("LTE")), CompileError);
  EXPECT_EQ(readComparisonType(attr("TOTALORDER")), "TOTALORDER");
  EXPECT_THROW(readInt(attr("99999999999999999999")), CompileError);
  // A custom call's backend_config: typed integers, names and (cuhybrid_eig_real's) strings.
  EXPECT_EQ(
      readDictionary(attr(R"({left = false, magma = "auto", uplo = 76 : ui8})")),
      (std::map<std::string, std::string>{{"left", "false"}, {"magma", "auto"}, {"uplo", "76"}}));
  EXPECT_THROW(readDictionary(attr(R"({magma = "auto})")), CompileError);
}

TEST(Attributes, SlicesPaddingWindow) {
  auto s = readSliceRanges(attr("{[0:2], [1:7:2]}"));
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].start, 0);
  EXPECT_EQ(s[0].limit, 2);
  EXPECT_EQ(s[0].stride, 1);
  EXPECT_EQ(s[1].stride, 2);
  auto p = readPaddingConfig(attr("-1_2x0_3_1"));
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].low, -1);
  EXPECT_EQ(p[0].high, 2);
  EXPECT_EQ(p[0].interior, 0);
  EXPECT_EQ(p[1].interior, 1);
  auto w = readWindow(attr("{size=3x2 stride=2x1 pad=0_1x1_1 lhs_dilate=1x2 rhs_dilate=3x1}"));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].size, 3);
  EXPECT_EQ(w[0].stride, 2);
  EXPECT_EQ(w[0].padHigh, 1);
  EXPECT_EQ(w[1].padLow, 1);
  EXPECT_EQ(w[1].baseDilation, 2);
  EXPECT_EQ(w[0].windowDilation, 3);
  EXPECT_THROW(readWindow(attr("{size=3x2 stride=2}")), CompileError);
  EXPECT_THROW(readWindow(attr("{size=3 bogus=1}")), CompileError);
}

}  // namespace
}  // namespace lf::hlo
