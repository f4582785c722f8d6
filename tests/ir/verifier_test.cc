// Verifier rules: a valid case, and for each rule a case that must fail with its message.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/ir.h"
#include "ir/scalar_bits.h"

namespace lf::ir {
namespace {

Type t(DType d, std::vector<int64_t> dims) { return Type{d, std::move(dims)}; }

std::string firstError(const Program& p) {
  std::vector<Diagnostic> ds = verify(p);
  return ds.empty() ? "" : ds[0].message;
}

struct Fixture {
  Program p;
  Value* x;
  Fixture() {
    p.name = "t";
    x = p.body.addArg(t(DType::F32, {2, 3}));
  }
  // Appends one op with one result and makes it the output.
  std::string check(OpKind k, std::vector<Value*> ops, Type result, Attrs attrs = NoAttrs{}) {
    Op* op = p.body.append(k, std::move(ops), {std::move(result)}, std::move(attrs));
    p.body.yields = {op->result()};
    p.outputNames = {"output_0"};
    return firstError(p);
  }
};

TEST(Verifier, ElementwiseAndDataMovement) {
  EXPECT_EQ(Fixture().check(OpKind::Add, {}, t(DType::F32, {2, 3})),
            "add: add takes 2 operands, got 0");
  {
    Fixture f;
    Value* y = f.p.body.addArg(t(DType::F32, {3}));
    EXPECT_EQ(f.check(OpKind::Add, {f.x, y}, t(DType::F32, {2, 3})),
              "add: type mismatch: add operands f32[2,3] and f32[3]");
  }
  EXPECT_EQ(Fixture()
                .check(OpKind::Exp, {}, t(DType::F32, {2, 3}))
                .find("exponential: exponential takes 1"),
            0u);
  Fixture f1;
  EXPECT_EQ(f1.check(OpKind::Add, {f1.x, f1.x}, t(DType::F32, {2, 3})), "");
  Fixture f2;
  EXPECT_NE(f2.check(OpKind::Broadcast, {f2.x}, t(DType::F32, {2, 4, 3}), BroadcastAttrs{{0, 1}}),
            "");
  Fixture f3;
  EXPECT_EQ(f3.check(OpKind::Broadcast, {f3.x}, t(DType::F32, {2, 4, 3}), BroadcastAttrs{{0, 2}}),
            "");
  Fixture f4;
  EXPECT_NE(f4.check(OpKind::Reshape, {f4.x}, t(DType::F32, {5})), "");
  Fixture f5;
  EXPECT_NE(f5.check(OpKind::Transpose, {f5.x}, t(DType::F32, {3, 2}), TransposeAttrs{{0, 0}}), "");
  Fixture f6;
  EXPECT_EQ(f6.check(OpKind::Transpose, {f6.x}, t(DType::F32, {3, 2}), TransposeAttrs{{1, 0}}), "");
  Fixture f7;  // [1:3:2] on 3 -> 1 element; limit 4 out of bounds
  EXPECT_EQ(
      f7.check(OpKind::Slice, {f7.x}, t(DType::F32, {1, 1}), SliceAttrs{{0, 1}, {1, 3}, {1, 2}}),
      "");
  Fixture f8;
  EXPECT_NE(
      f8.check(OpKind::Slice, {f8.x}, t(DType::F32, {1, 2}), SliceAttrs{{0, 1}, {1, 4}, {1, 2}}),
      "");
  Fixture f9;  // pad: low -1, high 2, interior 1 on 3 -> -1 + 2 + 3 + 2 = 6
  Value* zero = f9.p.body.addArg(t(DType::F32, {}));
  EXPECT_EQ(
      f9.check(OpKind::Pad, {f9.x, zero}, t(DType::F32, {2, 6}), PadAttrs{{0, -1}, {0, 2}, {0, 1}}),
      "");
  Fixture f10;
  Value* zero10 = f10.p.body.addArg(t(DType::F32, {}));
  EXPECT_NE(f10.check(OpKind::Pad, {f10.x, zero10}, t(DType::F32, {2, 3}),
                      PadAttrs{{0, 0}, {0, 0}, {0, -1}}),
            "");
  Fixture f11;
  Value* i = f11.p.body.addArg(t(DType::S32, {}));
  EXPECT_EQ(f11.check(OpKind::DynamicSlice, {f11.x, i, i}, t(DType::F32, {1, 3}),
                      DynamicSliceAttrs{{1, 3}}),
            "");
  Fixture f12;
  Value* i12 = f12.p.body.addArg(t(DType::S32, {}));
  EXPECT_NE(f12.check(OpKind::DynamicSlice, {f12.x, i12, i12}, t(DType::F32, {1, 4}),
                      DynamicSliceAttrs{{1, 4}}),
            "");
  Fixture f13;
  EXPECT_EQ(
      f13.check(OpKind::Concatenate, {f13.x, f13.x}, t(DType::F32, {2, 6}), ConcatenateAttrs{1}),
      "");
  Fixture f14;
  EXPECT_NE(
      f14.check(OpKind::Concatenate, {f14.x, f14.x}, t(DType::F32, {2, 6}), ConcatenateAttrs{0}),
      "");
}

TEST(Verifier, DotGatherReduce) {
  Program p;
  p.name = "d";
  Value* a = p.body.addArg(t(DType::F32, {5, 2, 3}));
  Value* b = p.body.addArg(t(DType::F32, {5, 3, 4}));
  // batch {0}, contract lhs 2 with rhs 1: f32[5,2,4].
  Op* ok =
      p.body.append(OpKind::Dot, {a, b}, {t(DType::F32, {5, 2, 4})}, DotAttrs{{0}, {0}, {2}, {1}});
  Op* bad =
      p.body.append(OpKind::Dot, {a, b}, {t(DType::F32, {5, 2, 4})}, DotAttrs{{0}, {0}, {1}, {1}});
  p.body.yields = {ok->result(), bad->result()};
  p.outputNames = {"o0", "o1"};
  std::vector<Diagnostic> ds = verify(p);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].message.find("contracting dimension sizes differ"), std::string::npos);

  // Gather rows of a [5,3] table with s32[4,1] indices: offset_dims={1}, collapsed {0},
  // start_index_map {0}, index_vector_dim 1, slice_sizes {1,3} -> f32[4,3].
  Program g;
  g.name = "g";
  Value* table = g.body.addArg(t(DType::F32, {5, 3}));
  Value* idx = g.body.addArg(t(DType::S32, {4, 1}));
  GatherAttrs ga{{1}, {0}, {0}, {}, {}, {1, 3}, 1, false};
  Op* gather = g.body.append(OpKind::Gather, {table, idx}, {t(DType::F32, {4, 3})}, ga);
  g.body.yields = {gather->result()};
  g.outputNames = {"o"};
  EXPECT_EQ(firstError(g), "");
  gather->results[0]->type = t(DType::F32, {3, 4});
  EXPECT_NE(firstError(g), "");

  // Reduce with a reducer of the wrong signature.
  Program r;
  r.name = "r";
  Value* x = r.body.addArg(t(DType::F32, {4}));
  Value* init = r.body.addArg(t(DType::F32, {}));
  Op* red = r.body.append(OpKind::Reduce, {x, init}, {t(DType::F32, {})}, ReduceAttrs{{0}});
  Region* reg = red->addRegion();
  Value* acc = reg->addArg(t(DType::F32, {}));
  Value* v = reg->addArg(t(DType::F32, {}));
  reg->yields = {reg->append(OpKind::Add, {acc, v}, {t(DType::F32, {})})->result()};
  r.body.yields = {red->result()};
  r.outputNames = {"o"};
  EXPECT_EQ(firstError(r), "");
  reg->args[1]->type = t(DType::S32, {});
  EXPECT_NE(firstError(r), "");
}

TEST(Verifier, WhileAndDominance) {
  Program p;
  p.name = "w";
  Value* n = p.body.addArg(t(DType::S32, {}));
  Op* w = p.body.append(OpKind::While, {n}, {t(DType::S32, {})});
  Region* cond = w->addRegion();
  Value* ci = cond->addArg(t(DType::S32, {}));
  cond->yields = {ci};  // not pred[]
  Region* body = w->addRegion();
  body->yields = {body->addArg(t(DType::S32, {}))};
  p.body.yields = {w->result()};
  p.outputNames = {"o"};
  EXPECT_NE(firstError(p).find("condition must yield one pred[]"), std::string::npos)
      << firstError(p);
  // A value used inside the body from another region is out of scope.
  cond->yields = {cond->append(OpKind::Compare, {ci, ci}, {t(DType::Pred, {})},
                               CompareAttrs{CompareDirection::LT, CompareType::Signed})
                      ->result()};
  EXPECT_EQ(firstError(p), "");
  body->yields = {ci};
  EXPECT_NE(firstError(p).find("not defined before this use"), std::string::npos) << firstError(p);
}

TEST(ScalarBits, HalfFloatRounding) {
  EXPECT_EQ(doubleToBF16Bits(1.5), 0x3FC0);
  EXPECT_EQ(doubleToF16Bits(0.1), 0x2E66);
  EXPECT_EQ(doubleToF16Bits(65520.0), 0x7C00);  // rounds up to inf (max f16 is 65504)
  EXPECT_EQ(doubleToF16Bits(65519.0), 0x7BFF);
  EXPECT_EQ(doubleToF16Bits(std::ldexp(1.0, -25)), 0x0000);        // tie to even: 0
  EXPECT_EQ(doubleToF16Bits(std::ldexp(1.5, -25)), 0x0001);        // above the tie
  EXPECT_EQ(doubleToBF16Bits(1.0 + std::ldexp(1.0, -8)), 0x3F80);  // tie to even
  EXPECT_EQ(doubleToBF16Bits(-0.0), 0x8000);
  EXPECT_EQ(f16BitsToDouble(0x3C00), 1.0);
  EXPECT_EQ(bf16BitsToDouble(0xC000), -2.0);
}

}  // namespace
}  // namespace lf::ir
