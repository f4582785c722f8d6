// XLA's shape-inference rules, one per op kind: operand counts, dtypes, attribute ranges and the
// result types they imply. The verifier runs them over a whole program; the frontend runs them on
// each op as it is imported, so that a mismatch is reported at the HLO instruction.
#pragma once

#include <string>

#include "ir/ir.h"

namespace lf::ir {

// Empty when `op` is well typed; otherwise a message such as
// "type mismatch: add operands f32[2] and f32[3]". Checks the op and the signatures of its regions
// (argument and yield types), not the ops inside them, nor dominance.
std::string checkOp(const Op& op);

namespace detail {
// The families, split by file; each returns "" when the op is fine.
std::string checkElementwise(const Op& op);
std::string checkDataMovement(const Op& op);
std::string checkCompute(const Op& op);
std::string checkControlFlow(const Op& op);
std::string checkLinalg(const Op& op);
std::string checkConvolution(const Op& op);
std::string checkTridiagonal(const Op& op);
// The spatial size of a convolution's output dimension (0 when the window does not fit).
int64_t convolutionOutputSize(int64_t in, int64_t size, int64_t stride, int64_t padLow,
                              int64_t padHigh, int64_t lhsDilation, int64_t rhsDilation);
// Helpers shared by the rule files.
std::string typeList(const std::vector<Value*>& vs);
std::string ints(const std::vector<int64_t>& v);
}  // namespace detail

}  // namespace lf::ir
