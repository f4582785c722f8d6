// Shapes: element types kept as written, dims, `<=N` dynamic dims, tuples, and layouts dropped.
#include "hlo/parse_helpers.h"

namespace lf::hlo {
namespace {

using testing::firstErrorLine;
using testing::locString;
using testing::parseText;

Shape shapeOf(const std::string& shape) {
  Module m = parseText("HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n");
  return m.entry().root().shape;
}

TEST(Shape, ArraysAndScalars) {
  Shape s = shapeOf("f32[2,3]");
  EXPECT_FALSE(s.isTuple);
  EXPECT_EQ(s.elementType, "f32");
  EXPECT_EQ(s.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s.dynamic, (std::vector<bool>{false, false}));
  EXPECT_EQ(locString(s.loc), "3:12");
  EXPECT_EQ(shapeOf("s32[]").toString(), "s32[]");
  EXPECT_TRUE(shapeOf("s32[]").dims.empty());
  EXPECT_EQ(shapeOf("token[]").toString(), "token[]");
  EXPECT_EQ(shapeOf("f8e4m3fn[7]").elementType, "f8e4m3fn");
  EXPECT_EQ(shapeOf("u64[9223372036854775807]").dims[0], 9223372036854775807);
}

TEST(Shape, LayoutsAreDropped) {
  EXPECT_EQ(shapeOf("f32[2,3]{1,0}").toString(), "f32[2,3]");
  EXPECT_EQ(shapeOf("f32[2,3]{0,1}").toString(), "f32[2,3]");
  EXPECT_EQ(shapeOf("f32[256,128]{1,0:T(8,128)(2,1)}").toString(), "f32[256,128]");
  EXPECT_EQ(shapeOf("f32[128]{0:T(128)S(1)}").toString(), "f32[128]");
  EXPECT_EQ(shapeOf("s4[128]{0:T(1024)(128)(2,1)E(4)}").toString(), "s4[128]");
  EXPECT_EQ(shapeOf("f32[]{:T(256)}").toString(), "f32[]");
  EXPECT_EQ(shapeOf("bf16[8,16]{1,0:T(8,128)(2,1)*}").toString(), "bf16[8,16]");
}

TEST(Shape, DynamicDimensions) {
  Shape s = shapeOf("f32[<=10,3]{1,0}");
  EXPECT_EQ(s.dims, (std::vector<int64_t>{10, 3}));
  EXPECT_EQ(s.dynamic, (std::vector<bool>{true, false}));
  EXPECT_EQ(s.toString(), "f32[<=10,3]");
}

TEST(Shape, TuplesNestedAndAnnotated) {
  Shape s = shapeOf("((s32[], f32[2]{0}), token[])");
  ASSERT_TRUE(s.isTuple);
  EXPECT_TRUE(s.elementType.empty());
  ASSERT_EQ(s.tupleElements.size(), 2u);
  EXPECT_TRUE(s.tupleElements[0].isTuple);
  EXPECT_EQ(s.tupleElements[0].tupleElements[1].dims, std::vector<int64_t>{2});
  EXPECT_EQ(s.toString(), "((s32[], f32[2]), token[])");
  EXPECT_EQ(shapeOf("()").toString(), "()");
  Shape big = shapeOf("(s32[], f32[], f32[], f32[], f32[], /*index=5*/f32[3]{0}, pred[])");
  EXPECT_EQ(big.tupleElements.size(), 7u);
  EXPECT_EQ(big.tupleElements[5].toString(), "f32[3]");
  EXPECT_EQ(locString(big.tupleElements[5].loc), "3:59");
}

TEST(Shape, Errors) {
  auto err = [](const std::string& shape) {
    return firstErrorLine("HloModule m\nENTRY e {\n  ROOT p = " + shape + " parameter(0)\n}\n");
  };
  EXPECT_EQ(err("f32[2,]"), "test.hlo:3:18: error: expected a dimension size, found ']'");
  EXPECT_EQ(err("f32[99999999999999999999]"),
            "test.hlo:3:16: error: expected a dimension size, found '99999999999999999999'");
  EXPECT_EQ(err("f32[1.5]"), "test.hlo:3:16: error: expected a dimension size, found '1.5'");
  EXPECT_EQ(err("f32[<=]"),
            "test.hlo:3:18: error: expected a dimension bound after '<=', found ']'");
  EXPECT_EQ(err("(f32[] s32[])"),
            "test.hlo:3:19: error: expected ',' or ')' in tuple shape, found 's32'");
  EXPECT_EQ(err("f32[2]{0:T(8}"), "test.hlo:3:24: error: expected ')' in layout, found '}'");
}

}  // namespace
}  // namespace lf::hlo
