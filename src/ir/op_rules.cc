// Rules for leaves and elementwise ops, and the dispatch over all op kinds.
#include "ir/op_rules.h"

namespace lf::ir {
namespace detail {

std::string typeList(const std::vector<Value*>& vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + vs[i]->type.toString();
  return s;
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "}";
}

namespace {

std::string name(const Op& op) { return opKindName(op.kind); }

std::string expectCounts(const Op& op, size_t operands, size_t results) {
  if (op.operands.size() != operands) {
    return name(op) + " takes " + std::to_string(operands) + " operands, got " +
           std::to_string(op.operands.size());
  }
  if (op.results.size() != results) {
    return name(op) + " has " + std::to_string(results) + " results, got " +
           std::to_string(op.results.size());
  }
  if (!op.regions.empty()) return name(op) + " takes no regions";
  return "";
}

bool isFloatOnly(OpKind k) {
  switch (k) {
    case OpKind::Floor:
    case OpKind::Ceil:
    case OpKind::RoundNearestAfz:
    case OpKind::RoundNearestEven:
    case OpKind::Exp:
    case OpKind::Expm1:
    case OpKind::Log:
    case OpKind::Log1p:
    case OpKind::Sqrt:
    case OpKind::Rsqrt:
    case OpKind::Cbrt:
    case OpKind::Tanh:
    case OpKind::Logistic:
    case OpKind::Sin:
    case OpKind::Cos:
    case OpKind::Tan:
    case OpKind::Erf:
    case OpKind::ReducePrecision:
    case OpKind::IsFinite:
    case OpKind::Atan2:
      return true;
    default:
      return false;
  }
}

// Which element types an elementwise op accepts (for its operands).
std::string checkDType(const Op& op, DType t) {
  const OpKind k = op.kind;
  std::string bad = name(op) + " does not accept element type " + std::string(dtypeName(t));
  if (isFloatOnly(k)) return isFloat(t) ? "" : bad;
  switch (k) {
    case OpKind::Not:
    case OpKind::And:
    case OpKind::Or:
    case OpKind::Xor:
      return (t == DType::Pred || isInteger(t)) ? "" : bad;
    case OpKind::Popcnt:
    case OpKind::Clz:
    case OpKind::ShiftLeft:
    case OpKind::ShiftRightLogical:
    case OpKind::ShiftRightArithmetic:
      return isInteger(t) ? "" : bad;
    case OpKind::Abs:
    case OpKind::Negate:
    case OpKind::Sign:
    case OpKind::Add:
    case OpKind::Subtract:
    case OpKind::Multiply:
    case OpKind::Divide:
    case OpKind::Remainder:
    case OpKind::Power:
      return t != DType::Pred ? "" : bad;
    default:
      return "";
  }
}

std::string checkUnary(const Op& op) {
  if (auto e = expectCounts(op, 1, 1); !e.empty()) return e;
  const Type& in = op.operands[0]->type;
  const Type& out = op.result()->type;
  if (op.kind == OpKind::Convert) {
    if (in.dims != out.dims)
      return "shape mismatch: convert " + in.toString() + " to " + out.toString();
    return "";
  }
  if (op.kind == OpKind::BitcastConvert) {
    int inBits = bitWidth(in.dtype), outBits = bitWidth(out.dtype);
    if (in.dtype == DType::Pred || out.dtype == DType::Pred) return "bitcast-convert of pred";
    std::vector<int64_t> expect = in.dims;
    if (inBits > outBits) {
      expect.push_back(inBits / outBits);
    } else if (inBits < outBits) {
      if (in.dims.empty() || in.dims.back() != outBits / inBits) {
        return "bitcast-convert from " + in.toString() + " to " + out.toString() +
               " needs a minor dimension of " + std::to_string(outBits / inBits);
      }
      expect.pop_back();
    }
    if (out.dims != expect) {
      return "shape mismatch: bitcast-convert " + in.toString() + " to " + out.toString();
    }
    return "";
  }
  if (auto e = checkDType(op, in.dtype); !e.empty()) return e;
  if (op.kind == OpKind::ReducePrecision) {
    if (!std::holds_alternative<ReducePrecisionAttrs>(op.attrs)) {
      return "reduce-precision needs ReducePrecisionAttrs";
    }
    const auto& a = op.attr<ReducePrecisionAttrs>();
    if (a.exponentBits < 1 || a.mantissaBits < 0) {
      return "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0, got " +
             std::to_string(a.exponentBits) + " and " + std::to_string(a.mantissaBits);
    }
  }
  Type expect = in;
  if (op.kind == OpKind::IsFinite) expect.dtype = DType::Pred;
  if (out != expect) {
    return "type mismatch: " + name(op) + " of " + in.toString() + " gives " + expect.toString() +
           ", not " + out.toString();
  }
  return "";
}

std::string checkCompareAttrs(const Op& op, DType t) {
  if (!std::holds_alternative<CompareAttrs>(op.attrs)) return "compare needs CompareAttrs";
  CompareType ct = op.attr<CompareAttrs>().type;
  bool ok = false;
  switch (ct) {
    case CompareType::Float:
    case CompareType::TotalOrder:
      ok = isFloat(t);
      break;
    case CompareType::Signed:
      ok = isSignedInt(t);
      break;
    case CompareType::Unsigned:
      ok = isUnsignedInt(t) || t == DType::Pred;
      break;
  }
  if (!ok) return "comparison type does not fit element type " + std::string(dtypeName(t));
  return "";
}

std::string checkBinary(const Op& op) {
  if (auto e = expectCounts(op, 2, 1); !e.empty()) return e;
  const Type& a = op.operands[0]->type;
  const Type& b = op.operands[1]->type;
  if (a != b)
    return "type mismatch: " + name(op) + " operands " + a.toString() + " and " + b.toString();
  Type expect = a;
  if (op.kind == OpKind::Compare) {
    if (auto e = checkCompareAttrs(op, a.dtype); !e.empty()) return e;
    expect.dtype = DType::Pred;
  } else if (auto e = checkDType(op, a.dtype); !e.empty()) {
    return e;
  }
  if (op.result()->type != expect) {
    return "type mismatch: " + name(op) + " of " + a.toString() + " gives " + expect.toString() +
           ", not " + op.result()->type.toString();
  }
  return "";
}

std::string checkTernary(const Op& op) {
  if (auto e = expectCounts(op, 3, 1); !e.empty()) return e;
  const Type& out = op.result()->type;
  if (op.kind == OpKind::Select) {
    const Type& p = op.operands[0]->type;
    const Type& t = op.operands[1]->type;
    const Type& f = op.operands[2]->type;
    if (p.dtype != DType::Pred) return "select predicate must be pred, got " + p.toString();
    if (t != f) return "type mismatch: select branches " + t.toString() + " and " + f.toString();
    if (!p.dims.empty() && p.dims != t.dims) {
      return "shape mismatch: select predicate " + p.toString() + " and branches " + t.toString();
    }
    if (out != t) return "type mismatch: select of " + t.toString() + " gives " + out.toString();
    return "";
  }
  if (op.kind == OpKind::Fma) {
    for (const Value* v : op.operands) {
      if (v->type != out) {
        return "type mismatch: fma operand " + v->type.toString() + " for result " + out.toString();
      }
    }
    if (out.dtype != DType::F16 && out.dtype != DType::F32 && out.dtype != DType::F64) {
      return "fma of " + out.toString() + ": only f16, f32 and f64 fuse";
    }
    return "";
  }
  const Type& lo = op.operands[0]->type;
  const Type& x = op.operands[1]->type;
  const Type& hi = op.operands[2]->type;
  for (const Type* bound : {&lo, &hi}) {
    if (bound->dtype != x.dtype || (!bound->dims.empty() && bound->dims != x.dims)) {
      return "type mismatch: clamp bound " + bound->toString() + " for operand " + x.toString();
    }
  }
  if (out != x) return "type mismatch: clamp of " + x.toString() + " gives " + out.toString();
  return "";
}

std::string checkLeaf(const Op& op) {
  if (auto e = expectCounts(op, 0, 1); !e.empty()) return e;
  const Type& t = op.result()->type;
  for (int64_t d : t.dims) {
    if (d < 0) return "negative dimension in " + t.toString();
  }
  if (op.kind == OpKind::Constant) {
    if (!std::holds_alternative<ConstantAttrs>(op.attrs)) return "constant needs ConstantAttrs";
    size_t have = op.attr<ConstantAttrs>().bytes.size();
    if (static_cast<int64_t>(have) != t.byteSize()) {
      return "constant of " + t.toString() + " has " + std::to_string(have) + " bytes, needs " +
             std::to_string(t.byteSize());
    }
    return "";
  }
  if (!std::holds_alternative<IotaAttrs>(op.attrs)) return "iota needs IotaAttrs";
  int64_t d = op.attr<IotaAttrs>().dimension;
  if (d < 0 || d >= t.rank())
    return "iota dimension " + std::to_string(d) + " out of range for " + t.toString();
  if (t.dtype == DType::Pred) return "iota of pred";
  return "";
}

}  // namespace

std::string checkElementwise(const Op& op) {
  if (op.kind == OpKind::Constant || op.kind == OpKind::Iota) return checkLeaf(op);
  if (op.kind <= OpKind::BitcastConvert) return checkUnary(op);
  if (op.kind <= OpKind::Compare) return checkBinary(op);
  return checkTernary(op);
}

}  // namespace detail

std::string checkOp(const Op& op) {
  for (const Value* v : op.operands) {
    if (v == nullptr) return std::string(opKindName(op.kind)) + " has a null operand";
  }
  switch (op.kind) {
    case OpKind::Broadcast:
    case OpKind::Reshape:
    case OpKind::Transpose:
    case OpKind::Slice:
    case OpKind::DynamicSlice:
    case OpKind::DynamicUpdateSlice:
    case OpKind::Concatenate:
    case OpKind::Pad:
    case OpKind::Reverse:
      return detail::checkDataMovement(op);
    case OpKind::Dot:
    case OpKind::Reduce:
    case OpKind::ReduceWindow:
    case OpKind::Gather:
    case OpKind::Scatter:
    case OpKind::SelectAndScatter:
    case OpKind::Sort:
      return detail::checkCompute(op);
    case OpKind::Convolution:
      return detail::checkConvolution(op);
    case OpKind::TridiagonalFactor:
    case OpKind::TridiagonalSolve:
    case OpKind::TridiagonalSolvePerturbed:
      return detail::checkTridiagonal(op);
    case OpKind::Cholesky:
    case OpKind::TriangularSolve:
    case OpKind::Lu:
    case OpKind::LuPivotsToPermutation:
    case OpKind::Qr:
    case OpKind::HouseholderProduct:
    case OpKind::Ormqr:
    case OpKind::Eigh:
    case OpKind::Svd:
    case OpKind::EigValues:
    case OpKind::Fft:
      return detail::checkLinalg(op);
    case OpKind::While:
    case OpKind::Conditional:
    case OpKind::Threefry2x32:
    case OpKind::HostCallback:
      return detail::checkControlFlow(op);
    default:
      return detail::checkElementwise(op);
  }
}

}  // namespace lf::ir
