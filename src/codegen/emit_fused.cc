// Fused values: the element of a value that has no buffer, computed where a consumer reads it.
// Index-only ops (broadcast, reshape, transpose, slice, reverse, iota, dynamic-slice) map the
// index to their operand's; elementwise ops become one local per element in the consumer's loop.
#include "codegen/emitter.h"

namespace lf::codegen {

std::vector<std::string> Emitter::splitIndex(const std::vector<int64_t>& dims,
                                             const std::string& index,
                                             const std::vector<bool>& used) {
  std::vector<int64_t> strides = rowMajorStrides(dims);
  std::vector<std::string> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1 || (!used.empty() && !used[d])) {
      out.push_back("0");
      continue;
    }
    std::string e = "(" + index + ")";
    if (strides[d] != 1) e += " / " + std::to_string(strides[d]);
    if (d > 0) e = "(" + e + ") % " + std::to_string(dims[d]);
    // An expression, not a local: a component the caller does not use must not be declared
    // (NVRTC warns), and the C++ compiler shares repeated subexpressions anyway.
    out.push_back("(" + e + ")");
  }
  return out;
}

std::string Emitter::fusedElement(const ir::Value* v, const std::string& index) {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(v)) + "@" + index;
  auto& memo = fusedMemo_.back();
  auto hit = memo.find(key);
  if (hit != memo.end()) return hit->second;

  using K = ir::OpKind;
  const ir::Op& op = *v->def;
  const auto& outDims = v->type.dims;
  std::string result;
  if (op.kind == K::Reshape) {
    result = at(op.operands[0], index);
  } else if (op.kind == K::Broadcast) {
    const ir::Value* in = op.operands[0];
    if (in->type.numElements() == 1) {
      result = at(in, "0");
    } else {
      const auto& dims = op.attr<ir::BroadcastAttrs>().dimensions;
      std::vector<bool> used(outDims.size(), false);
      for (size_t k = 0; k < dims.size(); ++k) used[dims[k]] = in->type.dims[k] != 1;
      std::vector<std::string> o = splitIndex(outDims, index, used);
      std::vector<std::string> inIdx;
      for (size_t k = 0; k < dims.size(); ++k) {
        inIdx.push_back(in->type.dims[k] == 1 ? "0" : o[dims[k]]);
      }
      result = at(in, linear(in->type.dims, inIdx));
    }
  } else if (op.kind == K::Transpose) {
    const ir::Value* in = op.operands[0];
    std::vector<std::string> o = splitIndex(outDims, index);
    const auto& perm = op.attr<ir::TransposeAttrs>().permutation;
    std::vector<std::string> inIdx(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) inIdx[perm[d]] = o[d];
    result = at(in, linear(in->type.dims, inIdx));
  } else if (op.kind == K::Slice) {
    const ir::Value* in = op.operands[0];
    const auto& a = op.attr<ir::SliceAttrs>();
    std::vector<std::string> o = splitIndex(outDims, index);
    std::vector<std::string> inIdx;
    for (size_t d = 0; d < o.size(); ++d) {
      std::string e = o[d];
      if (a.strides[d] != 1) e = "(" + e + ") * " + std::to_string(a.strides[d]);
      if (a.starts[d] != 0) e = std::to_string(a.starts[d]) + " + " + e;
      inIdx.push_back(e);
    }
    result = at(in, linear(in->type.dims, inIdx));
  } else if (op.kind == K::Reverse) {
    const ir::Value* in = op.operands[0];
    std::vector<std::string> inIdx = splitIndex(outDims, index);
    for (int64_t d : op.attr<ir::ReverseAttrs>().dimensions) {
      inIdx[d] = "(" + std::to_string(outDims[d] - 1) + " - " + inIdx[d] + ")";
    }
    result = at(in, linear(in->type.dims, inIdx));
  } else if (op.kind == K::Iota) {
    std::vector<bool> used(outDims.size(), false);
    used.at(op.attr<ir::IotaAttrs>().dimension) = true;
    std::vector<std::string> o = splitIndex(outDims, index, used);
    result = "lf_convert<" + cType(v->type.dtype) + ">((int64_t)(" +
             o.at(op.attr<ir::IotaAttrs>().dimension) + "))";
  } else if (op.kind == K::DynamicSlice) {
    const ir::Value* in = op.operands[0];
    const auto& sizes = op.attr<ir::DynamicSliceAttrs>().sizes;
    std::vector<std::string> o = splitIndex(outDims, index);
    std::vector<std::string> inIdx;
    for (int d = 0; d < in->type.rank(); ++d) {
      const ir::Value* start = op.operands[1 + d];
      std::string s = "s" + std::to_string(++uniqueCounter_);
      line("[[maybe_unused]] const int64_t " + s + " = " +
           clampedIndex(scalar(start), start->type.dtype, in->type.dims[d] - sizes[d]) + ";");
      inIdx.push_back(s + " + " + o[d]);
    }
    result = at(in, linear(in->type.dims, inIdx));
  } else {
    std::vector<std::string> args;
    for (const ir::Value* operand : op.operands) {
      bool broadcastScalar = operand->type.rank() == 0 && v->type.rank() > 0;
      args.push_back(at(operand, broadcastScalar ? "0" : index));
    }
    result = "e" + std::to_string(++uniqueCounter_);
    // Unused when a consumer's index map drops the component that needed it.
    line("[[maybe_unused]] const " + cType(v->type.dtype) + " " + result + " = " +
         scalarExpr(op, args) + ";");
  }
  fusedMemo_.back()[key] = result;
  return result;
}

}  // namespace lf::codegen
