// Full unrolling of small loops with a constant trip count.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/ir.h"

namespace lf::passes {

inline constexpr int64_t kMaxUnrolledTrips = 8;
inline constexpr int64_t kMaxUnrolledBodyOps = 200;  // ops of the body, nested regions included

// The trip count of a While whose state k is a counter: it starts at a constant c0, the body
// yields arg_k + 1 (a constant 1, either side), and the condition yields compare(arg_k, N) LT or
// compare(N, arg_k) GT for a constant N, by the counter's signedness: max(0, N - c0). nullopt for
// any other loop.
std::optional<int64_t> constantTripCount(const ir::Op& loop);

// Replaces every While with a constant trip count of at most kMaxUnrolledTrips and a body of at
// most kMaxUnrolledBodyOps ops by that many copies of its body, in place; the condition is not
// evaluated. Inner loops are unrolled first.
void unrollSmallLoops(ir::Program& program);

}  // namespace lf::passes
