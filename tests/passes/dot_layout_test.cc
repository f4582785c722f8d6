// Matrix-vector products in loops read a transposed copy of their loop-invariant matrix, made
// before the loop; products whose matrix changes in the loop, or that are in no loop, stay.
#include "passes/dot_layout.h"

#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace lf::passes::testing {
namespace {

// h = -(w @ h + v @ h) 1,000 times (not unrolled): w is an input (loop state that passes through),
// v = i * w changes every iteration; one more product of w is outside the loop.
const char* kRnn = R"(HloModule rnn
cond {
  st = (s32[], f32[8], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  st = (s32[], f32[8], f32[8,4]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  h = f32[8] get-tuple-element(st), index=1
  w = f32[8,4] get-tuple-element(st), index=2
  h4 = f32[4] slice(h), slice={[0:4]}
  wh = f32[8] dot(w, h4), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  fi = f32[] convert(i)
  fis = f32[8,4] broadcast(fi), dimensions={}
  v = f32[8,4] multiply(w, fis)
  vh = f32[8] dot(v, h4), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[8] add(wh, vh)
  hn = f32[8] negate(s)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[8], f32[8,4]) tuple(i2, hn, w)
}
ENTRY main {
  h0 = f32[8] parameter(0)
  w = f32[8,4] parameter(1)
  x = f32[4] parameter(2)
  outside = f32[8] dot(w, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = s32[] constant(0)
  init = (s32[], f32[8], f32[8,4]) tuple(z, h0, w)
  r = (s32[], f32[8], f32[8,4]) while(init), condition=cond, body=body
  hf = f32[8] get-tuple-element(r), index=1
  ROOT out = (f32[8], f32[8]) tuple(hf, outside)
}
)";

TEST(DotLayout, BeforeLicmTheLoopStateIsNotInvariant) {
  // w is still loop state here (LICM makes its uses read the input): nothing to rewrite.
  EXPECT_EQ(afterPass(kRnn, transposeInvariantMatrixVectorProducts).find("transpose"),
            std::string::npos);
}

TEST(DotLayout, InvariantMatrixInALoopIsReadTransposed) {
  ir::Program p = importHlo(kRnn);
  runPasses(p);
  EXPECT_EQ(verifierErrors(p), "") << ir::print(p);
  const std::string ir = ir::print(p);
  // One transpose of w, before the loop, that the loop's product reads as its rhs.
  const size_t transpose = ir.find("transpose(");
  ASSERT_NE(transpose, std::string::npos) << ir;
  EXPECT_EQ(ir.find("transpose(", transpose + 1), std::string::npos) << ir;
  EXPECT_LT(transpose, ir.find("while(")) << ir;
  EXPECT_NE(ir.find("permutation={1,0} : f32[4,8]"), std::string::npos) << ir;
  // The product of i * w (it changes in the loop) and the one outside the loop keep w's layout:
  // two products contract the matrix's dim 1, one contracts both operands' dim 0.
  size_t minor = 0, both = 0;
  for (size_t at = ir.find("dot("); at != std::string::npos; at = ir.find("dot(", at + 1)) {
    const std::string line = ir.substr(at, ir.find('\n', at) - at);
    if (line.find("lhs_contracting={1}") != std::string::npos) ++minor;
    if (line.find("lhs_contracting={0} rhs_contracting={0}") != std::string::npos) ++both;
  }
  EXPECT_EQ(minor, 2u) << ir;
  EXPECT_EQ(both, 1u) << ir;
}

}  // namespace
}  // namespace lf::passes::testing
