#include "passes/fold.h"

#include <bit>
#include <cstring>

#include "ir/scalar_bits.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

uint64_t maskOf(int width) { return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1; }

// Two's-complement value of the low `width` bits (computed unsigned, so nothing overflows).
int64_t signExtend(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

// XLA compares integers by the element type's signedness (the emitter ignores the comparison
// type attribute for integers, and so does the prelude).
bool compare(ir::CompareDirection d, bool isSigned, uint64_t a, uint64_t b, int width) {
  auto test = [d](auto x, auto y) {
    switch (d) {
      case ir::CompareDirection::EQ:
        return x == y;
      case ir::CompareDirection::NE:
        return x != y;
      case ir::CompareDirection::LT:
        return x < y;
      case ir::CompareDirection::LE:
        return x <= y;
      case ir::CompareDirection::GT:
        return x > y;
      case ir::CompareDirection::GE:
        return x >= y;
    }
    return false;
  };
  if (isSigned) return test(signExtend(a, width), signExtend(b, width));
  return test(a, b);
}

uint64_t maxOf(bool isSigned, uint64_t a, uint64_t b, int width) {
  return compare(ir::CompareDirection::GT, isSigned, a, b, width) ? a : b;
}
uint64_t minOf(bool isSigned, uint64_t a, uint64_t b, int width) {
  return compare(ir::CompareDirection::LT, isSigned, a, b, width) ? a : b;
}

// Pred: the logical ops, compare and max/min (or/and on 0/1). XLA has no pred arithmetic that
// loopfuse folds (the prelude's bool add/multiply are not HLO rules, so they are left alone).
std::optional<uint64_t> evalPred(const ir::Op& op, const std::vector<uint64_t>& a) {
  switch (op.kind) {
    case K::And:
    case K::Minimum:
      return a[0] & a[1];
    case K::Or:
    case K::Maximum:
      return a[0] | a[1];
    case K::Xor:
      return a[0] ^ a[1];
    case K::Not:
      return a[0] ^ 1;
    case K::Compare:
      return compare(op.attr<ir::CompareAttrs>().direction, false, a[0], a[1], 8) ? 1 : 0;
    case K::Clamp:
      return (a[0] | a[1]) & a[2];
    default:
      return std::nullopt;
  }
}

// Integers, with XLA's rules: wrapping add/subtract/multiply/negate/abs; x / 0 = -1 (all bits),
// x % 0 = x, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0; a shift amount compared UNSIGNED with the
// width, out of range giving 0 (or the sign fill for an arithmetic right shift).
std::optional<uint64_t> evalInteger(const ir::Op& op, DType t, const std::vector<uint64_t>& a) {
  const int w = bitWidth(t);
  const uint64_t m = maskOf(w);
  const bool s = isSignedInt(t);
  switch (op.kind) {
    case K::Add:
      return (a[0] + a[1]) & m;
    case K::Subtract:
      return (a[0] - a[1]) & m;
    case K::Multiply:
      return (a[0] * a[1]) & m;
    case K::Divide:
      if (a[1] == 0) return m;
      if (s && signExtend(a[1], w) == -1) return (0 - a[0]) & m;
      if (s) return static_cast<uint64_t>(signExtend(a[0], w) / signExtend(a[1], w)) & m;
      return a[0] / a[1];
    case K::Remainder:
      if (a[1] == 0) return a[0];
      if (s && signExtend(a[1], w) == -1) return 0;
      if (s) return static_cast<uint64_t>(signExtend(a[0], w) % signExtend(a[1], w)) & m;
      return a[0] % a[1];
    case K::Maximum:
      return maxOf(s, a[0], a[1], w);
    case K::Minimum:
      return minOf(s, a[0], a[1], w);
    case K::Clamp:
      return minOf(s, maxOf(s, a[0], a[1], w), a[2], w);
    case K::And:
      return a[0] & a[1];
    case K::Or:
      return a[0] | a[1];
    case K::Xor:
      return a[0] ^ a[1];
    case K::Not:
      return ~a[0] & m;
    case K::ShiftLeft:
      return a[1] >= static_cast<uint64_t>(w) ? 0 : (a[0] << a[1]) & m;
    case K::ShiftRightLogical:
      return a[1] >= static_cast<uint64_t>(w) ? 0 : a[0] >> a[1];
    case K::ShiftRightArithmetic: {
      const int64_t x = signExtend(a[0], w);
      if (a[1] >= static_cast<uint64_t>(w)) return x < 0 ? m : 0;
      return static_cast<uint64_t>(x >> a[1]) & m;
    }
    case K::Negate:
      return (0 - a[0]) & m;
    case K::Abs:
      return s && signExtend(a[0], w) < 0 ? (0 - a[0]) & m : a[0];
    case K::Sign:
      if (a[0] == 0) return 0;
      return s && signExtend(a[0], w) < 0 ? m : 1;
    case K::Popcnt:
      return static_cast<uint64_t>(std::popcount(a[0]));
    case K::Clz:
      return static_cast<uint64_t>(std::countl_zero(a[0]) - (64 - w));
    case K::Compare:
      return compare(op.attr<ir::CompareAttrs>().direction, s, a[0], a[1], w) ? 1 : 0;
    default:
      return std::nullopt;
  }
}

// convert between integer and pred types: to pred is x != 0; widening extends by the SOURCE's
// signedness; narrowing keeps the low bits.
std::optional<uint64_t> evalConvert(DType from, DType to, uint64_t x) {
  const bool fromInt = from == DType::Pred || isInteger(from);
  const bool toInt = to == DType::Pred || isInteger(to);
  if (!fromInt || !toInt) return std::nullopt;
  if (to == DType::Pred) return x != 0 ? 1 : 0;
  const uint64_t wide =
      isSignedInt(from) ? static_cast<uint64_t>(signExtend(x, bitWidth(from))) : x;
  return wide & maskOf(bitWidth(to));
}

std::vector<int64_t> unravel(int64_t linear, const std::vector<int64_t>& dims) {
  std::vector<int64_t> idx(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    idx[d] = dims[d] == 0 ? 0 : linear % dims[d];
    linear = dims[d] == 0 ? 0 : linear / dims[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + idx[d];
  return linear;
}

// The operand element that a data-movement op reads for result element `resultIdx`.
std::vector<int64_t> sourceIndex(const ir::Op& op, const std::vector<int64_t>& resultIdx) {
  const std::vector<int64_t>& inDims = op.operands[0]->type.dims;
  std::vector<int64_t> in(inDims.size(), 0);
  switch (op.kind) {
    case K::Broadcast: {
      const auto& dims = op.attr<ir::BroadcastAttrs>().dimensions;
      for (size_t i = 0; i < in.size(); ++i) in[i] = inDims[i] == 1 ? 0 : resultIdx[dims[i]];
      break;
    }
    case K::Transpose: {
      const auto& perm = op.attr<ir::TransposeAttrs>().permutation;
      for (size_t i = 0; i < perm.size(); ++i) in[perm[i]] = resultIdx[i];
      break;
    }
    case K::Slice: {
      const auto& a = op.attr<ir::SliceAttrs>();
      for (size_t i = 0; i < in.size(); ++i) in[i] = a.starts[i] + resultIdx[i] * a.strides[i];
      break;
    }
    default:
      break;
  }
  return in;
}

std::optional<std::vector<uint8_t>> foldIota(const ir::Op& op) {
  const ir::Type& t = op.result()->type;
  const int width = byteSize(t.dtype);
  std::vector<uint8_t> out(static_cast<size_t>(t.byteSize()));
  const int64_t dim = op.attr<ir::IotaAttrs>().dimension;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const int64_t v = unravel(i, t.dims)[dim];  // below 64: exact in every float format
    uint64_t bits = 0;
    switch (t.dtype) {
      case DType::Pred:
        return std::nullopt;
      case DType::F16:
        bits = ir::doubleToF16Bits(static_cast<double>(v));
        break;
      case DType::BF16:
        bits = ir::doubleToBF16Bits(static_cast<double>(v));
        break;
      case DType::F32:
        bits = std::bit_cast<uint32_t>(static_cast<float>(v));
        break;
      case DType::F64:
        bits = std::bit_cast<uint64_t>(static_cast<double>(v));
        break;
      default:
        bits = static_cast<uint64_t>(v);
    }
    storeBits(t.dtype, bits, out.data() + i * width);
  }
  return out;
}

std::optional<std::vector<uint8_t>> foldDataMovement(const ir::Op& op,
                                                     const std::vector<uint8_t>& in) {
  const ir::Type& t = op.result()->type;
  if (op.kind == K::Reshape) return in;  // row-major bytes do not move
  const size_t width = static_cast<size_t>(byteSize(t.dtype));
  std::vector<uint8_t> out(static_cast<size_t>(t.byteSize()));
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const int64_t from = ravel(sourceIndex(op, unravel(i, t.dims)), op.operands[0]->type.dims);
    std::memcpy(out.data() + i * width, in.data() + from * width, width);
  }
  return out;
}

// select copies bits, so it folds for every dtype; the predicate may be a scalar.
std::vector<uint8_t> foldSelect(const ir::Op& op,
                                const std::vector<const std::vector<uint8_t>*>& in) {
  const ir::Type& t = op.result()->type;
  const size_t width = static_cast<size_t>(byteSize(t.dtype));
  const bool scalarPred = op.operands[0]->type.numElements() == 1;
  std::vector<uint8_t> out(static_cast<size_t>(t.byteSize()));
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const bool p = (*in[0])[scalarPred ? 0 : i] != 0;
    std::memcpy(out.data() + i * width, (p ? in[1] : in[2])->data() + i * width, width);
  }
  return out;
}

}  // namespace

uint64_t loadBits(DType dtype, const uint8_t* p) {
  uint64_t bits = 0;
  for (int b = byteSize(dtype) - 1; b >= 0; --b) bits = (bits << 8) | p[b];
  return dtype == DType::Pred ? (bits != 0 ? 1 : 0) : bits;
}

void storeBits(DType dtype, uint64_t bits, uint8_t* p) {
  for (int b = 0; b < byteSize(dtype); ++b) p[b] = static_cast<uint8_t>(bits >> (8 * b));
}

std::optional<uint64_t> evalElement(const ir::Op& op, DType operandType,
                                    const std::vector<uint64_t>& args) {
  if (op.kind == K::Convert) return evalConvert(operandType, op.result()->type.dtype, args[0]);
  if (operandType == DType::Pred) return evalPred(op, args);
  if (isInteger(operandType)) return evalInteger(op, operandType, args);
  return std::nullopt;
}

std::optional<std::vector<uint8_t>> foldConstantOp(
    const ir::Op& op, const std::vector<const std::vector<uint8_t>*>& operandBytes) {
  if (op.results.size() != 1 || !op.regions.empty()) return std::nullopt;
  const ir::Type& t = op.result()->type;
  const int64_t n = t.numElements();
  switch (op.kind) {
    case K::Iota:
      if (n > kMaxFoldedDataMovementElements) return std::nullopt;
      return foldIota(op);
    case K::Broadcast:
    case K::Reshape:
    case K::Slice:
    case K::Transpose:
      if (n > kMaxFoldedDataMovementElements) return std::nullopt;
      return foldDataMovement(op, *operandBytes[0]);
    case K::Select:
      return foldSelect(op, operandBytes);
    case K::BitcastConvert:
      return std::nullopt;
    default:
      break;
  }
  if (!ir::isElementwise(op.kind)) return std::nullopt;
  const DType operandType = op.operands[op.kind == K::Clamp ? 1 : 0]->type.dtype;
  std::vector<uint8_t> out(static_cast<size_t>(t.byteSize()));
  std::vector<uint64_t> args(op.operands.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < op.operands.size(); ++j) {
      const ir::Type& ot = op.operands[j]->type;
      const int64_t at = ot.numElements() == 1 ? 0 : i;  // clamp's bounds may be scalars
      args[j] = loadBits(ot.dtype, operandBytes[j]->data() + at * byteSize(ot.dtype));
    }
    std::optional<uint64_t> r = evalElement(op, operandType, args);
    if (!r) return std::nullopt;
    storeBits(t.dtype, *r, out.data() + i * byteSize(t.dtype));
  }
  return out;
}

bool foldedByXla(const ir::Value* v, FoldedByXla& memo) {
  if (v->def == nullptr) return false;
  if (v->def->kind == K::Constant || v->def->kind == K::Iota) return true;
  auto hit = memo.find(v);
  if (hit != memo.end()) return hit->second;
  const ir::Op& op = *v->def;
  bool folded = op.regions.empty() && op.kind != K::Threefry2x32;
  for (const ir::Value* operand : op.operands) folded = folded && foldedByXla(operand, memo);
  memo[v] = folded;
  return folded;
}

}  // namespace lf::passes
