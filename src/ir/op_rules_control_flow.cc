// Rules for while, conditional and threefry2x32: region signatures against operands and results.
#include "ir/op_rules.h"

namespace lf::ir::detail {
namespace {

std::vector<Type> typesOf(const std::vector<Value*>& vs) {
  std::vector<Type> out;
  for (const Value* v : vs) out.push_back(v ? v->type : Type{});
  return out;
}

std::vector<Type> typesOf(const std::vector<std::unique_ptr<Value>>& vs) {
  std::vector<Type> out;
  for (const auto& v : vs) out.push_back(v->type);
  return out;
}

std::string list(const std::vector<Type>& ts) {
  std::string s;
  for (size_t i = 0; i < ts.size(); ++i) s += (i ? ", " : "") + ts[i].toString();
  return s;
}

std::string checkWhile(const Op& op) {
  if (op.regions.size() != 2) return "while takes a condition and a body region";
  std::vector<Type> state = typesOf(op.operands);
  const Region& cond = *op.regions[0];
  const Region& body = *op.regions[1];
  if (typesOf(cond.args) != state) {
    return "while condition takes (" + list(typesOf(cond.args)) + "), state is (" + list(state) +
           ")";
  }
  if (cond.yields.size() != 1 || !cond.yields[0] || cond.yields[0]->type != Type{DType::Pred, {}}) {
    return "while condition must yield one pred[], yields (" + list(typesOf(cond.yields)) + ")";
  }
  if (typesOf(body.args) != state) {
    return "while body takes (" + list(typesOf(body.args)) + "), state is (" + list(state) + ")";
  }
  if (typesOf(body.yields) != state) {
    return "while body yields (" + list(typesOf(body.yields)) + "), state is (" + list(state) + ")";
  }
  if (typesOf(op.results) != state) {
    return "while results (" + list(typesOf(op.results)) + ") differ from its state (" +
           list(state) + ")";
  }
  return "";
}

std::string checkConditional(const Op& op) {
  auto* a = std::get_if<ConditionalAttrs>(&op.attrs);
  if (!a) return "conditional needs ConditionalAttrs";
  if (op.operands.empty()) return "conditional needs a selector";
  const Type& sel = op.operands[0]->type;
  if (a->predicateSelector) {
    if (sel != Type{DType::Pred, {}})
      return "conditional predicate must be pred[], got " + sel.toString();
    if (a->branchOperandCounts.size() != 2) return "a pred conditional has exactly 2 branches";
  } else if (sel != Type{DType::S32, {}}) {
    return "conditional branch index must be s32[], got " + sel.toString();
  }
  if (a->branchOperandCounts.empty()) return "conditional needs at least one branch";
  if (op.regions.size() != a->branchOperandCounts.size()) {
    return "conditional has " + std::to_string(op.regions.size()) + " regions for " +
           std::to_string(a->branchOperandCounts.size()) + " branches";
  }
  size_t next = 1;
  std::vector<Type> results = typesOf(op.results);
  for (size_t k = 0; k < op.regions.size(); ++k) {
    int count = a->branchOperandCounts[k];
    if (count < 0 || next + count > op.operands.size())
      return "conditional branch operand counts exceed its operands";
    std::vector<Type> expect;
    for (int i = 0; i < count; ++i) expect.push_back(op.operands[next + i]->type);
    next += count;
    const Region& r = *op.regions[k];
    if (typesOf(r.args) != expect) {
      return "conditional branch " + std::to_string(k) + " takes (" + list(typesOf(r.args)) +
             "), is given (" + list(expect) + ")";
    }
    if (typesOf(r.yields) != results) {
      return "conditional branch " + std::to_string(k) + " yields (" + list(typesOf(r.yields)) +
             "), results are (" + list(results) + ")";
    }
  }
  if (next != op.operands.size()) return "conditional has operands beyond its branches";
  return "";
}

std::string checkThreefry(const Op& op) {
  if (op.operands.size() != 4 || op.results.size() != 2 || !op.regions.empty()) {
    return "threefry2x32 takes (k0, k1, x0, x1) and gives 2 results";
  }
  const Type& t = op.operands[0]->type;
  if (t.dtype != DType::U32) return "threefry2x32 operands must be u32, got " + t.toString();
  for (const Value* v : op.operands) {
    if (v->type != t) return "type mismatch: threefry2x32 operands " + typeList(op.operands);
  }
  for (const auto& r : op.results) {
    if (r->type != t)
      return "type mismatch: threefry2x32 of " + t.toString() + " gives " + r->type.toString();
  }
  return "";
}

}  // namespace

std::string checkControlFlow(const Op& op) {
  switch (op.kind) {
    case OpKind::While:
      return checkWhile(op);
    case OpKind::Conditional:
      return checkConditional(op);
    case OpKind::Threefry2x32:
      return checkThreefry(op);
    case OpKind::HostCallback:
      // Python's types are whatever the callback declared: any operands and results.
      return op.regions.empty() ? "" : "host-callback has no regions";
    default:
      return "not a control-flow op";
  }
}

}  // namespace lf::ir::detail
