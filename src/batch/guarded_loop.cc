// jax.vmap of a while_loop whose predicate differs between chains (NUTS's trajectory, a Newton or
// an adaptive ODE loop that each chain ends on its own). JAX writes it as
//
//   while (reduce_or(P(state)))              -- the loop runs while any chain's predicate holds
//     state_k = select(P(state), body_k(state), state_k)   -- ... and freezes the others
//
// so a chain's state stops changing once its own predicate fails, and since the predicate is a
// function of its own state, it stays failed. Its final state is then the same whichever chains
// share the loop with it: a group of chains may run the loop until all of *its* chains are done.
// This file recognises the shape; analysis.cc lets the reduce over the batch dimension through
// when the body freezes every chain the way JAX's batching rule does. The condition may also be
// and(reduce_or(P), Q) with Q shared, a bound on the iteration count (equinox's while_loop, so
// every vmapped diffrax solve), when nothing reads the final value of the shared state that
// changes.
#include <set>

#include "batch/batch.h"

namespace lf::batch {
namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

bool isConstantFalse(const Value* v) {
  if (v->def == nullptr || v->def->kind != OpKind::Constant || v->type.dtype != DType::Pred ||
      v->type.rank() != 0) {
    return false;
  }
  const auto& bytes = v->def->attr<ir::ConstantAttrs>().bytes;
  return bytes.size() == 1 && bytes[0] == 0;
}

// The reducer yields or(arg0, arg1).
bool isOrReducer(const Region& r) {
  if (r.args.size() != 2 || r.yields.size() != 1 || r.ops.size() != 1) return false;
  const Op& op = *r.ops[0];
  return op.kind == OpKind::Or && op.result() == r.yields[0] &&
         ((op.operands[0] == r.args[0].get() && op.operands[1] == r.args[1].get()) ||
          (op.operands[0] == r.args[1].get() && op.operands[1] == r.args[0].get()));
}

// Structural equality of a value of the loop's condition and one of its body: the same ops with
// the same attributes on equal operands, the condition's arguments matching the body's in order,
// values from outside the loop matching themselves.
class SameComputation {
 public:
  explicit SameComputation(const Op& loop) : loop_(loop) {
    const Region& cond = *loop.regions[0];
    const Region& body = *loop.regions[1];
    for (size_t k = 0; k < cond.args.size(); ++k) map_[cond.args[k].get()] = body.args[k].get();
  }

  bool operator()(const Value* a, const Value* b) {
    if (auto it = map_.find(a); it != map_.end()) return it->second == b;
    if (!ir::definedInside(a, loop_)) return a == b;
    if (a->def == nullptr || b->def == nullptr || a->index != b->index || !(a->type == b->type))
      return false;
    if (!sameOp(*a->def, *b->def)) return false;
    for (size_t i = 0; i < a->def->results.size(); ++i)
      map_[a->def->result(static_cast<int>(i))] = b->def->result(static_cast<int>(i));
    return true;
  }

 private:
  bool sameOp(const Op& x, const Op& y) {
    if (x.kind != y.kind || !(x.attrs == y.attrs) || x.operands.size() != y.operands.size() ||
        x.results.size() != y.results.size() || x.regions.size() != y.regions.size()) {
      return false;
    }
    for (size_t i = 0; i < x.operands.size(); ++i) {
      if (!(*this)(x.operands[i], y.operands[i])) return false;
    }
    for (size_t i = 0; i < x.regions.size(); ++i) {
      if (!sameRegion(*x.regions[i], *y.regions[i])) return false;
    }
    return true;
  }

  bool sameRegion(const Region& x, const Region& y) {
    if (x.args.size() != y.args.size() || x.ops.size() != y.ops.size() ||
        x.yields.size() != y.yields.size()) {
      return false;
    }
    for (size_t k = 0; k < x.args.size(); ++k) {
      if (!(x.args[k]->type == y.args[k]->type)) return false;
      map_[x.args[k].get()] = y.args[k].get();
    }
    for (size_t i = 0; i < x.yields.size(); ++i) {
      if (!(*this)(x.yields[i], y.yields[i])) return false;
    }
    return true;
  }

  const Op& loop_;
  std::unordered_map<const Value*, const Value*> map_;
};

bool reads(const Region& r, const Value* v) {
  for (const Value* y : r.yields) {
    if (y == v) return true;
  }
  for (const auto& op : r.ops) {
    for (const Value* x : op->operands) {
      if (x == v) return true;
    }
    for (const auto& sub : op->regions) {
      if (reads(*sub, v)) return true;
    }
  }
  return false;
}

// Whether anything reads result k of `loop` (it can only be read in the loop's region, at any
// depth below it).
bool resultIsRead(const Op& loop, int k) { return reads(*loop.parent, loop.result(k)); }

}  // namespace

const Op* batchedPredicateReduce(const Op& loop) {
  if (loop.kind != OpKind::While) return nullptr;
  const Region& cond = *loop.regions[0];
  const Value* pred = cond.yields[0];
  // and(any, Q) with Q shared (the analysis checks it is): a bound on the loop's own iteration
  // count, as equinox's while_loop under diffrax adds (`step < max_steps`). Q at iteration i is
  // the same in every group, since shared state evolves alike wherever the loop runs.
  const Op* bound = nullptr;
  if (pred->def != nullptr && pred->def->kind == OpKind::And && pred->def->parent == &cond) {
    bound = pred->def;
    for (const Value* side : bound->operands) {
      if (side->def != nullptr && side->def->kind == OpKind::Reduce) pred = side;
    }
  }
  const Op* reduce = pred->def;
  if (reduce == nullptr || reduce->kind != OpKind::Reduce || reduce->parent != &cond ||
      reduce->operands.size() != 2 || reduce->operands[0]->type.rank() != 1 ||
      reduce->attr<ir::ReduceAttrs>().dimensions != std::vector<int64_t>{0} ||
      !isConstantFalse(reduce->operands[1]) || !isOrReducer(*reduce->regions[0])) {
    return nullptr;
  }
  // The any() is the condition's answer (or one side of its `and`) and nothing else: no other op
  // reads it.
  for (const auto& op : cond.ops) {
    if (op.get() == bound) continue;
    for (const Value* v : op->operands) {
      if (v == pred) return nullptr;
    }
  }
  return reduce;
}

bool bodyFreezesFinishedChains(const Op& loop, const Op& reduce,
                               const std::vector<int>& stateDims) {
  const Region& body = *loop.regions[1];
  const Value* pred = reduce.operands[0];
  SameComputation same(loop);
  for (size_t k = 0; k < body.yields.size(); ++k) {
    const Value* arg = body.args[k].get();
    const Value* next = body.yields[k];
    if (next == arg) continue;  // unchanged
    // Shared state that changes (a step counter) holds, after the loop, a value that depends on
    // the group's trip count; inside the loop, at iteration i, it is the same in every group. So
    // it is allowed when nothing reads the loop's final value of it.
    if (stateDims[k] < 0) {
      if (resultIsRead(loop, static_cast<int>(k))) return false;
      continue;
    }
    const Op* select = next->def;
    if (select == nullptr || select->kind != OpKind::Select || select->parent != &body)
      return false;
    // The selector: the chain's predicate, broadcast along the state's batch dimension for state
    // of a higher rank, and maybe negated (then the state is the true operand).
    const Value* selector = select->operands[0];
    if (selector->def != nullptr && selector->def->kind == OpKind::Broadcast &&
        selector->def->attr<ir::BroadcastAttrs>().dimensions ==
            std::vector<int64_t>{stateDims[k]}) {
      selector = selector->def->operands[0];
    } else if (next->type.rank() != 1) {
      return false;
    }
    int kept = 2;  // select(P, body_k, state_k)
    if (selector->def != nullptr && selector->def->kind == OpKind::Not) {
      selector = selector->def->operands[0];
      kept = 1;  // select(!P, state_k, body_k)
    }
    if (select->operands[kept] != arg || !same(pred, selector)) return false;
  }
  return true;
}

}  // namespace lf::batch
