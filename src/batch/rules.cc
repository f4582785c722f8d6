// One batch rule per op family. A rule fails when the op would make one chain's result depend on
// another chain's values (a reduction or contraction over the batch dimension, a slice of part of
// it, a reshape that merges it with another dimension, ...).
#include "batch/rules.h"

#include <algorithm>

namespace lf::batch {
namespace {

using ir::Op;
using ir::OpKind;

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

OpRule fail(std::string why) {
  OpRule r;
  r.error = std::move(why);
  return r;
}

// Ops whose operands of the result's rank are read at the same index as the result (elementwise
// ops, concatenate, reduce's inputs, sort's keys, ...): the batched ones must agree on the batch
// dimension, and shared ones of that rank are sliced there. Operands of another rank (scalars,
// init values) are read whole. `count` limits the aligned operands to the first `count`.
OpRule aligned(const Op& op, const std::vector<int>& in, size_t count) {
  int rank = op.operands[0]->type.rank();
  int d = -1;
  for (size_t i = 0; i < count; ++i) {
    if (in[i] < 0) continue;
    if (d >= 0 && in[i] != d) return fail("reads operands batched at different dimensions");
    d = in[i];
  }
  OpRule r;
  r.operands.assign(in.size(), -1);
  for (size_t i = 0; i < count; ++i) {
    if (op.operands[i]->type.rank() == rank) r.operands[i] = d;
  }
  r.result = d;
  return r;
}

// A rule for an op with one array operand (plus scalars) whose result dimension is `result`.
OpRule single(const std::vector<int>& in, int result) {
  OpRule r;
  r.operands.assign(in.size(), -1);
  r.operands[0] = in[0];
  r.result = result;
  return r;
}

OpRule reshapeRule(const Op& op, int d, int64_t chains) {
  const auto& from = op.operands[0]->type.dims;
  const auto& to = op.result()->type.dims;
  int64_t before = 1;
  for (int i = 0; i < d; ++i) before *= from[i];
  int64_t product = 1;
  for (size_t j = 0; j < to.size(); ++j) {
    if (product == before && to[j] == chains) return single({d}, static_cast<int>(j));
    product *= to[j];
  }
  return fail("merges the batch dimension with another dimension");
}

OpRule dotRule(const Op& op, const std::vector<int>& in) {
  const auto& a = op.attr<ir::DotAttrs>();
  auto freeDims = [](const ir::Type& t, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& contracting) {
    std::vector<int64_t> free;
    for (int64_t i = 0; i < t.rank(); ++i) {
      if (!contains(batch, i) && !contains(contracting, i)) free.push_back(i);
    }
    return free;
  };
  auto lhsFree = freeDims(op.operands[0]->type, a.lhsBatch, a.lhsContracting);
  auto rhsFree = freeDims(op.operands[1]->type, a.rhsBatch, a.rhsContracting);
  const int nb = static_cast<int>(a.lhsBatch.size());
  OpRule r;
  r.operands = {-1, -1};
  // The side that is batched decides; the other must be batched at the paired batch dimension,
  // or shared.
  for (int side = 0; side < 2; ++side) {
    int d = in[side];
    if (d < 0) continue;
    const auto& batch = side == 0 ? a.lhsBatch : a.rhsBatch;
    const auto& otherBatch = side == 0 ? a.rhsBatch : a.lhsBatch;
    const auto& contracting = side == 0 ? a.lhsContracting : a.rhsContracting;
    const auto& free = side == 0 ? lhsFree : rhsFree;
    if (contains(contracting, d)) return fail("contracts the batch dimension");
    auto k = std::find(batch.begin(), batch.end(), d) - batch.begin();
    if (k < nb) {
      int other = static_cast<int>(otherBatch[k]);
      if (in[1 - side] >= 0 && in[1 - side] != other) {
        return fail("pairs the batch dimension with another dimension");
      }
      r.operands[side] = d;
      r.operands[1 - side] = other;
      r.result = static_cast<int>(k);
      return r;
    }
    if (in[1 - side] >= 0) return fail("multiplies two batched operands across chains");
    auto j = std::find(free.begin(), free.end(), d) - free.begin();
    r.operands[side] = d;
    r.result = nb + static_cast<int>(j) + (side == 1 ? static_cast<int>(lhsFree.size()) : 0);
    return r;
  }
  return r;
}

// Operands (dl, d, du, multipliers, steps [..., n], info [...], b [..., n, k]; the floats two
// parts each when complex). A batch among the leading dimensions maps, every operand sliced
// there; so does one among b's columns (the last dimension) when the factorization is shared:
// each column is substituted on its own, as jax's vmap of a solve with shared diagonals makes it.
OpRule tridiagonalSolveRule(const Op& op, const std::vector<int>& in) {
  const int rank = op.operands[0]->type.rank();  // of the diagonals; b has one more
  const size_t firstB = in.size() - op.results.size();
  int d = -1;
  bool factorBatched = false;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] < 0) continue;
    if (d >= 0 && in[i] != d) return fail("reads operands batched at different dimensions");
    d = in[i];
    factorBatched = factorBatched || i < firstB;
  }
  OpRule r;
  r.operands.assign(in.size(), -1);
  if (d < 0) return r;
  if (d == rank && !factorBatched) {
    for (size_t i = firstB; i < in.size(); ++i) r.operands[i] = d;
    r.result = d;
    return r;
  }
  if (d >= rank - 1) return fail("solves along the batch dimension");
  r.operands.assign(in.size(), d);
  r.result = d;
  return r;
}

OpRule reduceRule(const Op& op, const std::vector<int>& in) {
  size_t n = op.operands.size() / 2;
  OpRule r = aligned(op, in, n);
  if (!r.error.empty() || r.result < 0) return r;
  const auto& dims = op.attr<ir::ReduceAttrs>().dimensions;
  if (contains(dims, r.result)) return fail("reduces over the batch dimension");
  int removed = static_cast<int>(
      std::count_if(dims.begin(), dims.end(), [&](int64_t x) { return x < r.result; }));
  r.result -= removed;
  return r;
}

OpRule reduceWindowRule(const Op& op, const std::vector<int>& in) {
  OpRule r = aligned(op, in, op.operands.size() / 2);
  if (!r.error.empty() || r.result < 0) return r;
  const auto& a = op.attr<ir::ReduceWindowAttrs>();
  size_t d = static_cast<size_t>(r.result);
  bool trivial = a.sizes[d] == 1 && a.strides[d] == 1 && a.padLow[d] == 0 && a.padHigh[d] == 0 &&
                 a.baseDilation[d] == 1 && a.windowDilation[d] == 1;
  if (!trivial) return fail("has a window along the batch dimension");
  return r;
}

// Operand and source batched at one dimension where the window is 1 with stride 1 and no padding:
// each batch element's windows stay within it.
OpRule selectAndScatterRule(const Op& op, const std::vector<int>& in) {
  OpRule r = aligned(op, in, 2);
  if (!r.error.empty() || r.result < 0) return r;
  const auto& a = op.attr<ir::SelectAndScatterAttrs>();
  size_t d = static_cast<size_t>(r.result);
  if (a.sizes[d] != 1 || a.strides[d] != 1 || a.padLow[d] != 0 || a.padHigh[d] != 0) {
    return fail("has a window along the batch dimension");
  }
  return r;
}

OpRule dynamicUpdateSliceRule(const Op& op, const std::vector<int>& in, int64_t chains) {
  int a = in[0], u = in[1];
  if (a >= 0 && u >= 0 && a != u) return fail("reads operands batched at different dimensions");
  int d = a >= 0 ? a : u;
  if (op.operands[0]->type.dims[d] != chains || op.operands[1]->type.dims[d] != chains) {
    return fail("writes part of the batch dimension");
  }
  OpRule r;
  r.operands.assign(in.size(), -1);
  r.operands[0] = r.operands[1] = d;
  r.result = d;
  return r;
}

// The output dimension of a gather that holds start-indices dimension `di` (the indices' dims other
// than the index vector dimension, in order, fill the output dims that are not offset dims).
int gatherOutputDimOfIndexDim(const Op& op, int di) {
  const auto& a = op.attr<ir::GatherAttrs>();
  int k = 0;
  for (int i = 0; i < di; ++i) k += i != a.indexVectorDim;
  for (int o = 0; o < op.result()->type.rank(); ++o) {
    if (contains(a.offsetDims, o)) continue;
    if (k-- == 0) return o;
  }
  return -1;
}

// A gather mixes nothing when each chain gathers with its own indices (from a shared operand, or
// from its own rows of a batched one: a batching dimension pair), or when the operand's batch
// dimension is a whole offset dimension of every slice (and the indices are shared).
OpRule gatherRule(const Op& op, const std::vector<int>& in, int64_t chains) {
  const auto& a = op.attr<ir::GatherAttrs>();
  int operandDim = in[0], indexDim = in[1];
  OpRule r;
  r.operands = {-1, -1};
  if (operandDim >= 0 && !contains(a.operandBatchingDims, operandDim)) {
    if (indexDim >= 0) return fail("gathers batched rows with batched indices");
    if (contains(a.collapsedSliceDims, operandDim) || a.sliceSizes[operandDim] != chains) {
      return fail("gathers along the batch dimension");
    }
    int slot = 0;  // the operand dim's place among the offset (not collapsed, not batching) dims
    for (int i = 0; i < operandDim; ++i) {
      slot += !contains(a.collapsedSliceDims, i) && !contains(a.operandBatchingDims, i);
    }
    r.operands[0] = operandDim;
    r.result = static_cast<int>(a.offsetDims[slot]);
    return r;
  }
  if (operandDim >= 0) {  // a batching dimension: the indices' paired dimension is the batch
    auto p = std::find(a.operandBatchingDims.begin(), a.operandBatchingDims.end(), operandDim) -
             a.operandBatchingDims.begin();
    int paired = static_cast<int>(a.startIndicesBatchingDims[p]);
    if (indexDim >= 0 && indexDim != paired) return fail("pairs the batch dimension with another");
    indexDim = paired;
  }
  if (indexDim == a.indexVectorDim) return fail("indexes with the batch dimension");
  auto p =
      std::find(a.startIndicesBatchingDims.begin(), a.startIndicesBatchingDims.end(), indexDim) -
      a.startIndicesBatchingDims.begin();
  if (p < static_cast<long>(a.startIndicesBatchingDims.size())) {
    r.operands[0] = static_cast<int>(a.operandBatchingDims[p]);
  }
  r.operands[1] = indexDim;
  r.result = gatherOutputDimOfIndexDim(op, indexDim);
  return r;
}

// The update dimension of a scatter that holds start-indices dimension `di` (the update dims that
// are not window dims correspond, in order, to the indices' dims other than the index vector one).
int scatterUpdateDimOfIndexDim(const Op& op, int di) {
  const auto& a = op.attr<ir::ScatterAttrs>();
  int k = 0;
  for (int i = 0; i < di; ++i) k += i != a.indexVectorDim;
  const size_t n = op.operands.size() / 2;
  for (int u = 0; u < op.operands[n + 1]->type.rank(); ++u) {
    if (contains(a.updateWindowDims, u)) continue;
    if (k-- == 0) return u;
  }
  return -1;
}

// The start-indices dimension that update dimension `u` of a scatter holds (the inverse of
// scatterUpdateDimOfIndexDim); -1 for a window dimension.
int scatterIndexDimOfUpdateDim(const Op& op, int u) {
  const auto& a = op.attr<ir::ScatterAttrs>();
  if (u < 0 || contains(a.updateWindowDims, u)) return -1;
  int k = 0;
  for (int i = 0; i < u; ++i) k += !contains(a.updateWindowDims, i);
  const size_t n = op.operands.size() / 2;
  for (int d = 0; d < op.operands[n]->type.rank(); ++d) {
    if (d == a.indexVectorDim) continue;
    if (k-- == 0) return d;
  }
  return -1;
}

// A scatter mixes nothing when each chain scatters its own updates into its own rows (a batching
// dimension pair, what `jax.vmap` of `x.at[i].set(v)` lowers to), or when the batch is a whole
// window dimension of every update, at indices the chains share.
OpRule scatterRule(const Op& op, const std::vector<int>& in, int64_t chains) {
  const auto& a = op.attr<ir::ScatterAttrs>();
  const size_t n = op.operands.size() / 2;  // N operands, the indices, N updates
  int operandDim = -1, updateDim = -1;
  for (size_t i = 0; i < n; ++i) {
    int od = in[i], ud = in[n + 1 + i];
    if (od >= 0 && operandDim >= 0 && od != operandDim) return fail("reads operands batched apart");
    if (ud >= 0 && updateDim >= 0 && ud != updateDim) return fail("reads updates batched apart");
    if (od >= 0) operandDim = od;
    if (ud >= 0) updateDim = ud;
  }
  const int indexDim = in[n];
  int od = -1, id = -1, ud = -1;
  auto pairOf = [&](const std::vector<int64_t>& dims, int d) {
    return d < 0 ? -1 : static_cast<int>(std::find(dims.begin(), dims.end(), d) - dims.begin());
  };
  // The batching pair the batch is on, found from whichever of the operands, the indices and the
  // updates is batched (a shared one of the batch's shape, such as loop state that starts as a
  // broadcast, is sliced at its rows).
  const int pairs = static_cast<int>(a.inputBatchingDims.size());
  int p = pairOf(a.inputBatchingDims, operandDim);
  if (p < 0 || p == pairs) p = pairOf(a.scatterIndicesBatchingDims, indexDim);
  if (p < 0 || p == pairs) {
    p = pairOf(a.scatterIndicesBatchingDims, scatterIndexDimOfUpdateDim(op, updateDim));
  }
  if (p >= 0 && p < pairs) {
    od = static_cast<int>(a.inputBatchingDims[p]);
    id = static_cast<int>(a.scatterIndicesBatchingDims[p]);
    ud = scatterUpdateDimOfIndexDim(op, id);
    if (op.operands[0]->type.dims[od] != chains || op.operands[n]->type.dims[id] != chains) {
      return fail("pairs the batch dimension with a dimension of another size");
    }
  } else {
    if (indexDim >= 0) return fail("scatters each chain's updates to positions across chains");
    // The window dims of the operand (not inserted, not batching), in order, are the update's
    // window dims, in order.
    std::vector<int> windowOperandDims;
    for (int i = 0; i < op.operands[0]->type.rank(); ++i) {
      if (!contains(a.insertedWindowDims, i) && !contains(a.inputBatchingDims, i)) {
        windowOperandDims.push_back(i);
      }
    }
    if (updateDim >= 0) {
      auto j = std::find(a.updateWindowDims.begin(), a.updateWindowDims.end(), updateDim) -
               a.updateWindowDims.begin();
      if (j == static_cast<long>(a.updateWindowDims.size())) {
        return fail("scatters each chain's updates to positions across chains");
      }
      od = windowOperandDims[j];
    } else {
      auto j = std::find(windowOperandDims.begin(), windowOperandDims.end(), operandDim) -
               windowOperandDims.begin();
      if (j == static_cast<long>(windowOperandDims.size())) {
        return fail("scatters along the batch dimension");
      }
      od = operandDim;
      updateDim = static_cast<int>(a.updateWindowDims[j]);
    }
    ud = updateDim;
    if (op.operands[n + 1]->type.dims[ud] != chains || contains(a.scatterDimsToOperandDims, od)) {
      return fail("scatters along the batch dimension");
    }
  }
  if ((operandDim >= 0 && operandDim != od) || (updateDim >= 0 && updateDim != ud) ||
      (indexDim >= 0 && indexDim != id)) {
    return fail("pairs the batch dimension with another dimension");
  }
  OpRule r;
  r.operands.assign(in.size(), -1);
  for (size_t i = 0; i < n; ++i) {
    r.operands[i] = od;
    r.operands[n + 1 + i] = ud;
  }
  r.operands[n] = id;
  r.result = od;
  return r;
}

}  // namespace

OpRule ruleFor(const Op& op, const std::vector<int>& in, int64_t chains) {
  if (std::all_of(in.begin(), in.end(), [](int d) { return d < 0; })) {
    OpRule shared;
    shared.operands.assign(in.size(), -1);
    return shared;
  }
  const ir::Type& t0 = op.operands[0]->type;
  int d0 = in[0];
  switch (op.kind) {
    case OpKind::BitcastConvert: {
      int rank = std::min(t0.rank(), op.result()->type.rank());
      if (d0 >= rank) return fail("changes the width of the batch dimension");
      return single(in, d0);
    }
    case OpKind::Threefry2x32:
      return aligned(op, in, in.size());
    case OpKind::Broadcast:
      return single(in, static_cast<int>(op.attr<ir::BroadcastAttrs>().dimensions[d0]));
    case OpKind::Reshape:
      return reshapeRule(op, d0, chains);
    case OpKind::Transpose: {
      const auto& perm = op.attr<ir::TransposeAttrs>().permutation;
      return single(in, static_cast<int>(std::find(perm.begin(), perm.end(), d0) - perm.begin()));
    }
    case OpKind::Slice: {
      const auto& a = op.attr<ir::SliceAttrs>();
      if (a.starts[d0] != 0 || a.limits[d0] != chains || a.strides[d0] != 1) {
        return fail("takes part of the batch dimension");
      }
      return single(in, d0);
    }
    case OpKind::DynamicSlice:
      if (op.attr<ir::DynamicSliceAttrs>().sizes[d0] != chains) {
        return fail("takes part of the batch dimension");
      }
      return single(in, d0);
    case OpKind::DynamicUpdateSlice:
      return dynamicUpdateSliceRule(op, in, chains);
    case OpKind::Concatenate: {
      OpRule r = aligned(op, in, in.size());
      if (r.error.empty() && r.result == op.attr<ir::ConcatenateAttrs>().dimension) {
        return fail("concatenates along the batch dimension");
      }
      return r;
    }
    case OpKind::Pad: {
      const auto& a = op.attr<ir::PadAttrs>();
      if (a.low[d0] != 0 || a.high[d0] != 0 || a.interior[d0] != 0) {
        return fail("pads the batch dimension");
      }
      return single(in, d0);
    }
    case OpKind::Reverse:
      if (contains(op.attr<ir::ReverseAttrs>().dimensions, d0)) {
        return fail("reverses the batch dimension");
      }
      return single(in, d0);
    case OpKind::Dot:
      return dotRule(op, in);
    case OpKind::Gather:
      return gatherRule(op, in, chains);
    case OpKind::Scatter:
      return scatterRule(op, in, chains);
    case OpKind::Reduce:
      return reduceRule(op, in);
    case OpKind::ReduceWindow:
      return reduceWindowRule(op, in);
    case OpKind::SelectAndScatter:
      return selectAndScatterRule(op, in);
    case OpKind::Sort: {
      OpRule r = aligned(op, in, in.size());
      if (r.error.empty() && r.result == op.attr<ir::SortAttrs>().dimension) {
        return fail("sorts along the batch dimension");
      }
      return r;
    }
    case OpKind::Convolution: {
      // Each lhs batch element convolves on its own with the shared kernel.
      const auto& a = op.attr<ir::ConvolutionAttrs>();
      if (in[1] >= 0) return fail("convolves with a batched kernel");
      if (d0 != a.lhsBatch) return fail("convolves across the batch dimension");
      OpRule r;
      r.operands = {d0, -1};
      r.result = static_cast<int>(a.outBatch);
      return r;
    }
    case OpKind::LuPivotsToPermutation:
      if (d0 >= t0.rank() - 1) return fail("permutes along the batch dimension");
      return single(in, d0);
    case OpKind::Cholesky:
    case OpKind::TriangularSolve:
    case OpKind::Lu:
    case OpKind::Qr:
    case OpKind::HouseholderProduct:
    case OpKind::Ormqr:
    case OpKind::Eigh:
    case OpKind::Svd:
    case OpKind::EigValues: {
      // Each matrix (the last two dimensions) is solved on its own: any batch dimension maps.
      OpRule r = aligned(op, in, in.size());
      if (r.error.empty() && r.result >= t0.rank() - 2) {
        return fail("solves along the batch dimension");
      }
      return r;
    }
    case OpKind::TridiagonalFactor: {
      // Each system (the last dimension) is factored on its own.
      OpRule r = aligned(op, in, in.size());
      if (r.error.empty() && r.result >= t0.rank() - 1) {
        return fail("factors along the batch dimension");
      }
      return r;
    }
    case OpKind::TridiagonalSolve:
      return tridiagonalSolveRule(op, in);
    case OpKind::TridiagonalSolvePerturbed: {
      // Each system on its own (a row's perturbation reads all of its columns): leading
      // dimensions only, every operand sliced there.
      int d = -1;
      for (int x : in) {
        if (x < 0) continue;
        if (d >= 0 && x != d) return fail("reads operands batched at different dimensions");
        d = x;
      }
      OpRule r;
      r.operands.assign(in.size(), d);
      if (d >= t0.rank() - 1) return fail("solves along the batch dimension");
      r.result = d;
      return r;
    }
    case OpKind::Fft: {
      // Each line (the last dimension) is transformed on its own.
      OpRule r = aligned(op, in, in.size());
      if (r.error.empty() && r.result >= t0.rank() - 1) {
        return fail("transforms along the batch dimension");
      }
      return r;
    }
    default:
      if (ir::isElementwise(op.kind)) return aligned(op, in, in.size());
      return fail("reads a batched operand (batch mapping does not handle " +
                  std::string(ir::opKindName(op.kind)) + " yet)");
  }
}

ir::Attrs groupAttrs(const Op& op, const OpRule& rule, int64_t group) {
  if (rule.result < 0) return op.attrs;
  const int d = rule.result;
  if (op.kind == OpKind::Slice) {
    auto a = op.attr<ir::SliceAttrs>();
    a.limits[d] = group;
    return a;
  }
  if (op.kind == OpKind::DynamicSlice) {
    auto a = op.attr<ir::DynamicSliceAttrs>();
    a.sizes[d] = group;
    return a;
  }
  if (op.kind == OpKind::Gather && rule.operands[0] >= 0) {
    auto a = op.attr<ir::GatherAttrs>();
    // A batch dimension that is an offset dimension is sliced whole: its slice size is the group.
    // (A batching dimension's slice size is 1, and stays so.)
    if (!contains(a.operandBatchingDims, rule.operands[0])) a.sliceSizes[rule.operands[0]] = group;
    return a;
  }
  // Every other attribute is about dimension numbers or other dimensions, which stay the same.
  return op.attrs;
}

OpRule groupReductionRule(const std::vector<int>& in) {
  OpRule r;
  r.operands = in;
  r.operands[1] = -1;  // the init value, read whole
  r.result = -1;
  return r;
}

}  // namespace lf::batch
