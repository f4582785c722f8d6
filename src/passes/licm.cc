#include "passes/licm.h"

#include <algorithm>

#include "ir/clone.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// Whether `op` (inside `loop`) reads only values defined outside `loop`: its operands, and the
// values its own regions read that they do not define themselves.
bool readsOnlyOutside(const ir::Op& op, const ir::Op& loop, const ir::Op& root) {
  auto outside = [&](const ir::Value* v) {
    return !ir::definedInside(v, loop) || ir::definedInside(v, root);
  };
  if (!std::all_of(op.operands.begin(), op.operands.end(), outside)) return false;
  for (const auto& region : op.regions) {
    for (const auto& inner : region->ops) {
      if (!readsOnlyOutside(*inner, loop, root)) return false;
    }
    if (!std::all_of(region->yields.begin(), region->yields.end(), outside)) return false;
  }
  return true;
}

template <class T>
void eraseIndices(std::vector<T>& v, const std::vector<size_t>& sortedIndices,
                  std::vector<T>* graveyard = nullptr) {
  for (size_t i = sortedIndices.size(); i-- > 0;) {
    auto at = v.begin() + static_cast<std::ptrdiff_t>(sortedIndices[i]);
    if (graveyard != nullptr) graveyard->push_back(std::move(*at));
    v.erase(at);
  }
}

class Licm {
 public:
  // Inner loops first: the walk rewrites an op's regions before the op.
  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      if (op->kind == K::While) {
        forwardInvariantState(*op);
        for (auto& loopRegion : op->regions) hoist(*op, *loopRegion, parent, kept);
      }
      kept.push_back(std::move(op));
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  // State k is invariant when the body yields its own argument k, or the initial value itself.
  void forwardInvariantState(ir::Op& loop) {
    ir::Region& cond = *loop.regions[0];
    ir::Region& body = *loop.regions[1];
    std::vector<size_t> invariant;
    for (size_t k = 0; k < loop.operands.size(); ++k) {
      if (body.yields[k] == body.args[k].get() || body.yields[k] == loop.operands[k]) {
        invariant.push_back(k);
      }
    }
    // With no state left the condition could not change: such a loop runs zero times or forever;
    // leave it as it is.
    if (invariant.empty() || invariant.size() == loop.operands.size()) return;
    ir::ValueMap inLoop;
    for (size_t k : invariant) {
      inLoop[cond.args[k].get()] = loop.operands[k];
      inLoop[body.args[k].get()] = loop.operands[k];
      replaced_[loop.result(static_cast<int>(k))] = loop.operands[k];
    }
    ir::replaceUses(cond, inLoop);
    ir::replaceUses(body, inLoop);
    eraseIndices(loop.operands, invariant);
    eraseIndices(body.yields, invariant);
    // Dropped values stay alive to the end of the pass: their addresses are keys of replaced_.
    eraseIndices(cond.args, invariant, &removedValues_);
    eraseIndices(body.args, invariant, &removedValues_);
    eraseIndices(loop.results, invariant, &removedValues_);
    for (ir::Region* r : {&cond, &body}) {
      for (size_t i = 0; i < r->args.size(); ++i) r->args[i]->index = static_cast<int>(i);
    }
    for (size_t i = 0; i < loop.results.size(); ++i) loop.results[i]->index = static_cast<int>(i);
  }

  // Moves the invariant ops of `from` (a region of `loop`) to the end of `before`, which the loop
  // follows in `parent`. In region order, so an op that reads a hoisted one can follow it.
  static void hoist(const ir::Op& loop, ir::Region& from, ir::Region& parent,
                    std::vector<std::unique_ptr<ir::Op>>& before) {
    std::vector<std::unique_ptr<ir::Op>> stay;
    for (auto& op : from.ops) {
      bool movable =
          op->kind != K::While && op->kind != K::Conditional && readsOnlyOutside(*op, loop, *op);
      if (!movable) {
        stay.push_back(std::move(op));
        continue;
      }
      op->parent = &parent;
      if (op->hoistedFrom.empty()) op->hoistedFrom = loop.name.empty() ? "a loop" : loop.name;
      before.push_back(std::move(op));
    }
    from.ops = std::move(stay);
  }

  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Value>> removedValues_;
};

}  // namespace

void hoistLoopInvariants(ir::Program& program) { Licm().region(program.body); }

}  // namespace lf::passes
