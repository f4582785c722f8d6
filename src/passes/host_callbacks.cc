#include "passes/host_callbacks.h"

#include <cstring>

#include "ir/clone.h"
#include "passes/fold.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

const ir::Type kStatusType{DType::S32, {}};

bool reachesCallback(const ir::Region& region) {
  for (const auto& op : region.ops) {
    if (op->kind == K::HostCallback) return true;
    for (const auto& sub : op->regions) {
      if (reachesCallback(*sub)) return true;
    }
  }
  return false;
}

const ir::Op* firstCallback(const ir::Region& region) {
  for (const auto& op : region.ops) {
    if (op->kind == K::HostCallback) return op.get();
    for (const auto& sub : op->regions) {
      if (const ir::Op* found = firstCallback(*sub)) return found;
    }
  }
  return nullptr;
}

// New ops go to the end of one region's new op list.
class Builder {
 public:
  Builder(ir::Region& region, std::vector<std::unique_ptr<ir::Op>>& ops)
      : region_(region), ops_(ops) {}

  ir::Value* add(K kind, std::vector<ir::Value*> operands, ir::Type type,
                 ir::Attrs attrs = ir::NoAttrs{}) {
    ops_.push_back(ir::makeOp(kind, std::move(operands), {std::move(type)}, std::move(attrs)));
    ops_.back()->parent = &region_;
    return ops_.back()->result();
  }
  // A zero of `type`: a scalar constant, broadcast when the type is an array.
  ir::Value* zeros(const ir::Type& type) {
    std::vector<uint8_t> bytes(static_cast<size_t>(byteSize(type.dtype)), 0);
    ir::Value* scalar = add(K::Constant, {}, {type.dtype, {}}, ir::ConstantAttrs{bytes});
    if (type.rank() == 0) return scalar;
    return add(K::Broadcast, {scalar}, type, ir::BroadcastAttrs{});
  }
  ir::Value* status(int64_t site) {
    std::vector<uint8_t> bytes(4);
    storeBits(DType::S32, static_cast<uint64_t>(site), bytes.data());
    return add(K::Constant, {}, kStatusType, ir::ConstantAttrs{bytes});
  }
  ir::Value* isZero(ir::Value* status) {
    return add(K::Compare, {status, this->status(0)}, {DType::Pred, {}},
               ir::CompareAttrs{ir::CompareDirection::EQ, ir::CompareType::Signed});
  }
  // The first site reached: `earlier` unless it is 0, else `later`.
  ir::Value* first(ir::Value* earlier, ir::Value* later) {
    if (earlier == nullptr) return later;
    return add(K::Select, {isZero(earlier), later, earlier}, kStatusType);
  }

 private:
  ir::Region& region_;
  std::vector<std::unique_ptr<ir::Op>>& ops_;
};

ir::Value* addResult(ir::Op& op, ir::Type type) {
  auto v = std::make_unique<ir::Value>();
  v->type = std::move(type);
  v->def = &op;
  v->index = static_cast<int>(op.results.size());
  v->name = op.name + ".host_callback_status";
  op.results.push_back(std::move(v));
  return op.results.back().get();
}

class Lowering {
 public:
  explicit Lowering(ir::Program& program) : program_(program) {}

  // Rewrites `r` and returns its status after it ran: a value that `r` can read (`incoming`, the
  // status when `r` starts, unless `r` may reach a callback), nullptr while it is known to be 0.
  ir::Value* region(ir::Region& r, ir::Value* incoming) {
    std::vector<std::unique_ptr<ir::Op>> kept;
    Builder build(r, kept);
    ir::Value* status = incoming;
    for (auto& op : r.ops) {
      for (ir::Value*& v : op->operands) v = ir::lookup(replaced_, v);
      if (op->kind == K::HostCallback) {
        const auto& attrs = op->attr<ir::HostCallbackAttrs>();
        program_.hostCallbacks.push_back({op->name, attrs.target, op->loc, attrs.hasSideEffect});
        for (const auto& result : op->results) replaced_[result.get()] = build.zeros(result->type);
        const auto site = static_cast<int64_t>(program_.hostCallbacks.size());
        status = build.first(status, build.status(site));
        removed_.push_back(std::move(op));
        continue;
      }
      ir::Value* after = status;
      if (op->kind == K::Conditional) {
        after = conditional(*op, status);
      } else if (op->kind == K::While) {
        after = whileLoop(*op, status, build);
      } else {
        for (auto& sub : op->regions) {
          if (const ir::Op* callback = firstCallback(*sub)) {
            throw CompileError(callback->loc, "host callback '" + callback->name + "' inside a " +
                                                  ir::opKindName(op->kind) + " is not supported");
          }
          ir::replaceUses(*sub, replaced_);
        }
      }
      kept.push_back(std::move(op));
      status = after;
    }
    r.ops = std::move(kept);
    for (ir::Value*& y : r.yields) y = ir::lookup(replaced_, y);
    return status;
  }

 private:
  // When a branch may reach a callback, each branch yields its status (0 where none was reached
  // yet): the conditional's new result.
  ir::Value* conditional(ir::Op& op, ir::Value* incoming) {
    bool changed = false;
    std::vector<ir::Value*> statuses;
    for (auto& branch : op.regions) {
      statuses.push_back(region(*branch, incoming));
      changed = changed || statuses.back() != incoming;
    }
    if (!changed) return incoming;
    for (size_t k = 0; k < op.regions.size(); ++k) {
      ir::Region& branch = *op.regions[k];
      ir::Value* s = statuses[k];
      if (s == nullptr) {
        std::vector<std::unique_ptr<ir::Op>> tail;
        s = Builder(branch, tail).status(0);
        for (auto& t : tail) branch.ops.push_back(std::move(t));
      }
      branch.yields.push_back(s);
    }
    return addResult(op, kStatusType);
  }

  // A loop that runs after a callback may have been reached runs only while the status is 0: with
  // the zeros in place of the callback's results it might never end. When its body may reach one,
  // the status is loop state (starting from `incoming`), and the body, which only runs at 0, yields
  // the status of its own run.
  ir::Value* whileLoop(ir::Op& op, ir::Value* incoming, Builder& before) {
    ir::Region& cond = *op.regions[0];
    ir::Region& body = *op.regions[1];
    if (const ir::Op* callback = firstCallback(cond)) {
      throw CompileError(callback->loc, "host callback '" + callback->name +
                                            "' inside a while loop's condition is not supported");
    }
    ir::replaceUses(cond, replaced_);
    ir::Value* status = incoming;
    if (reachesCallback(body)) {
      ir::Value* bodyStatus = region(body, nullptr);
      op.operands.push_back(incoming != nullptr ? incoming : before.status(0));
      status = cond.addArg(kStatusType, op.name + ".host_callback_status");
      body.addArg(kStatusType, op.name + ".host_callback_status");
      body.yields.push_back(bodyStatus);
    } else {
      ir::replaceUses(body, replaced_);
    }
    if (status == nullptr) return nullptr;
    std::vector<std::unique_ptr<ir::Op>> tail;
    Builder inCond(cond, tail);
    cond.yields[0] = inCond.add(K::And, {cond.yields[0], inCond.isZero(status)}, {DType::Pred, {}});
    for (auto& t : tail) cond.ops.push_back(std::move(t));
    return status == incoming ? incoming : addResult(op, kStatusType);
  }

  ir::Program& program_;
  ir::ValueMap replaced_;
  // Kept alive to the end of the pass, so that no new value reuses a replaced value's address.
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void lowerHostCallbacks(ir::Program& program) {
  if (!program.hostCallbacks.empty() || !reachesCallback(program.body)) return;
  Lowering lowering(program);
  ir::Value* status = lowering.region(program.body, nullptr);
  program.body.yields.push_back(status);
  program.outputNames.push_back("host_callback_status");
}

}  // namespace lf::passes
