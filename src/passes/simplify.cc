#include "passes/simplify.h"

#include <cstring>

#include "ir/clone.h"
#include "passes/fold.h"
#include "support/threefry.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

const std::vector<uint8_t>* constantBytes(const ir::Value* v) {
  if (v->def == nullptr || v->def->kind != K::Constant) return nullptr;
  return &v->def->attr<ir::ConstantAttrs>().bytes;
}

// The raw bits of every element when `v` holds one value everywhere: a constant whose elements
// are all equal, possibly broadcast or reshaped (JAX writes `x + 0` as add(x, broadcast(0))).
std::optional<uint64_t> uniformBits(const ir::Value* v) {
  while (v->def != nullptr && (v->def->kind == K::Broadcast || v->def->kind == K::Reshape)) {
    v = v->def->operands[0];
  }
  const std::vector<uint8_t>* bytes = constantBytes(v);
  const DType t = v->type.dtype;
  const size_t width = static_cast<size_t>(byteSize(t));
  if (bytes == nullptr || bytes->size() < width) return std::nullopt;
  const uint64_t first = loadBits(t, bytes->data());
  for (size_t at = width; at + width <= bytes->size(); at += width) {
    if (loadBits(t, bytes->data() + at) != first) return std::nullopt;
  }
  return first;
}

bool isUniform(const ir::Value* v, uint64_t bits) {
  std::optional<uint64_t> u = uniformBits(v);
  return u && *u == bits;
}

uint64_t oneBits(DType t) {
  switch (t) {
    case DType::F16:
      return 0x3C00;
    case DType::BF16:
      return 0x3F80;
    case DType::F32:
      return 0x3F800000;
    case DType::F64:
      return 0x3FF0000000000000;
    default:
      return 1;
  }
}

uint64_t allOnesBits(DType t) {
  if (t == DType::Pred) return 1;
  return bitWidth(t) >= 64 ? ~uint64_t{0} : (uint64_t{1} << bitWidth(t)) - 1;
}

uint64_t negativeZeroBits(DType t) { return uint64_t{1} << (bitWidth(t) - 1); }

template <class V>
bool isIota(const V& v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// x op c -> x when c is the uniform constant `bits`; with `commutative`, c op x -> x too.
ir::Value* dropNeutral(const ir::Op& op, uint64_t bits, bool commutative) {
  if (isUniform(op.operands[1], bits)) return op.operands[0];
  if (commutative && isUniform(op.operands[0], bits)) return op.operands[1];
  return nullptr;
}

// The float identities are exact in IEEE arithmetic (NaN payloads included). Under XLA:CPU's
// denormal flushing, x*1.0 of a denormal x would give 0 at run time; XLA's own algebraic
// simplifier makes the same rewrites, so keeping x is what JAX computes too.
ir::Value* neutralOperand(const ir::Op& op) {
  const DType t = op.result()->type.dtype;
  const bool integral = isInteger(t) || t == DType::Pred;
  const bool floating = isFloat(t);
  switch (op.kind) {
    case K::Add:
      if (integral) return dropNeutral(op, 0, true);
      if (floating) return dropNeutral(op, negativeZeroBits(t), true);
      return nullptr;
    case K::Subtract:
      return integral || floating ? dropNeutral(op, 0, false) : nullptr;
    case K::Multiply:
      return integral || floating ? dropNeutral(op, oneBits(t), true) : nullptr;
    case K::Divide:
      return integral || floating ? dropNeutral(op, oneBits(t), false) : nullptr;
    case K::Or:
    case K::Xor:
      return dropNeutral(op, 0, true);
    case K::And:
      return dropNeutral(op, allOnesBits(t), true);
    case K::ShiftLeft:
    case K::ShiftRightLogical:
    case K::ShiftRightArithmetic:
      return dropNeutral(op, 0, false);
    default:
      return nullptr;
  }
}

ir::Value* unchangedOperand(ir::Op& op) {
  const ir::Type& t = op.result()->type;
  ir::Value* x = op.operands.empty() ? nullptr : op.operands[0];
  switch (op.kind) {
    case K::Select: {
      if (op.operands[1] == op.operands[2]) return op.operands[1];
      std::optional<uint64_t> p = uniformBits(op.operands[0]);
      if (p) return *p ? op.operands[1] : op.operands[2];
      return nullptr;
    }
    case K::Convert:
    case K::BitcastConvert:
      return x->type == t ? x : nullptr;
    case K::Reshape:
      // reshape(reshape(y)) is reshape(y): row-major data never moves.
      if (x->def != nullptr && x->def->kind == K::Reshape) x = op.operands[0] = x->def->operands[0];
      return x->type == t ? x : nullptr;
    case K::Transpose:
      return isIota(op.attr<ir::TransposeAttrs>().permutation) ? x : nullptr;
    case K::Broadcast:
      return x->type == t && isIota(op.attr<ir::BroadcastAttrs>().dimensions) ? x : nullptr;
    case K::Slice: {
      const auto& a = op.attr<ir::SliceAttrs>();
      bool whole = x->type == t;
      for (size_t d = 0; whole && d < a.starts.size(); ++d) {
        whole = a.starts[d] == 0 && a.strides[d] == 1;
      }
      return whole ? x : nullptr;
    }
    default:
      return neutralOperand(op);
  }
}

std::unique_ptr<ir::Op> foldToConstant(const ir::Op& op) {
  if (op.kind == K::Constant || op.results.size() != 1) return nullptr;
  std::vector<const std::vector<uint8_t>*> operands;
  for (const ir::Value* v : op.operands) {
    operands.push_back(constantBytes(v));
    if (operands.back() == nullptr) return nullptr;
  }
  std::optional<std::vector<uint8_t>> bytes = foldConstantOp(op, operands);
  if (!bytes) return nullptr;
  return ir::makeOp(K::Constant, {}, {op.result()->type}, ir::ConstantAttrs{std::move(*bytes)},
                    op.loc, op.name);
}

// A threefry2x32 of constants (jax.random.key(0) made inside the function, then split), as two
// constants, as XLA folds the integer ops jax writes the hash with; up to the size that data
// movement folds to (a larger table would cost more to read than the hash to compute).
std::vector<std::unique_ptr<ir::Op>> foldThreefry(const ir::Op& op) {
  if (op.kind != K::Threefry2x32 ||
      op.results[0]->type.numElements() > kMaxFoldedDataMovementElements)
    return {};
  std::vector<const std::vector<uint8_t>*> in;
  for (const ir::Value* v : op.operands) {
    in.push_back(constantBytes(v));
    if (in.back() == nullptr) return {};
  }
  const size_t n = static_cast<size_t>(op.results[0]->type.numElements());
  std::vector<uint8_t> out[2] = {std::vector<uint8_t>(n * 4), std::vector<uint8_t>(n * 4)};
  for (size_t i = 0; i < n; ++i) {
    uint32_t x[4];
    for (int k = 0; k < 4; ++k) std::memcpy(&x[k], in[k]->data() + i * 4, 4);
    const std::array<uint32_t, 2> h = threefry2x32(x[0], x[1], x[2], x[3]);
    std::memcpy(out[0].data() + i * 4, &h[0], 4);
    std::memcpy(out[1].data() + i * 4, &h[1], 4);
  }
  std::vector<std::unique_ptr<ir::Op>> folded;
  for (int k = 0; k < 2; ++k) {
    folded.push_back(ir::makeOp(K::Constant, {}, {op.results[k]->type},
                                ir::ConstantAttrs{std::move(out[k])}, op.loc, op.name));
  }
  return folded;
}

class Simplifier {
 public:
  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      std::vector<std::unique_ptr<ir::Op>> hashed = foldThreefry(*op);
      if (!hashed.empty()) {
        for (size_t k = 0; k < hashed.size(); ++k) {
          hashed[k]->parent = &parent;
          replaced_[op->results[k].get()] = hashed[k]->result();
          kept.push_back(std::move(hashed[k]));
        }
        removed_.push_back(std::move(op));
        return;
      }
      std::unique_ptr<ir::Op> folded = foldToConstant(*op);
      ir::Value* with = folded ? folded->result() : nullptr;
      if (with == nullptr && op->results.size() == 1) with = unchangedOperand(*op);
      if (with == nullptr || with->type != op->result()->type) {
        kept.push_back(std::move(op));
        return;
      }
      if (folded) {
        folded->parent = &parent;
        kept.push_back(std::move(folded));
      }
      replaced_[op->result()] = with;
      // Kept alive to the end of the pass: a freed Value's address could be reused by a new one
      // and then match a stale key of `replaced_`.
      removed_.push_back(std::move(op));
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void simplify(ir::Program& program) { Simplifier().region(program.body); }

}  // namespace lf::passes
