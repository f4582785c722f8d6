// Constant evaluation for the simplifier: XLA's scalar rules for integer and pred elementwise ops,
// and data movement of small constants. Only results that are bit-exact with XLA are produced;
// floating-point arithmetic is never evaluated (XLA:CPU flushes denormals and calls its own
// transcendental approximations, so the host's float results could differ in the last bits).
//
// The integer rules mirror src/codegen/prelude/lf_common.h, which a pass may not include (layers
// only look down); tests/passes/fold_test.cc checks the two against each other.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace lf::passes {

// The largest result that broadcast, reshape, slice, transpose and iota fold into a constant:
// folding a small shape change saves a stage, a large one would only grow the constant tables.
inline constexpr int64_t kMaxFoldedDataMovementElements = 64;

// One element of `dtype` at `p` as raw bits, zero-extended to 64 (pred: 0 or 1), and back.
uint64_t loadBits(DType dtype, const uint8_t* p);
void storeBits(DType dtype, uint64_t bits, uint8_t* p);

// The result of the elementwise `op` on one element of each operand (raw bits, as loadBits gives
// them); `operandType` is the dtype of the operands (of the branches, for select and clamp's
// operand). nullopt when the op is not folded for that dtype (floats, integer power, pred
// arithmetic that XLA does not define).
std::optional<uint64_t> evalElement(const ir::Op& op, DType operandType,
                                    const std::vector<uint64_t>& args);

// The bytes of `op`'s single result, given the bytes of each operand (all constants), when the
// fold is exact and allowed (see above); nullopt otherwise.
std::optional<std::vector<uint8_t>> foldConstantOp(
    const ir::Op& op, const std::vector<const std::vector<uint8_t>*>& operandBytes);

// True when XLA's constant folding (HloConstantFolding, which runs before fusion) computes `v`, as
// written (jax.random.gamma's (1/3) / sqrt(d) of a constant d folds as a division, not as the
// algebraic simplifier's (1/3) * rsqrt(d)): it depends on constants and iotas only,
// through ops without regions. (XLA does not fold a broadcast or an iota on its own, so as not to
// grow constants, but it evaluates them inside the ops it folds.) Such a value reaches LLVM as a
// constant: a multiply of it never fuses into an add (contract.h), a division of it is never
// rewritten (divide.h). `memo` caches the answers of one walk.
using FoldedByXla = std::unordered_map<const ir::Value*, bool>;
bool foldedByXla(const ir::Value* v, FoldedByXla& memo);

}  // namespace lf::passes
