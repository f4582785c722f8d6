#include "plan/fusion.h"

#include <functional>

namespace lf::plan {

std::unordered_map<const ir::Value*, std::vector<Use>> collectUses(const ir::Program& program) {
  std::unordered_map<const ir::Value*, std::vector<Use>> uses;
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& region) {
    for (const auto& op : region.ops) {
      for (size_t s = 0; s < op->operands.size(); ++s) {
        uses[op->operands[s]].push_back(Use{op.get(), static_cast<int>(s), nullptr});
      }
      for (const auto& sub : op->regions) walk(*sub);
    }
    for (const ir::Value* y : region.yields) uses[y].push_back(Use{nullptr, -1, &region});
  };
  walk(program.body);
  return uses;
}

bool isIndexOnly(const ir::Op& op) {
  using K = ir::OpKind;
  switch (op.kind) {
    case K::Broadcast:
    case K::Reshape:
    case K::Transpose:
    case K::Slice:
    case K::Reverse:
    case K::Iota:
    case K::DynamicSlice:
      return true;
    default:
      return false;
  }
}

bool isFusible(const ir::Op& op) {
  if (op.results.size() != 1) return false;
  if (op.kind == ir::OpKind::BitcastConvert) {
    return byteSize(op.result()->type.dtype) == byteSize(op.operands[0]->type.dtype);
  }
  return isIndexOnly(op) || ir::isElementwise(op.kind);
}

bool readsOperandOnce(const ir::Op& user, int slot) {
  using K = ir::OpKind;
  if (ir::isElementwise(user.kind)) {
    // Clamp's scalar bounds are read for every element.
    return user.operands[slot]->type.numElements() == user.result()->type.numElements();
  }
  switch (user.kind) {
    case K::Reshape:
    case K::Transpose:
    case K::Slice:
    case K::Reverse:
    case K::Concatenate:
    case K::While:
    case K::Threefry2x32:
      return true;
    case K::Pad:
      return slot == 0;  // not the padding value
    case K::DynamicUpdateSlice:
      return slot <= 1;  // not the start indices
    case K::Reduce:
      return slot < static_cast<int>(user.results.size());  // the inputs, not the inits
    default:
      return false;
  }
}

}  // namespace lf::plan
