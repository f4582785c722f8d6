// Rules for dot, reduce, reduce-window, gather, scatter, select-and-scatter and sort (XLA's shape
// inference, and the scalar signatures of their reducer / combiner / comparator regions).
#include <algorithm>
#include <set>

#include "ir/op_rules.h"

namespace lf::ir::detail {
namespace {

std::string kind(const Op& op) { return opKindName(op.kind); }

std::string resultsMismatch(const Op& op, const std::vector<Type>& expect) {
  bool ok = op.results.size() == expect.size();
  for (size_t i = 0; ok && i < expect.size(); ++i) ok = op.results[i]->type == expect[i];
  if (ok) return "";
  std::string want, have;
  for (size_t i = 0; i < expect.size(); ++i) want += (i ? ", " : "") + expect[i].toString();
  for (size_t i = 0; i < op.results.size(); ++i) {
    have += (i ? ", " : "") + op.results[i]->type.toString();
  }
  return "type mismatch: " + kind(op) + " of " + typeList(op.operands) + " gives " + want +
         ", not " + have;
}

// "" when dims are distinct and within [0, rank).
std::string dimList(const std::vector<int64_t>& dims, int64_t rank, const std::string& what) {
  std::set<int64_t> seen;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return what + " " + ints(dims) + " out of range for rank " + std::to_string(rank);
    if (!seen.insert(d).second) return what + " " + ints(dims) + " repeat a dimension";
  }
  return "";
}

std::string sortedDimList(const std::vector<int64_t>& dims, int64_t rank, const std::string& what) {
  if (auto e = dimList(dims, rank, what); !e.empty()) return e;
  if (!std::is_sorted(dims.begin(), dims.end())) return what + " " + ints(dims) + " must be sorted";
  return "";
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The region must take scalar args of `argTypes` and yield scalars of `yieldTypes`.
std::string regionSignature(const Op& op, size_t index, const std::vector<DType>& argTypes,
                            const std::vector<DType>& yieldTypes) {
  if (op.regions.size() <= index) return kind(op) + " is missing its region";
  const Region& r = *op.regions[index];
  auto scalars = [](const std::vector<DType>& ts) {
    std::string s;
    for (size_t i = 0; i < ts.size(); ++i)
      s += (i ? ", " : "") + std::string(dtypeName(ts[i])) + "[]";
    return s;
  };
  bool ok = r.args.size() == argTypes.size();
  for (size_t i = 0; ok && i < argTypes.size(); ++i) ok = r.args[i]->type == Type{argTypes[i], {}};
  if (!ok) return kind(op) + " region must take (" + scalars(argTypes) + ")";
  ok = r.yields.size() == yieldTypes.size();
  for (size_t i = 0; ok && i < yieldTypes.size(); ++i) {
    ok = r.yields[i] && r.yields[i]->type == Type{yieldTypes[i], {}};
  }
  if (!ok) return kind(op) + " region must yield (" + scalars(yieldTypes) + ")";
  return "";
}

std::string checkDot(const Op& op) {
  if (op.operands.size() != 2 || op.results.size() != 1) return "dot takes 2 operands, 1 result";
  auto* a = std::get_if<DotAttrs>(&op.attrs);
  if (!a) return "dot needs DotAttrs";
  const Type& l = op.operands[0]->type;
  const Type& r = op.operands[1]->type;
  if (l.dtype != r.dtype)
    return "type mismatch: dot operands " + l.toString() + " and " + r.toString();
  if (a->lhsBatch.size() != a->rhsBatch.size()) return "dot batch dimension counts differ";
  if (a->lhsContracting.size() != a->rhsContracting.size())
    return "dot contracting dimension counts differ";
  std::vector<int64_t> lhsUsed = a->lhsBatch, rhsUsed = a->rhsBatch;
  lhsUsed.insert(lhsUsed.end(), a->lhsContracting.begin(), a->lhsContracting.end());
  rhsUsed.insert(rhsUsed.end(), a->rhsContracting.begin(), a->rhsContracting.end());
  if (auto e = dimList(lhsUsed, l.rank(), "dot lhs batch+contracting dims"); !e.empty()) return e;
  if (auto e = dimList(rhsUsed, r.rank(), "dot rhs batch+contracting dims"); !e.empty()) return e;
  for (size_t i = 0; i < a->lhsBatch.size(); ++i) {
    if (l.dims[a->lhsBatch[i]] != r.dims[a->rhsBatch[i]]) {
      return "dot batch dimension sizes differ: " + l.toString() + " and " + r.toString();
    }
  }
  for (size_t i = 0; i < a->lhsContracting.size(); ++i) {
    if (l.dims[a->lhsContracting[i]] != r.dims[a->rhsContracting[i]]) {
      return "dot contracting dimension sizes differ: " + l.toString() + " and " + r.toString();
    }
  }
  Type expect{op.result()->type.dtype, {}};
  if (expect.dtype == DType::Pred && l.dtype != DType::Pred) return "dot result cannot be pred";
  for (int64_t d : a->lhsBatch) expect.dims.push_back(l.dims[d]);
  for (int i = 0; i < l.rank(); ++i) {
    if (!contains(lhsUsed, i)) expect.dims.push_back(l.dims[i]);
  }
  for (int i = 0; i < r.rank(); ++i) {
    if (!contains(rhsUsed, i)) expect.dims.push_back(r.dims[i]);
  }
  return resultsMismatch(op, {expect});
}

// Shared by reduce and reduce-window: N inputs of one shape, N scalar inits, a 2N -> N reducer.
std::string checkReducerOperands(const Op& op, std::vector<DType>* dtypes) {
  size_t n = op.operands.size() / 2;
  if (n == 0 || op.operands.size() % 2) return kind(op) + " takes N inputs and N init values";
  if (op.results.size() != n) return kind(op) + " has one result per input";
  if (op.regions.size() != 1) return kind(op) + " takes one reducer region";
  for (size_t i = 0; i < n; ++i) {
    const Type& in = op.operands[i]->type;
    const Type& init = op.operands[n + i]->type;
    if (in.dims != op.operands[0]->type.dims)
      return kind(op) + " inputs differ in shape: " + typeList(op.operands);
    if (init != Type{in.dtype, {}}) {
      return "type mismatch: " + kind(op) + " init " + init.toString() + " for input " +
             in.toString();
    }
    dtypes->push_back(in.dtype);
  }
  std::vector<DType> args = *dtypes;
  args.insert(args.end(), dtypes->begin(), dtypes->end());
  return regionSignature(op, 0, args, *dtypes);
}

std::string checkReduce(const Op& op) {
  auto* a = std::get_if<ReduceAttrs>(&op.attrs);
  if (!a) return "reduce needs ReduceAttrs";
  std::vector<DType> dtypes;
  if (auto e = checkReducerOperands(op, &dtypes); !e.empty()) return e;
  const Type& in = op.operands[0]->type;
  if (auto e = dimList(a->dimensions, in.rank(), "reduce dimensions"); !e.empty()) return e;
  std::vector<Type> expect;
  for (DType t : dtypes) {
    Type r{t, {}};
    for (int i = 0; i < in.rank(); ++i) {
      if (!contains(a->dimensions, i)) r.dims.push_back(in.dims[i]);
    }
    expect.push_back(r);
  }
  return resultsMismatch(op, expect);
}

std::string checkReduceWindow(const Op& op) {
  auto* a = std::get_if<ReduceWindowAttrs>(&op.attrs);
  if (!a) return "reduce-window needs ReduceWindowAttrs";
  std::vector<DType> dtypes;
  if (auto e = checkReducerOperands(op, &dtypes); !e.empty()) return e;
  const Type& in = op.operands[0]->type;
  size_t r = static_cast<size_t>(in.rank());
  for (const auto* v :
       {&a->sizes, &a->strides, &a->padLow, &a->padHigh, &a->baseDilation, &a->windowDilation}) {
    if (v->size() != r) return "reduce-window window has the wrong rank for " + in.toString();
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < r; ++i) {
    if (a->sizes[i] < 1 || a->strides[i] < 1 || a->baseDilation[i] < 1 ||
        a->windowDilation[i] < 1) {
      return "reduce-window sizes, strides and dilations must be positive";
    }
    int64_t base = in.dims[i] == 0 ? 0 : (in.dims[i] - 1) * a->baseDilation[i] + 1;
    int64_t padded = base + a->padLow[i] + a->padHigh[i];
    int64_t window = (a->sizes[i] - 1) * a->windowDilation[i] + 1;
    if (padded < 0)
      return "reduce-window padding makes dimension " + std::to_string(i) + " negative";
    dims.push_back(padded < window ? 0 : (padded - window) / a->strides[i] + 1);
  }
  std::vector<Type> expect;
  for (DType t : dtypes) expect.push_back(Type{t, dims});
  return resultsMismatch(op, expect);
}

std::string checkIndices(const Type& indices, int64_t indexVectorDim, int64_t* vectorSize) {
  if (!isInteger(indices.dtype)) return "indices must be integers, got " + indices.toString();
  if (indexVectorDim < 0 || indexVectorDim > indices.rank()) {
    return "index_vector_dim " + std::to_string(indexVectorDim) + " out of range for " +
           indices.toString();
  }
  *vectorSize = indexVectorDim == indices.rank() ? 1 : indices.dims[indexVectorDim];
  return "";
}

// The batch dims of the indices: every dim but index_vector_dim, in order.
std::vector<int64_t> indexBatchDims(const Type& indices, int64_t indexVectorDim) {
  std::vector<int64_t> out;
  for (int i = 0; i < indices.rank(); ++i) {
    if (i != indexVectorDim) out.push_back(indices.dims[i]);
  }
  return out;
}

// start_index_map / scatter_dims_to_operand_dims against the operand and its batching dims.
std::string checkIndexMap(const std::vector<int64_t>& map, int64_t vectorSize, int64_t rank,
                          const std::vector<int64_t>& batching, const std::string& what) {
  if (static_cast<int64_t>(map.size()) != vectorSize) {
    return what + " " + ints(map) + " must have one entry per index vector element (" +
           std::to_string(vectorSize) + ")";
  }
  if (auto e = dimList(map, rank, what); !e.empty()) return e;
  for (int64_t d : map) {
    if (contains(batching, d)) return what + " " + ints(map) + " overlaps the batching dims";
  }
  return "";
}

std::string checkBatchingDims(const std::vector<int64_t>& operandBatching,
                              const std::vector<int64_t>& indicesBatching, int64_t operandRank,
                              const Type& indices, int64_t indexVectorDim) {
  if (auto e = sortedDimList(operandBatching, operandRank, "operand batching dims"); !e.empty())
    return e;
  if (operandBatching.size() != indicesBatching.size()) return "batching dim counts differ";
  if (auto e = dimList(indicesBatching, indices.rank(), "indices batching dims"); !e.empty())
    return e;
  if (contains(indicesBatching, indexVectorDim))
    return "indices batching dims contain index_vector_dim";
  return "";
}

std::string checkGather(const Op& op) {
  if (op.operands.size() != 2 || op.results.size() != 1) return "gather takes 2 operands, 1 result";
  auto* a = std::get_if<GatherAttrs>(&op.attrs);
  if (!a) return "gather needs GatherAttrs";
  const Type& in = op.operands[0]->type;
  const Type& idx = op.operands[1]->type;
  int64_t vectorSize = 0;
  if (auto e = checkIndices(idx, a->indexVectorDim, &vectorSize); !e.empty()) return "gather " + e;
  if (static_cast<int>(a->sliceSizes.size()) != in.rank()) {
    return "gather slice_sizes " + ints(a->sliceSizes) + " do not match operand " + in.toString();
  }
  for (int i = 0; i < in.rank(); ++i) {
    if (a->sliceSizes[i] < 0 || a->sliceSizes[i] > in.dims[i]) {
      return "gather slice_sizes " + ints(a->sliceSizes) + " exceed operand " + in.toString();
    }
  }
  if (auto e = sortedDimList(a->collapsedSliceDims, in.rank(), "gather collapsed_slice_dims");
      !e.empty())
    return e;
  if (auto e = checkBatchingDims(a->operandBatchingDims, a->startIndicesBatchingDims, in.rank(),
                                 idx, a->indexVectorDim);
      !e.empty()) {
    return "gather " + e;
  }
  for (int64_t d : a->collapsedSliceDims) {
    if (contains(a->operandBatchingDims, d))
      return "gather collapsed_slice_dims overlap batching dims";
    if (a->sliceSizes[d] > 1)
      return "gather collapses dimension " + std::to_string(d) + " of slice size > 1";
  }
  for (int64_t d : a->operandBatchingDims) {
    if (a->sliceSizes[d] > 1)
      return "gather batching dimension " + std::to_string(d) + " has slice size > 1";
  }
  if (auto e = checkIndexMap(a->startIndexMap, vectorSize, in.rank(), a->operandBatchingDims,
                             "gather start_index_map");
      !e.empty()) {
    return e;
  }
  std::vector<int64_t> offsetSizes;
  for (int i = 0; i < in.rank(); ++i) {
    if (!contains(a->collapsedSliceDims, i) && !contains(a->operandBatchingDims, i)) {
      offsetSizes.push_back(a->sliceSizes[i]);
    }
  }
  if (a->offsetDims.size() != offsetSizes.size()) {
    return "gather offset_dims " + ints(a->offsetDims) + " must name " +
           std::to_string(offsetSizes.size()) + " output dimensions";
  }
  std::vector<int64_t> batch = indexBatchDims(idx, a->indexVectorDim);
  int64_t outRank = static_cast<int64_t>(batch.size() + offsetSizes.size());
  if (auto e = sortedDimList(a->offsetDims, outRank, "gather offset_dims"); !e.empty()) return e;
  Type expect{in.dtype, {}};
  size_t b = 0, o = 0;
  for (int64_t i = 0; i < outRank; ++i) {
    expect.dims.push_back(contains(a->offsetDims, i) ? offsetSizes[o++] : batch[b++]);
  }
  return resultsMismatch(op, {expect});
}

std::string checkScatter(const Op& op) {
  size_t n = (op.operands.size() - 1) / 2;
  if (op.operands.size() < 3 || op.operands.size() % 2 == 0) {
    return "scatter takes N operands, the indices and N updates";
  }
  auto* a = std::get_if<ScatterAttrs>(&op.attrs);
  if (!a) return "scatter needs ScatterAttrs";
  const Type& in = op.operands[0]->type;
  const Type& idx = op.operands[n]->type;
  const Type& upd = op.operands[n + 1]->type;
  std::vector<DType> dtypes;
  std::vector<Type> expect;
  for (size_t i = 0; i < n; ++i) {
    const Type& t = op.operands[i]->type;
    const Type& u = op.operands[n + 1 + i]->type;
    if (t.dims != in.dims || u.dims != upd.dims || u.dtype != t.dtype) {
      return "type mismatch: scatter operands and updates " + typeList(op.operands);
    }
    dtypes.push_back(t.dtype);
    expect.push_back(t);
  }
  int64_t vectorSize = 0;
  if (auto e = checkIndices(idx, a->indexVectorDim, &vectorSize); !e.empty()) return "scatter " + e;
  if (auto e = sortedDimList(a->updateWindowDims, upd.rank(), "scatter update_window_dims");
      !e.empty())
    return e;
  if (auto e = sortedDimList(a->insertedWindowDims, in.rank(), "scatter inserted_window_dims");
      !e.empty())
    return e;
  if (auto e = checkBatchingDims(a->inputBatchingDims, a->scatterIndicesBatchingDims, in.rank(),
                                 idx, a->indexVectorDim);
      !e.empty()) {
    return "scatter " + e;
  }
  for (int64_t d : a->insertedWindowDims) {
    if (contains(a->inputBatchingDims, d))
      return "scatter inserted_window_dims overlap batching dims";
  }
  if (auto e = checkIndexMap(a->scatterDimsToOperandDims, vectorSize, in.rank(),
                             a->inputBatchingDims, "scatter scatter_dims_to_operand_dims");
      !e.empty()) {
    return e;
  }
  std::vector<int64_t> windowOperandDims;
  for (int i = 0; i < in.rank(); ++i) {
    if (!contains(a->insertedWindowDims, i) && !contains(a->inputBatchingDims, i))
      windowOperandDims.push_back(i);
  }
  if (a->updateWindowDims.size() != windowOperandDims.size()) {
    return "scatter update_window_dims " + ints(a->updateWindowDims) + " must name " +
           std::to_string(windowOperandDims.size()) + " update dimensions";
  }
  std::vector<int64_t> batch = indexBatchDims(idx, a->indexVectorDim);
  if (static_cast<size_t>(upd.rank()) != batch.size() + windowOperandDims.size()) {
    return "scatter update " + upd.toString() + " has the wrong rank for indices " + idx.toString();
  }
  size_t b = 0;
  for (int i = 0; i < upd.rank(); ++i) {
    auto it = std::find(a->updateWindowDims.begin(), a->updateWindowDims.end(), i);
    if (it != a->updateWindowDims.end()) {
      int64_t od = windowOperandDims[it - a->updateWindowDims.begin()];
      if (upd.dims[i] > in.dims[od])
        return "scatter update window " + upd.toString() + " exceeds operand " + in.toString();
    } else if (upd.dims[i] != batch[b++]) {
      return "scatter update " + upd.toString() + " does not match the index batch of " +
             idx.toString();
    }
  }
  std::vector<DType> args = dtypes;
  args.insert(args.end(), dtypes.begin(), dtypes.end());
  if (op.regions.size() != 1) return "scatter takes one combiner region";
  if (auto e = regionSignature(op, 0, args, dtypes); !e.empty()) return e;
  return resultsMismatch(op, expect);
}

// XLA's InferSelectAndScatterShape: the source holds one element per window of the padded
// operand; select compares two operand elements, scatter combines two source elements.
std::string checkSelectAndScatter(const Op& op) {
  auto* a = std::get_if<SelectAndScatterAttrs>(&op.attrs);
  if (!a) return "select-and-scatter needs SelectAndScatterAttrs";
  if (op.operands.size() != 3 || op.results.size() != 1 || op.regions.size() != 2) {
    return "select-and-scatter takes an operand, a source and an init value, a select and a "
           "scatter region, and gives one result";
  }
  const Type& in = op.operands[0]->type;
  const Type& source = op.operands[1]->type;
  const Type& init = op.operands[2]->type;
  if (source.dtype != in.dtype || init != Type{in.dtype, {}}) {
    return "type mismatch: select-and-scatter of " + typeList(op.operands) +
           ": the source and the init value must have the operand's element type";
  }
  size_t r = static_cast<size_t>(in.rank());
  for (const auto* v : {&a->sizes, &a->strides, &a->padLow, &a->padHigh}) {
    if (v->size() != r) return "select-and-scatter window has the wrong rank for " + in.toString();
  }
  std::vector<int64_t> windows;
  for (size_t i = 0; i < r; ++i) {
    if (a->sizes[i] < 1 || a->strides[i] < 1) {
      return "select-and-scatter window sizes and strides must be positive";
    }
    if (a->padLow[i] < 0 || a->padHigh[i] < 0) {
      return "select-and-scatter padding must not be negative";
    }
    int64_t padded = in.dims[i] + a->padLow[i] + a->padHigh[i];
    windows.push_back(padded < a->sizes[i] ? 0 : (padded - a->sizes[i]) / a->strides[i] + 1);
  }
  if (source.dims != windows) {
    return "select-and-scatter source " + source.toString() +
           " must have one element per window (" + Type{in.dtype, windows}.toString() + ")";
  }
  if (auto e = regionSignature(op, 0, {in.dtype, in.dtype}, {DType::Pred}); !e.empty()) return e;
  if (auto e = regionSignature(op, 1, {in.dtype, in.dtype}, {in.dtype}); !e.empty()) return e;
  return resultsMismatch(op, {in});
}

std::string checkSort(const Op& op) {
  auto* a = std::get_if<SortAttrs>(&op.attrs);
  if (!a) return "sort needs SortAttrs";
  if (op.operands.empty()) return "sort needs operands";
  const Type& first = op.operands[0]->type;
  std::vector<DType> args;
  std::vector<Type> expect;
  for (const Value* v : op.operands) {
    if (v->type.dims != first.dims)
      return "sort operands differ in shape: " + typeList(op.operands);
    args.push_back(v->type.dtype);
    args.push_back(v->type.dtype);
    expect.push_back(v->type);
  }
  if (a->dimension < 0 || a->dimension >= first.rank()) {
    return "sort dimension " + std::to_string(a->dimension) + " out of range for " +
           first.toString();
  }
  if (op.regions.size() != 1) return "sort takes one comparator region";
  if (auto e = regionSignature(op, 0, args, {DType::Pred}); !e.empty()) return e;
  return resultsMismatch(op, expect);
}

}  // namespace

std::string checkCompute(const Op& op) {
  switch (op.kind) {
    case OpKind::Dot:
      return checkDot(op);
    case OpKind::Reduce:
      return checkReduce(op);
    case OpKind::ReduceWindow:
      return checkReduceWindow(op);
    case OpKind::Gather:
      return checkGather(op);
    case OpKind::Scatter:
      return checkScatter(op);
    case OpKind::SelectAndScatter:
      return checkSelectAndScatter(op);
    case OpKind::Sort:
      return checkSort(op);
    default:
      return "not a compute op";
  }
}

}  // namespace lf::ir::detail
