#include "passes/divide.h"

#include <bit>
#include <unordered_set>

#include "ir/clone.h"
#include "ir/scalar_bits.h"
#include "passes/fold.h"
#include "passes/rewrite_support.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// A reshape, or a broadcast that only reorders nothing and adds nothing: the same elements in
// the same order.
bool changesOnlyShape(const ir::Value* v) {
  if (isKind(v, K::Reshape)) return true;
  if (!isKind(v, K::Broadcast) ||
      v->def->operands[0]->type.numElements() != v->type.numElements()) {
    return false;
  }
  const auto& dims = v->def->attr<ir::BroadcastAttrs>().dimensions;
  for (size_t i = 1; i < dims.size(); ++i) {
    if (dims[i] <= dims[i - 1]) return false;
  }
  return true;
}

// 1 / x for one element of a float type, rounded once: the quotient is rounded to double, then
// to the type, and a double has more than twice the digits of f32, so the second rounding never
// moves the result (XLA computes 1 / x in the type itself, or for f16/bf16 in f32; same result).
uint64_t reciprocalBits(DType t, uint64_t bits) {
  switch (t) {
    case DType::F16:
      return ir::doubleToF16Bits(1.0 / ir::f16BitsToDouble(static_cast<uint16_t>(bits)));
    case DType::BF16:
      return ir::doubleToBF16Bits(1.0 / ir::bf16BitsToDouble(static_cast<uint16_t>(bits)));
    case DType::F32:
      return std::bit_cast<uint32_t>(1.0f / std::bit_cast<float>(static_cast<uint32_t>(bits)));
    default:
      return std::bit_cast<uint64_t>(1.0 / std::bit_cast<double>(bits));
  }
}

uint64_t oneBits(DType t) {
  switch (t) {
    case DType::F16:
      return ir::doubleToF16Bits(1.0);
    case DType::BF16:
      return ir::doubleToBF16Bits(1.0);
    case DType::F32:
      return std::bit_cast<uint32_t>(1.0f);
    default:
      return std::bit_cast<uint64_t>(1.0);
  }
}

class DivideRewriter {
 public:
  explicit DivideRewriter(ir::Program& program) { ir::countUses(program.body, uses_); }

  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      ir::Value* with = nullptr;
      // A quotient of constants is folded by XLA as it is, before any rewrite.
      if (op->kind == K::Divide && isFloat(op->result()->type.dtype) &&
          !foldedByXla(op->result(), folded_)) {
        at_ = {&kept, &parent, op.get()};
        with = rewrite(op->operands[0], op->operands[1], /*counted=*/true);
      }
      if (with == nullptr) {
        kept.push_back(std::move(op));
        return;
      }
      uses_[with] += uses_[op->result()];
      replaced_[op->result()] = with;
      // Kept alive to the end of the pass, as in simplify: a freed Value's address could be
      // reused by a new one and match a stale key of `replaced_`.
      removed_.push_back(std::move(op));
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  // Whether `v` has one use, its user's: one counted use when the user is counted, none when the
  // user is a divide about to be made or an op released as unused (which the new op will use
  // again, counting it again).
  bool onlyUse(const ir::Value* v, bool userCounted) { return uses_[v] == (userCounted ? 1 : 0); }
  bool isCounted(const ir::Op* op) const { return unused_.count(op) == 0; }

  // The replacement of divide(a, b), or nullptr when no rule applies. With `counted`, the divide
  // is the op being visited: its operands' uses include it, and a rewrite releases them first
  // (XLA removes the replaced divide, and the ops it alone used, before it looks again).
  ir::Value* rewrite(ir::Value* a, ir::Value* b, bool counted) {
    const ir::Type& type = b->type;
    ir::Op* bd = b->def;
    auto released = [&] {
      if (counted) {
        release(a);
        release(b);
      }
    };
    if (isKind(b, K::Power)) {  // A / pow(B, C) -> A * pow(B, -C)
      ir::Value *base = bd->operands[0], *exponent = bd->operands[1];
      released();
      ir::Value* negated = make(K::Negate, {exponent}, exponent->type);
      return make(K::Multiply, {a, make(K::Power, {base, negated}, type)}, type);
    }
    // A / sqrt(B) -> A * rsqrt(B) and A / rsqrt(B) -> A * sqrt(B), through the reshapes (and
    // broadcasts that change nothing) of JAX's broadcast_in_dim, which XLA's simplifier takes
    // apart before it reaches the divide (each of them used once, too).
    std::vector<const ir::Op*> reshapes;
    const ir::Value* root = b;
    bool userCounted = counted;
    while (changesOnlyShape(root) && onlyUse(root, userCounted)) {
      reshapes.push_back(root->def);
      userCounted = isCounted(root->def);
      root = root->def->operands[0];
    }
    if ((isKind(root, K::Sqrt) || isKind(root, K::Rsqrt)) && onlyUse(root, userCounted)) {
      const K inverse = root->def->kind == K::Sqrt ? K::Rsqrt : K::Sqrt;
      ir::Value* x = root->def->operands[0];
      released();
      ir::Value* inverted = make(inverse, {x}, x->type);
      for (auto r = reshapes.rbegin(); r != reshapes.rend(); ++r) {
        inverted = make(K::Reshape, {inverted}, (*r)->result()->type);
      }
      return make(K::Multiply, {a, inverted}, type);
    }
    if (!isKind(a, K::Constant) && constantBelow(b) != nullptr) {  // A / K -> A * (1 / K)
      released();
      return make(K::Multiply, {a, reciprocalOfConstant(b)}, type);
    }
    if (isKind(b, K::Broadcast) && !changesOnlyShape(b) &&
        onlyUse(bd->operands[0], isCounted(bd))) {
      // A / broadcast(B) -> A * broadcast(1 / B). B's only use is the broadcast, which stays
      // alive when something else uses it too.
      ir::Value* x = bd->operands[0];
      const ir::Attrs attrs = bd->attrs;
      released();
      ir::Value* one = onesLike(x->type);
      ir::Value* reciprocal = divide(one, x);
      return make(K::Multiply, {a, make(K::Broadcast, {reciprocal}, type, attrs)}, type);
    }
    const bool aDivides = isKind(a, K::Divide), bDivides = isKind(b, K::Divide);
    if (aDivides && bDivides) {  // (A / B) / (C / D) -> (A * D) / (B * C)
      ir::Value *x = a->def->operands[0], *y = a->def->operands[1];
      ir::Value *z = b->def->operands[0], *w = b->def->operands[1];
      released();
      ir::Value* xw = make(K::Multiply, {x, w}, type);  // in XLA's order (and a fixed one)
      return divide(xw, make(K::Multiply, {y, z}, type));
    }
    if (aDivides) {  // (A / B) / C -> A / (B * C)
      ir::Value *x = a->def->operands[0], *y = a->def->operands[1];
      released();
      return divide(x, make(K::Multiply, {y, b}, type));
    }
    if (bDivides) {  // A / (B / C) -> (A * C) / B
      ir::Value *y = bd->operands[0], *z = bd->operands[1];
      released();
      return divide(make(K::Multiply, {a, z}, type), y);
    }
    return nullptr;
  }

  // A new divide(a, b), rewritten in turn when a rule applies to it (XLA's simplifier revisits
  // the ops it made until nothing changes) and XLA's constant folding does not compute it first.
  ir::Value* divide(ir::Value* a, ir::Value* b) {
    const bool folded = foldedByXla(a, folded_) && foldedByXla(b, folded_);
    if (ir::Value* with = folded ? nullptr : rewrite(a, b, /*counted=*/false)) return with;
    return make(K::Divide, {a, b}, b->type);
  }

  // `v` (a constant under broadcasts and reshapes) with 1 / x in place of each constant element.
  ir::Value* reciprocalOfConstant(const ir::Value* v) {
    if (isKind(v, K::Constant)) {
      std::vector<uint8_t> bytes = v->def->attr<ir::ConstantAttrs>().bytes;
      const DType t = v->type.dtype;
      const size_t width = static_cast<size_t>(byteSize(t));
      for (size_t at = 0; at + width <= bytes.size(); at += width) {
        storeBits(t, reciprocalBits(t, loadBits(t, bytes.data() + at)), bytes.data() + at);
      }
      return make(K::Constant, {}, v->type, ir::ConstantAttrs{std::move(bytes)});
    }
    return make(v->def->kind, {reciprocalOfConstant(v->def->operands[0])}, v->type, v->def->attrs);
  }

  // 1 of `type`: a scalar constant, broadcast when `type` is an array (XLA's MakeScalarLike).
  ir::Value* onesLike(const ir::Type& type) {
    return scalarLike([this](K kind, std::vector<ir::Value*> operands, ir::Type t,
                             ir::Attrs attrs) { return make(kind, std::move(operands), t, attrs); },
                      oneBits(type.dtype), type);
  }

  ir::Value* make(K kind, std::vector<ir::Value*> operands, ir::Type type, ir::Attrs attrs = {}) {
    for (ir::Value* v : operands) acquire(v);
    return at_.insert(kind, std::move(operands), std::move(type), std::move(attrs));
  }

  // Use counts follow the rewrites: an op whose last use goes away stops counting as a use of its
  // operands (XLA removes it), and counts again if a new op uses it. Ops with regions or several
  // results are never taken as unused.
  static bool removable(const ir::Op* def) {
    return def != nullptr && def->regions.empty() && def->results.size() == 1;
  }
  void release(ir::Value* v) {
    if (--uses_[v] != 0 || !removable(v->def)) return;
    unused_.insert(v->def);
    for (ir::Value* operand : v->def->operands) release(operand);
  }
  void acquire(ir::Value* v) {
    ++uses_[v];
    if (v->def == nullptr || unused_.erase(v->def) == 0) return;
    for (ir::Value* operand : v->def->operands) acquire(operand);
  }

  ir::UseCounts uses_;
  FoldedByXla folded_;
  std::unordered_set<const ir::Op*> unused_;
  InsertionPoint at_;
  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void rewriteDivides(ir::Program& program) { DivideRewriter(program).region(program.body); }

}  // namespace lf::passes
