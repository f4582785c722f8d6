// JAX's threefry2x32 hash (jax/_src/prng.py; Random123's Threefry-2x32 with 20 rounds): the host
// reference the frontend recognises jax's lowering of it by and the simplifier folds it with. The
// kernels' own copy is the prelude's lf_threefry2x32 (the prelude is source text for another
// compiler); tests check both against Random123's known answers.
#pragma once

#include <array>
#include <cstdint>

namespace lf {

constexpr std::array<uint32_t, 2> threefry2x32(uint32_t k0, uint32_t k1, uint32_t x0, uint32_t x1) {
  const uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
  constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  x0 += ks[0];
  x1 += ks[1];
  for (uint32_t group = 1; group <= 5; ++group) {
    const int* r = kRotations[(group - 1) % 2];
    for (int i = 0; i < 4; ++i) {
      x0 += x1;
      x1 = (x1 << r[i]) | (x1 >> (32 - r[i]));
      x1 ^= x0;
    }
    x0 += ks[group % 3];
    x1 += ks[(group + 1) % 3] + group;
  }
  return {x0, x1};
}

}  // namespace lf
