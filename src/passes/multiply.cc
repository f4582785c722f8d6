#include "passes/multiply.h"

#include <bit>

#include "ir/clone.h"
#include "ir/scalar_bits.h"
#include "passes/fold.h"
#include "passes/rewrite_support.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// A multiply by a scalar constant: its other operand (not a constant) and the constant.
struct ScaledBy {
  ir::Value* a = nullptr;
  const ir::Op* k = nullptr;
};
ScaledBy scaledByConstant(const ir::Value* v) {
  if (!isKind(v, K::Multiply)) return {};
  for (int i = 0; i < 2; ++i) {
    ir::Value* a = v->def->operands[i];
    const ir::Op* k = scalarConstantBelow(v->def->operands[1 - i]);
    if (k != nullptr && scalarConstantBelow(a) == nullptr && !isKind(a, K::Constant)) {
      return {a, k};
    }
  }
  return {};
}

// K1 * K2 rounded once to the type (an f16 product is exact in double, then rounded to f16).
uint64_t productBits(DType t, uint64_t a, uint64_t b) {
  if (t == DType::F16) {
    return ir::doubleToF16Bits(ir::f16BitsToDouble(static_cast<uint16_t>(a)) *
                               ir::f16BitsToDouble(static_cast<uint16_t>(b)));
  }
  if (t == DType::F32) {
    return std::bit_cast<uint32_t>(std::bit_cast<float>(static_cast<uint32_t>(a)) *
                                   std::bit_cast<float>(static_cast<uint32_t>(b)));
  }
  return std::bit_cast<uint64_t>(std::bit_cast<double>(a) * std::bit_cast<double>(b));
}

class Reassociator {
 public:
  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      const DType t = op->result()->type.dtype;
      ir::Value* with = nullptr;
      if (op->kind == K::Multiply && (t == DType::F16 || t == DType::F32 || t == DType::F64)) {
        at_ = {&kept, &parent, op.get()};
        with = rewrite(op->operands[0], op->operands[1]);
      }
      if (with == nullptr) {
        kept.push_back(std::move(op));
        return;
      }
      replaced_[op->result()] = with;
      removed_.push_back(std::move(op));  // kept alive to the end of the pass, as in simplify
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  // The replacement of x * y, or nullptr when no rule applies.
  ir::Value* rewrite(ir::Value* x, ir::Value* y) {
    const ir::Type& type = x->type;
    for (int i = 0; i < 2; ++i) {
      ir::Value* inner = i == 0 ? x : y;
      ir::Value* other = i == 0 ? y : x;
      ScaledBy s = scaledByConstant(inner);
      if (s.a == nullptr) continue;
      if (const ir::Op* k2 = scalarConstantBelow(other)) {  // (A * K1) * K2 -> A * (K1 * K2)
        return make(K::Multiply, {s.a, constantLike(product(s.k, k2), type)}, type);
      }
      if (isKind(other, K::Broadcast) && scalarConstantBelow(other->def->operands[0]) == nullptr) {
        // (A * K1) * broadcast(B) -> A * broadcast(B * K1)
        ir::Value* b = other->def->operands[0];
        ir::Value* scaled = multiply(b, constantLike(constantBits(s.k), b->type));
        return make(K::Multiply, {s.a, make(K::Broadcast, {scaled}, type, other->def->attrs)},
                    type);
      }
    }
    return nullptr;
  }

  // A new x * y, rewritten in turn when a rule applies (XLA revisits the ops it makes).
  ir::Value* multiply(ir::Value* x, ir::Value* y) {
    if (ir::Value* with = rewrite(x, y)) return with;
    return make(K::Multiply, {x, y}, x->type);
  }

  static uint64_t product(const ir::Op* k1, const ir::Op* k2) {
    return productBits(k1->result()->type.dtype, constantBits(k1), constantBits(k2));
  }

  ir::Value* constantLike(uint64_t bits, const ir::Type& type) {
    return scalarLike([this](K kind, std::vector<ir::Value*> operands, ir::Type t,
                             ir::Attrs attrs) { return make(kind, std::move(operands), t, attrs); },
                      bits, type);
  }

  ir::Value* make(K kind, std::vector<ir::Value*> operands, ir::Type type, ir::Attrs attrs = {}) {
    return at_.insert(kind, std::move(operands), std::move(type), std::move(attrs));
  }

  InsertionPoint at_;
  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void reassociateConstantMultiplies(ir::Program& program) { Reassociator().region(program.body); }

}  // namespace lf::passes
