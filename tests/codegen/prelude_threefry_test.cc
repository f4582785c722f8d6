// lf_threefry2x32 against the Random123 known-answer vectors for 20 rounds (which
// jax.random.threefry_2x32 reproduces) and against jax.random.bits, JAX 0.11 on CPU.
#include <gtest/gtest.h>

#include "codegen/prelude_test_util.h"

namespace {

struct ThreefryCase {
  uint32_t k0, k1, x0, x1, out0, out1;
};

TEST(PreludeThreefry, KnownAnswers) {
  const ThreefryCase cases[] = {
      {0, 0, 0, 0, 0x6b200159u, 0x99ba4efeu},
      {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0x1cb996fcu, 0xbb002be7u},
      {0x13198a2eu, 0x03707344u, 0x243f6a88u, 0x85a308d3u, 0xc4923a9cu, 0x483df7a0u},
  };
  for (const ThreefryCase& c : cases) {
    uint32_t out0 = 0, out1 = 0;
    lf_threefry2x32(c.k0, c.k1, c.x0, c.x1, &out0, &out1);
    EXPECT_EQ(out0, c.out0);
    EXPECT_EQ(out1, c.out1);
  }
}

TEST(PreludeThreefry, MatchesJaxRandomBits) {
  // jax.random.bits(jax.random.PRNGKey(42), (3,), uint32) with partitionable threefry: element i
  // hashes the counter (hi, lo) = (0, i) and xors the two halves. PRNGKey(42) is (0, 42).
  const uint32_t expected[3] = {0x7d1c13a2u, 0xae0730d9u, 0x9dc3f9f9u};
  for (uint32_t i = 0; i < 3; ++i) {
    uint32_t bits1 = 0, bits2 = 0;
    lf_threefry2x32(0, 42, 0, i, &bits1, &bits2);
    EXPECT_EQ(bits1 ^ bits2, expected[i]) << i;
  }
}

}  // namespace
