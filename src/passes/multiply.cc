#include "passes/multiply.h"

#include <bit>

#include "ir/clone.h"
#include "ir/scalar_bits.h"
#include "passes/fold.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

bool isKind(const ir::Value* v, K kind) { return v->def != nullptr && v->def->kind == kind; }

// The one-element constant under `v`'s broadcasts and reshapes (a scalar constant JAX broadcast
// to a shape), or nullptr.
const ir::Op* scalarConstantBelow(const ir::Value* v) {
  while (isKind(v, K::Broadcast) || isKind(v, K::Reshape)) v = v->def->operands[0];
  if (!isKind(v, K::Constant) || v->type.numElements() != 1) return nullptr;
  return v->def;
}

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
  struct InsertionPoint {
    std::vector<std::unique_ptr<ir::Op>>* kept = nullptr;
    ir::Region* parent = nullptr;
    const ir::Op* multiply = nullptr;
  };

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

  static uint64_t constantBits(const ir::Op* k) {
    return loadBits(k->result()->type.dtype, k->attr<ir::ConstantAttrs>().bytes.data());
  }
  static uint64_t product(const ir::Op* k1, const ir::Op* k2) {
    return productBits(k1->result()->type.dtype, constantBits(k1), constantBits(k2));
  }

  // A scalar constant of `type`'s element type with `bits`, broadcast to `type`.
  ir::Value* constantLike(uint64_t bits, const ir::Type& type) {
    std::vector<uint8_t> bytes(static_cast<size_t>(byteSize(type.dtype)));
    storeBits(type.dtype, bits, bytes.data());
    ir::Value* k = make(K::Constant, {}, ir::Type{type.dtype, {}}, ir::ConstantAttrs{bytes});
    if (type.dims.empty()) return k;
    return make(K::Broadcast, {k}, type, ir::BroadcastAttrs{});
  }

  ir::Value* make(K kind, std::vector<ir::Value*> operands, ir::Type type, ir::Attrs attrs = {}) {
    auto op = ir::makeOp(kind, std::move(operands), {std::move(type)}, std::move(attrs),
                         at_.multiply->loc, at_.multiply->name);
    op->parent = at_.parent;
    at_.kept->push_back(std::move(op));
    return at_.kept->back()->result();
  }

  InsertionPoint at_;
  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void reassociateConstantMultiplies(ir::Program& program) { Reassociator().region(program.body); }

}  // namespace lf::passes
