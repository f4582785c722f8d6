// Batch mapping of tridiagonal solves: jax's vmap of a solve with shared diagonals makes the
// chains columns of one right-hand side (each column is substituted on its own, so they map);
// batched diagonals make them a leading dimension; a batch along the system's rows does not map.
#include <gtest/gtest.h>

#include "batch/batch.h"
#include "batch_test_util.h"

namespace lf::batch {
namespace {

using lf::testing::load;

// jax.vmap(lambda b: tridiagonal_solve(dl, d, du, b)) over 4 right-hand sides [6, 1], as jax
// 0.11 lowers it (metadata trimmed): b moves to the columns of one [6, 4] system.
constexpr const char* kSharedDiagonals =
    R"(HloModule m, entry_computation_layout={(f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[4,6,1]{2,1,0})->f32[4,6,1]{2,0,1}}

ENTRY main {
  dl = f32[6]{0} parameter(0)
  d = f32[6]{0} parameter(1)
  du = f32[6]{0} parameter(2)
  b = f32[4,6,1]{2,1,0} parameter(3)
  bt = f32[6,4,1]{2,0,1} transpose(b), dimensions={1,0,2}
  columns = f32[6,4]{1,0} reshape(bt)
  g = (f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6,4]{0,1}, s32[]) custom-call(dl, d, du, columns), custom_call_target="lapack_sgtsv_ffi", api_version=API_VERSION_TYPED_FFI
  x = f32[6,4]{0,1} get-tuple-element(g), index=3
  x3 = f32[6,4,1]{2,1,0} reshape(x)
  ROOT out = f32[4,6,1]{2,0,1} transpose(x3), dimensions={1,0,2}
}
)";

TEST(TridiagonalBatch, SharedDiagonalsMapTheRightHandSidesColumns) {
  ir::Program p = load(kSharedDiagonals);
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.chains, 4);
  EXPECT_EQ(m.inputDims, (std::vector<int>{-1, -1, -1, 0}));
  EXPECT_EQ(m.outputDims, (std::vector<int>{0}));
}

TEST(TridiagonalBatch, BatchedDiagonalsMapTheirLeadingDimension) {
  ir::Program p = load(
      R"(HloModule m, entry_computation_layout={(f32[4,6]{1,0}, f32[6,2]{1,0})->f32[4,6,2]{2,1,0}}

ENTRY main {
  d = f32[4,6]{1,0} parameter(0)
  b = f32[6,2]{1,0} parameter(1)
  bb = f32[4,6,2]{2,1,0} broadcast(b), dimensions={1,2}
  g = (f32[4,6]{1,0}, f32[4,6]{1,0}, f32[4,6]{1,0}, f32[4,6,2]{1,2,0}, s32[4]{0}) custom-call(d, d, d, bb), custom_call_target="lapack_sgtsv_ffi", api_version=API_VERSION_TYPED_FFI
  ROOT x = f32[4,6,2]{1,2,0} get-tuple-element(g), index=3
}
)");
  Mapping m = analyze(p);
  ASSERT_TRUE(m.mapped()) << m.reason;
  EXPECT_EQ(m.chains, 4);
  EXPECT_EQ(m.inputDims, (std::vector<int>{0, -1}));
  EXPECT_EQ(m.outputDims, (std::vector<int>{0}));
}

TEST(TridiagonalBatch, ABatchAlongTheRowsDoesNotMap) {
  // The output's leading dimension is the system's 6 rows: a chain per row would need the others.
  ir::Program p =
      load(R"(HloModule m, entry_computation_layout={(f32[6]{0}, f32[6,1]{1,0})->f32[6,1]{1,0}}

ENTRY main {
  d = f32[6]{0} parameter(0)
  b = f32[6,1]{1,0} parameter(1)
  g = (f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6,1]{0,1}, s32[]) custom-call(d, d, d, b), custom_call_target="lapack_sgtsv_ffi", api_version=API_VERSION_TYPED_FFI
  ROOT x = f32[6,1]{0,1} get-tuple-element(g), index=3
}
)");
  Mapping m = analyze(p);
  EXPECT_FALSE(m.mapped());
  EXPECT_NE(m.reason.find("along the batch dimension"), std::string::npos) << m.reason;
}

}  // namespace
}  // namespace lf::batch
