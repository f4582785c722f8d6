#include "ir/clone.h"

namespace lf::ir {
namespace {

void cloneRegionInto(const Region& from, Region& to, ValueMap& map) {
  for (const auto& arg : from.args) map[arg.get()] = to.addArg(arg->type, arg->name);
  for (const auto& op : from.ops) to.ops.push_back(cloneOp(*op, map, &to));
  for (Value* y : from.yields) to.yields.push_back(lookup(map, y));
}

}  // namespace

std::unique_ptr<Op> cloneOp(const Op& op, ValueMap& map, Region* parent) {
  std::vector<Value*> operands;
  operands.reserve(op.operands.size());
  for (Value* v : op.operands) operands.push_back(lookup(map, v));
  std::vector<Type> types;
  for (const auto& r : op.results) types.push_back(r->type);
  std::unique_ptr<Op> copy =
      makeOp(op.kind, std::move(operands), std::move(types), op.attrs, op.loc, op.name);
  copy->parent = parent;
  copy->hoistedFrom = op.hoistedFrom;
  for (size_t i = 0; i < op.results.size(); ++i) {
    copy->results[i]->name = op.results[i]->name;
    map[op.results[i].get()] = copy->results[i].get();
  }
  for (const auto& region : op.regions) cloneRegionInto(*region, *copy->addRegion(), map);
  return copy;
}

Value* lookup(const ValueMap& map, Value* v) {
  for (auto it = map.find(v); it != map.end() && it->second != v; it = map.find(v)) v = it->second;
  return v;
}

void countUses(const Region& region, UseCounts& uses) {
  for (const auto& op : region.ops) {
    for (const Value* v : op->operands) ++uses[v];
    for (const auto& sub : op->regions) countUses(*sub, uses);
  }
  for (const Value* y : region.yields) ++uses[y];
}

void replaceUses(Region& region, const ValueMap& map) {
  for (auto& op : region.ops) {
    for (Value*& v : op->operands) v = lookup(map, v);
    for (auto& sub : op->regions) replaceUses(*sub, map);
  }
  for (Value*& y : region.yields) y = lookup(map, y);
}

}  // namespace lf::ir
