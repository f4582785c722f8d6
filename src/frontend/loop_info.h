// The while loops of an HLO module for `loopfuse inspect`: where each one is, how deeply it is
// nested, and its trip count when that is a compile-time constant. Works on the hlo::Module (not
// the IR) so that it can name the computation each loop lives in.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/ast.h"

namespace lf::frontend {

struct LoopInfo {
  std::string instruction;  // the while instruction's name
  std::string computation;  // the computation that contains it
  SourceLoc loc;
  int depth = 0;  // 0 for a loop not inside another loop's body or condition
  std::optional<int64_t> tripCount;
};

// In the order they are met walking from the entry computation (a loop before the loops nested in
// it). The trip count is found for the JAX pattern: state element i starts at a constant c0, the
// body adds constant 1 to it, and the condition is `compare(gte(param, i), constant N)` with
// direction=LT (or `compare(constant N, gte(param, i))` with direction=GT): N - c0 trips (0 if
// negative). Anything else gives nullopt. A computation called from several places is listed
// once per call site.
std::vector<LoopInfo> findLoops(const hlo::Module& module);

}  // namespace lf::frontend
