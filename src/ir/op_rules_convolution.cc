// The rule for convolution (XLA's ShapeInference::InferConvolveShape, batch_group_count 1).
#include <set>

#include "ir/op_rules.h"

namespace lf::ir::detail {
namespace {

// "" when {batch-or-input, feature-or-output, spatial...} are the distinct dimensions of `rank`.
std::string permutationOf(int64_t rank, int64_t first, int64_t second,
                          const std::vector<int64_t>& spatial, const std::string& which) {
  std::set<int64_t> seen{first, second};
  seen.insert(spatial.begin(), spatial.end());
  const bool inRange = *seen.begin() >= 0 && *seen.rbegin() < rank;
  if (seen.size() != spatial.size() + 2 || !inRange || static_cast<int64_t>(seen.size()) != rank) {
    return "convolution " + which + " dimension numbers do not name each of its " +
           std::to_string(rank) + " dimensions once";
  }
  return "";
}

}  // namespace

// The spatial size of an output dimension: the lhs dilated and padded, the window dilated, then
// strided (0 when the window does not fit).
int64_t convolutionOutputSize(int64_t in, int64_t size, int64_t stride, int64_t padLow,
                              int64_t padHigh, int64_t lhsDilation, int64_t rhsDilation) {
  const int64_t dilatedIn = in == 0 ? 0 : (in - 1) * lhsDilation + 1;
  const int64_t padded = dilatedIn + padLow + padHigh;
  const int64_t window = size == 0 ? 0 : (size - 1) * rhsDilation + 1;
  return padded < window ? 0 : (padded - window) / stride + 1;
}

std::string checkConvolution(const Op& op) {
  auto* a = std::get_if<ConvolutionAttrs>(&op.attrs);
  if (a == nullptr) return "convolution needs ConvolutionAttrs";
  if (op.operands.size() != 2 || op.results.size() != 1) {
    return "convolution takes (lhs, rhs) and gives one result";
  }
  const Type& lhs = op.operands[0]->type;
  const Type& rhs = op.operands[1]->type;
  const Type& out = op.result()->type;
  if (!isFloat(lhs.dtype) || rhs.dtype != lhs.dtype || out.dtype != lhs.dtype) {
    return "convolution of " + lhs.toString() + " and " + rhs.toString() + " giving " +
           out.toString() + ": only float operands and result of one type";
  }
  const size_t n = a->lhsSpatial.size();
  if (lhs.rank() != static_cast<int>(n + 2) || rhs.rank() != lhs.rank() ||
      out.rank() != lhs.rank()) {
    return "convolution ranks differ: " + lhs.toString() + ", " + rhs.toString() + " -> " +
           out.toString() + " with " + std::to_string(n) + " spatial dimensions";
  }
  const std::vector<const std::vector<int64_t>*> perDim = {
      &a->rhsSpatial, &a->outSpatial, &a->sizes,       &a->strides,
      &a->padLow,     &a->padHigh,    &a->lhsDilation, &a->rhsDilation};
  for (const auto* v : perDim) {
    if (v->size() != n) return "convolution window and dimension numbers differ in length";
  }
  if (auto e = permutationOf(lhs.rank(), a->lhsBatch, a->lhsFeature, a->lhsSpatial, "lhs");
      !e.empty()) {
    return e;
  }
  if (auto e = permutationOf(rhs.rank(), a->rhsInput, a->rhsOutput, a->rhsSpatial, "rhs");
      !e.empty()) {
    return e;
  }
  if (auto e = permutationOf(out.rank(), a->outBatch, a->outFeature, a->outSpatial, "output");
      !e.empty()) {
    return e;
  }
  const int64_t groups = a->featureGroupCount;
  const int64_t outFeatures = rhs.dims[a->rhsOutput];
  if (groups < 1 || lhs.dims[a->lhsFeature] != rhs.dims[a->rhsInput] * groups ||
      outFeatures % groups != 0) {
    return "convolution features: lhs has " + std::to_string(lhs.dims[a->lhsFeature]) +
           ", rhs takes " + std::to_string(rhs.dims[a->rhsInput]) + " per group and gives " +
           std::to_string(outFeatures) + ", in " + std::to_string(groups) + " group(s)";
  }
  std::vector<int64_t> expect(out.rank());
  expect[a->outBatch] = lhs.dims[a->lhsBatch];
  expect[a->outFeature] = outFeatures;
  for (size_t d = 0; d < n; ++d) {
    if (a->sizes[d] != rhs.dims[a->rhsSpatial[d]] || a->strides[d] < 1 || a->lhsDilation[d] < 1 ||
        a->rhsDilation[d] < 1) {
      return "convolution window dimension " + std::to_string(d) + " has size " +
             std::to_string(a->sizes[d]) + " for a kernel of " +
             std::to_string(rhs.dims[a->rhsSpatial[d]]) +
             " (strides and dilations must be at least 1)";
    }
    expect[a->outSpatial[d]] =
        convolutionOutputSize(lhs.dims[a->lhsSpatial[d]], a->sizes[d], a->strides[d], a->padLow[d],
                              a->padHigh[d], a->lhsDilation[d], a->rhsDilation[d]);
  }
  if (out.dims != expect) {
    return "type mismatch: convolution of " + lhs.toString() + " and " + rhs.toString() +
           " gives " + Type{out.dtype, expect}.toString() + ", not " + out.toString();
  }
  return "";
}

}  // namespace lf::ir::detail
