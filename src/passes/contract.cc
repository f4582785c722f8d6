#include "passes/contract.h"

#include <unordered_map>

#include "ir/clone.h"
#include "passes/fold.h"
#include "passes/rewrite_support.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// True when every element of `v` is one value: a broadcast or reshape of a single element, or a
// constant whose elements are all equal. Such a value is loop-invariant in XLA's element loop.
bool sameForEveryElement(const ir::Value* v) {
  while (v->def != nullptr && (v->def->kind == K::Broadcast || v->def->kind == K::Reshape)) {
    v = v->def->operands[0];
  }
  if (v->type.numElements() <= 1) return true;
  return v->def != nullptr && v->def->kind == K::Constant && splatBits(*v->def).has_value();
}

// An operand of the add or subtract being contracted, with its negations folded away.
struct Term {
  ir::Value* value;
  // False when a negation with other uses was folded away: LLVM keeps that negation alive, so
  // the multiply under it has a second use and does not fuse.
  bool exclusive = true;
};

class Contractor {
 public:
  explicit Contractor(ir::Program& program) { ir::countUses(program.body, uses_); }

  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      ir::Value* fused = contract(*op, kept, parent);
      if (fused == nullptr) {
        kept.push_back(std::move(op));
        return;
      }
      replaced_[op->result()] = fused;
      // Kept alive to the end of the pass, as in simplify: a freed Value's address could be
      // reused by a new one and match a stale key of `replaced_`.
      removed_.push_back(std::move(op));
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  bool onlyUseIn(const ir::Value* v, const ir::Region& region) {
    return v->def != nullptr && v->def->parent == &region && uses_[v] == 1;
  }

  // The multiply `t` stands for when LLVM would fuse it into its user, else nullptr.
  const ir::Op* product(const Term& t, const ir::Region& region, int64_t elements) {
    if (!t.exclusive || !onlyUseIn(t.value, region) || t.value->def->kind != K::Multiply) {
      return nullptr;
    }
    const ir::Op* mul = t.value->def;
    if (foldedByXla(t.value, folded_)) return nullptr;
    if (scaledSelectEnd(*mul)) return nullptr;
    if (elements > 1 && sameForEveryElement(mul->operands[0]) &&
        sameForEveryElement(mul->operands[1])) {
      return nullptr;
    }
    return mul;
  }

  // A constant, or a value XLA's constant folding computes (a constant once LLVM sees it).
  bool isConstant(const ir::Value* v) {
    return constantBelow(v) != nullptr || foldedByXla(v, folded_);
  }

  // True when LLVM sees `v` (f64) as a select with a constant arm: XLA:CPU's f64 exp ends in one
  // (its overflow and underflow results), and LLVM's InstCombine moves a negation, or an add,
  // subtract, multiply or divide with a constant, into the arms of a select that has no other use
  // (FoldOpIntoSelect), so what is built on the exp that way ends in a select too.
  bool endsInSelect(const ir::Value* v) {
    if (v->def == nullptr || v->type.dtype != DType::F64) return false;
    const ir::Op& op = *v->def;
    if (op.kind == K::Exp) return true;
    auto oneUse = [&](const ir::Value* x) { return uses_[x] == 1 && endsInSelect(x); };
    if (op.kind == K::Negate) return oneUse(op.operands[0]);
    if (op.kind != K::Add && op.kind != K::Subtract && op.kind != K::Multiply &&
        op.kind != K::Divide) {
      return false;
    }
    return (isConstant(op.operands[1]) && oneUse(op.operands[0])) ||
           (isConstant(op.operands[0]) && oneUse(op.operands[1]));
  }

  // A multiply that LLVM turns into a select (endsInSelect), which the add then reads instead of
  // a multiply, and does not fuse. Measured: jax.jit(0.01 * exp(x) + y) and 0.01 / (1 + exp(-x))
  // + y in f64 round twice at every size from 1 to 4,096 elements, exp(x) * y + y and f32's
  // exp (an fmul last) fuse.
  bool scaledSelectEnd(const ir::Op& mul) { return endsInSelect(mul.result()); }

  // An f32 exp that is `t`'s value and has no other use (XLA:CPU's ends in an fmul).
  bool endsInMultiply(const Term& t) {
    const ir::Value* v = t.value;
    return t.exclusive && v->type.dtype == DType::F32 && v->def != nullptr &&
           v->def->kind == K::Exp && uses_[v] == 1;
  }

  // `v`'s negation, as a new op in `kept`.
  static ir::Value* negated(ir::Value* v, std::vector<std::unique_ptr<ir::Op>>& kept,
                            ir::Region& parent, const ir::Op& at) {
    auto neg = ir::makeOp(K::Negate, {v}, {v->type}, ir::NoAttrs{}, at.loc, at.name + ".neg");
    neg->parent = &parent;
    kept.push_back(std::move(neg));
    return kept.back()->result();
  }

  // The fma replacing `op` (with the negations it needs appended to `kept` before it), or nullptr.
  ir::Value* contract(const ir::Op& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                      ir::Region& parent) {
    if (op.kind != K::Add && op.kind != K::Subtract) return nullptr;
    const ir::Type& type = op.result()->type;
    // f16 too: where the CPU has f16 arithmetic XLA's fma is one f16 rounding, elsewhere lf_fma
    // rounds twice, as the unfused ops do (lf_common.h). bf16 has no arithmetic anywhere.
    if (type.dtype != DType::F16 && type.dtype != DType::F32 && type.dtype != DType::F64) {
      return nullptr;
    }

    // Fold negations first, as LLVM does before it looks for multiplies; each fold is exact.
    K kind = op.kind;
    Term lhs{op.operands[0]}, rhs{op.operands[1]};
    auto negationOf = [&](Term& t) -> bool {
      if (t.value->def == nullptr || t.value->def->kind != K::Negate) return false;
      t.exclusive = t.exclusive && onlyUseIn(t.value, parent);
      t.value = t.value->def->operands[0];
      return true;
    };
    for (bool changed = true; changed;) {
      changed = false;
      Term r = rhs, l = lhs;
      if (kind == K::Add && negationOf(r)) {  // a + (-b) = a - b
        rhs = r, kind = K::Subtract, changed = true;
      } else if (kind == K::Add && negationOf(l)) {  // (-a) + b = b - a
        lhs = rhs, rhs = l, kind = K::Subtract, changed = true;
      } else if (kind == K::Subtract && negationOf(r)) {  // a - (-b) = a + b
        rhs = r, kind = K::Add, changed = true;
      }
    }

    const int64_t elements = type.numElements();
    auto fma = [&](ir::Value* x, ir::Value* y, ir::Value* z) {
      auto f = ir::makeOp(K::Fma, {x, y, z}, {type}, ir::NoAttrs{}, op.loc, op.name);
      f->parent = &parent;
      kept.push_back(std::move(f));
      return kept.back()->result();
    };
    if (const ir::Op* m = product(lhs, parent, elements)) {  // a*b +- c
      ir::Value* addend = kind == K::Add ? rhs.value : negated(rhs.value, kept, parent, op);
      return fma(m->operands[0], m->operands[1], addend);
    }
    // XLA's f32 exp ends in a multiply by 2^k, which LLVM fuses into the add when the exp is its
    // left operand (exactly: a power of two), leaving the right one's product unfused. Measured:
    // exp(u) + 0.3*u and exp(u) - v*u round twice in jax.jit, 0.3*u + exp(u) once.
    if (endsInMultiply(lhs)) return nullptr;
    if (const ir::Op* m = product(rhs, parent, elements)) {  // c +- a*b
      ir::Value* x = kind == K::Add ? m->operands[0] : negated(m->operands[0], kept, parent, op);
      return fma(x, m->operands[1], lhs.value);
    }
    Term inner = lhs;
    if (kind == K::Subtract && negationOf(inner)) {  // (-(a*b)) - c
      if (const ir::Op* m = product(inner, parent, elements)) {
        ir::Value* x = negated(m->operands[0], kept, parent, op);
        return fma(x, m->operands[1], negated(rhs.value, kept, parent, op));
      }
    }
    return nullptr;
  }

  ir::UseCounts uses_;
  FoldedByXla folded_;
  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void contractMultiplyAdd(ir::Program& program) { Contractor(program).region(program.body); }

}  // namespace lf::passes
