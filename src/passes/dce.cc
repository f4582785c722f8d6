#include "passes/dce.h"

#include <algorithm>
#include <unordered_set>

namespace lf::passes {
namespace {

using LiveSet = std::unordered_set<const ir::Value*>;

// Walks a region backwards: an op is live when one of its results is live; a live op makes its
// operands live and keeps its nested regions' yields (and so their producers) live. Values of
// enclosing regions used inside are marked before the walk reaches their definitions, because the
// enclosing walk is also backwards.
void markRegion(const ir::Region& region, LiveSet& live) {
  for (const ir::Value* y : region.yields) live.insert(y);
  for (auto it = region.ops.rbegin(); it != region.ops.rend(); ++it) {
    const ir::Op& op = **it;
    bool isLive = std::any_of(op.results.begin(), op.results.end(),
                              [&](const auto& r) { return live.count(r.get()) > 0; });
    if (!isLive) continue;
    for (const ir::Value* operand : op.operands) live.insert(operand);
    for (const auto& sub : op.regions) markRegion(*sub, live);
  }
}

void sweepRegion(ir::Region& region, const LiveSet& live) {
  std::vector<std::unique_ptr<ir::Op>> kept;
  kept.reserve(region.ops.size());
  for (auto& op : region.ops) {
    bool isLive = std::any_of(op->results.begin(), op->results.end(),
                              [&](const auto& r) { return live.count(r.get()) > 0; });
    if (!isLive) continue;
    for (auto& sub : op->regions) sweepRegion(*sub, live);
    kept.push_back(std::move(op));
  }
  region.ops = std::move(kept);
}

}  // namespace

void eliminateDeadCode(ir::Program& program) {
  LiveSet live;
  markRegion(program.body, live);
  sweepRegion(program.body, live);
}

}  // namespace lf::passes
