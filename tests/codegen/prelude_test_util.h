// Shared by the prelude tests: the CPU prelude, pasted in the order the emitter pastes it, and
// helpers to write bit patterns.
#pragma once

#include <cstdint>
#include <cstring>

// clang-format off
#include "codegen/prelude/lf_cpu.h"
#include "codegen/prelude/lf_common.h"
// clang-format on

namespace lf_prelude_test {

inline float f32(uint32_t bits) { return lf_bitcast<float>(bits); }
inline uint32_t bits32(float x) { return lf_bitcast<uint32_t>(x); }
inline double f64(uint64_t bits) { return lf_bitcast<double>(bits); }
inline uint64_t bits64(double x) { return lf_bitcast<uint64_t>(x); }
inline lf_f16 h16(uint16_t bits) { return lf_f16{bits}; }
inline lf_bf16 b16(uint16_t bits) { return lf_bf16{bits}; }

}  // namespace lf_prelude_test
