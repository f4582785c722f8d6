// A small evaluator of HLO computations made of integer and pred ops, for recognising what a
// computation computes (threefry_call.cc): a call is replaced by a known op only when evaluating
// its computation on test inputs gives that op's results. It knows the ops jax's integer helpers
// are lowered to (elementwise integer arithmetic, bitwise ops and shifts with XLA's out-of-range
// rules, compare, select, convert, broadcast, reshape, slice, tuples, while, call); anything else,
// a float, a malformed instruction or an exhausted budget ends the evaluation with nullopt, which
// only means "not recognised".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "hlo/ast.h"
#include "support/dtype.h"

namespace lf::frontend {

// An array (each element's bits, zero-extended to 64; pred is 0 or 1) or a tuple of values.
struct EvalValue {
  bool isTuple = false;
  DType dtype = DType::U32;
  std::vector<int64_t> dims;
  std::vector<uint64_t> bits;
  std::vector<EvalValue> elements;  // a tuple's
  bool resized = false;             // a dim was resized by EvalOptions::resizedDims
};

struct EvalOptions {
  // Dimension sizes evaluated as other sizes: every array the computation declares is evaluated
  // with each dim d in resizedDims replaced by resizedDims[d], so that a computation elementwise
  // in a large array can be tried on a few elements. Only ops that treat every element alike may
  // touch a resized array: elementwise ops, broadcasts, and reshapes that only add or drop dims of
  // size 1; a slice or a constant of one ends the evaluation, as does a broadcast or reshape whose
  // dims no longer fit.
  std::map<int64_t, int64_t> resizedDims;
  // The most array elements all ops together may produce (each computation run counts one), so
  // that no computation (an unbounded while loop included) can make the evaluation slow.
  int64_t maxElements = 1 << 20;
};

std::optional<EvalValue> evaluateIntegerComputation(const hlo::Module& module,
                                                    const hlo::Computation& comp,
                                                    const std::vector<EvalValue>& args,
                                                    const EvalOptions& options);

}  // namespace lf::frontend
