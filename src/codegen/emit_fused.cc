// Fused values: the element of a value that has no buffer, computed where a consumer reads it.
// Index-only ops (broadcast, reshape, transpose, slice, reverse, iota, dynamic-slice) map the
// index to their operand's; elementwise ops become one local per element in the consumer's loop.
#include "codegen/emitter.h"

namespace lf::codegen {

namespace {

// Whether `in` and `out` differ only in dimensions of size 1 (a squeeze or an expand_dims).
bool onlyUnitDimsDiffer(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<int64_t> a, b;
  for (int64_t d : in) {
    if (d != 1) a.push_back(d);
  }
  for (int64_t d : out) {
    if (d != 1) b.push_back(d);
  }
  return a == b;
}

}  // namespace

std::vector<std::string> Emitter::splitIndex(const std::vector<int64_t>& dims,
                                             const std::string& index,
                                             const std::vector<bool>& used) {
  std::vector<int64_t> strides = rowMajorStrides(dims);
  // In a loop split into rows (RowSplit), the dims from `inner` on span exactly one row: their
  // parts come from i_c, the others' from i_r. Right for any dims whose trailing ones multiply to
  // the row length, as i_c < rowLength and i = i_r * rowLength + i_c.
  int64_t rowLength = 0;
  size_t inner = dims.size();
  if (index == "i" && !rowSplits_.empty() && rowSplits_.back().rowLength > 0) {
    int64_t trailing = 1;
    for (size_t d = dims.size(); d-- > 1 && trailing < rowSplits_.back().rowLength;) {
      trailing *= dims[d];
      if (trailing == rowSplits_.back().rowLength) {
        rowLength = trailing;
        inner = d;
      }
    }
  }
  std::vector<std::string> out;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1 || (!used.empty() && !used[d])) {
      out.push_back("0");
      continue;
    }
    std::string var = "(" + index + ")";
    int64_t stride = strides[d];
    bool first = d == 0;
    if (rowLength > 0) {
      var = d >= inner ? "i_c" : "i_r";
      stride = d >= inner ? strides[d] : strides[d] / rowLength;
      first = d == 0 || d == inner;
    }
    std::string e = var;
    if (stride != 1) e += " / " + std::to_string(stride);
    if (!first) e = "(" + e + ") % " + std::to_string(dims[d]);
    // An expression, not a local: a component the caller does not use must not be declared
    // (NVRTC warns), and the C++ compiler shares repeated subexpressions anyway.
    out.push_back("(" + e + ")");
  }
  return out;
}

std::string Emitter::at(const ir::Value* v, const ElementIndex& index) {
  if (!index.parts.empty() && kernel_.storage.at(v).kind == plan::StorageKind::Fused) {
    return fusedElement(v, index);
  }
  return at(v, index.linear.empty() ? linear(v->type.dims, index.parts) : index.linear);
}

std::string Emitter::fusedElement(const ir::Value* v, const std::string& index) {
  return fusedElement(v, ElementIndex{index, {}});
}

std::string Emitter::fusedElement(const ir::Value* v, const ElementIndex& index) {
  std::string key = std::to_string(reinterpret_cast<uintptr_t>(v)) + "@";
  if (index.linear.empty()) {
    for (const std::string& p : index.parts) key += "[" + p + "]";
  } else {
    key += index.linear;
  }
  auto& memo = fusedMemo_.back();
  auto hit = memo.find(key);
  if (hit != memo.end()) return hit->second;

  using K = ir::OpKind;
  const ir::Op& op = *v->def;
  const auto& outDims = v->type.dims;
  // The parts of the index (split from the linear one when not given; `used` marks the dims whose
  // parts the op reads), and the linear index.
  auto partsOf = [&](const std::vector<bool>& used = {}) {
    return index.parts.empty() ? splitIndex(outDims, index.linear, used) : index.parts;
  };
  auto linearOf = [&] {
    return index.linear.empty() ? linear(outDims, index.parts) : index.linear;
  };
  std::string result;
  if (op.kind == K::Reshape) {
    const ir::Value* in = op.operands[0];
    if (index.parts.empty() || !onlyUnitDimsDiffer(in->type.dims, outDims)) {
      result = at(in, ElementIndex{linearOf(), {}});
    } else {
      std::vector<std::string> inIdx;
      size_t o = 0;
      for (int64_t d : in->type.dims) {
        // (d first: after the last non-unit dim, o may be past outDims' end.)
        while (d != 1 && outDims[o] == 1) ++o;
        inIdx.push_back(d == 1 ? "0" : index.parts[o++]);
      }
      result = at(in, ElementIndex{"", inIdx});
    }
  } else if (op.kind == K::Broadcast) {
    const ir::Value* in = op.operands[0];
    if (in->type.numElements() == 1) {
      result = at(in, "0");
    } else {
      const auto& dims = op.attr<ir::BroadcastAttrs>().dimensions;
      std::vector<bool> used(outDims.size(), false);
      for (size_t k = 0; k < dims.size(); ++k) used[dims[k]] = in->type.dims[k] != 1;
      std::vector<std::string> o = partsOf(used);
      std::vector<std::string> inIdx;
      for (size_t k = 0; k < dims.size(); ++k) {
        inIdx.push_back(in->type.dims[k] == 1 ? "0" : o[dims[k]]);
      }
      result = at(in, ElementIndex{"", inIdx});
    }
  } else if (op.kind == K::Transpose) {
    const ir::Value* in = op.operands[0];
    std::vector<std::string> o = partsOf();
    const auto& perm = op.attr<ir::TransposeAttrs>().permutation;
    std::vector<std::string> inIdx(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) inIdx[perm[d]] = o[d];
    result = at(in, ElementIndex{"", inIdx});
  } else if (op.kind == K::Slice) {
    const ir::Value* in = op.operands[0];
    const auto& a = op.attr<ir::SliceAttrs>();
    std::vector<std::string> o = partsOf();
    std::vector<std::string> inIdx;
    for (size_t d = 0; d < o.size(); ++d) {
      std::string e = o[d];
      if (a.strides[d] != 1) e = "(" + e + ") * " + std::to_string(a.strides[d]);
      if (a.starts[d] != 0) e = "(" + std::to_string(a.starts[d]) + " + " + e + ")";
      inIdx.push_back(e);
    }
    result = at(in, ElementIndex{"", inIdx});
  } else if (op.kind == K::Reverse) {
    const ir::Value* in = op.operands[0];
    std::vector<std::string> inIdx = partsOf();
    for (int64_t d : op.attr<ir::ReverseAttrs>().dimensions) {
      // The operand's part in parentheses: it may be a sum (a slice's start plus its index).
      inIdx[d] = "(" + std::to_string(outDims[d] - 1) + " - (" + inIdx[d] + "))";
    }
    result = at(in, ElementIndex{"", inIdx});
  } else if (op.kind == K::Iota) {
    std::vector<bool> used(outDims.size(), false);
    used.at(op.attr<ir::IotaAttrs>().dimension) = true;
    std::vector<std::string> o = partsOf(used);
    result = "lf_convert<" + cType(v->type.dtype) + ">((int64_t)(" +
             o.at(op.attr<ir::IotaAttrs>().dimension) + "))";
  } else if (op.kind == K::DynamicSlice) {
    const ir::Value* in = op.operands[0];
    const auto& sizes = op.attr<ir::DynamicSliceAttrs>().sizes;
    std::vector<std::string> o = partsOf();
    std::vector<std::string> inIdx;
    for (int d = 0; d < in->type.rank(); ++d) {
      // A slice as long as its operand's dim starts at 0 whatever the start (it is clamped).
      if (in->type.dims[d] == sizes[d]) {
        inIdx.push_back(o[d]);
        continue;
      }
      const ir::Value* start = op.operands[1 + d];
      // "ds", not "s": a consumer's own starts are s0, s1, ... (dynamic-update-slice), which a
      // fused start named s1 would shadow inside the consumer's loop.
      std::string s = "ds" + std::to_string(++uniqueCounter_);
      line("[[maybe_unused]] const int64_t " + s + " = " +
           clampedIndex(scalar(start), start->type.dtype, in->type.dims[d] - sizes[d]) + ";");
      inIdx.push_back("(" + s + " + " + o[d] + ")");
    }
    result = at(in, ElementIndex{"", inIdx});
  } else {
    std::vector<std::string> args;
    for (const ir::Value* operand : op.operands) {
      bool broadcastScalar = operand->type.rank() == 0 && v->type.rank() > 0;
      if (broadcastScalar) {
        args.push_back(at(operand, "0"));
      } else if (operand->type.dims == outDims) {
        args.push_back(at(operand, index));
      } else {
        args.push_back(at(operand, linearOf()));
      }
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
