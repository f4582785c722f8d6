// Finds while loops in an HLO module and recognises JAX's counted-loop pattern.
#include "frontend/loop_info.h"

#include <charconv>

#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

// The instruction named by operand `i` of `inst`, looking through copies.
const hlo::Instruction* operandDef(const hlo::Computation& comp, const hlo::Instruction& inst,
                                   size_t i) {
  if (i >= inst.operands.size()) return nullptr;
  const hlo::Instruction* def = comp.find(inst.operands[i].name);
  while (def && def->opcode == "copy" && def->operands.size() == 1) {
    def = comp.find(def->operands[0].name);
  }
  return def;
}

// The value of an integer scalar constant.
std::optional<int64_t> intConstant(const hlo::Instruction* inst) {
  if (!inst || inst->opcode != "constant" || !inst->literal ||
      inst->literal->elements.size() != 1 || inst->shape.isTuple || !inst->shape.dims.empty()) {
    return std::nullopt;
  }
  const std::string& t = inst->literal->elements[0];
  int64_t v = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

// The tuple index when `inst` is get-tuple-element(parameter(0)).
std::optional<int64_t> stateIndex(const hlo::Computation& comp, const hlo::Instruction* inst) {
  if (!inst || inst->opcode != "get-tuple-element") return std::nullopt;
  const hlo::Instruction* param = operandDef(comp, *inst, 0);
  const hlo::Attribute* index = inst->attr("index");
  if (!param || param->opcode != "parameter" || !index) return std::nullopt;
  try {
    return hlo::readInt(*index);
  } catch (const CompileError&) {
    return std::nullopt;
  }
}

const hlo::Computation* calledComputation(const hlo::Module& m, const hlo::Instruction& inst,
                                          const char* attr) {
  const hlo::Attribute* a = inst.attr(attr);
  if (!a) return nullptr;
  try {
    return m.find(hlo::readComputationName(*a));
  } catch (const CompileError&) {
    return nullptr;
  }
}

// The loop's counter index and bound N from its condition, when it is `i < N` / `N > i`.
std::optional<std::pair<int64_t, int64_t>> counterBound(const hlo::Computation& cond) {
  const hlo::Instruction& root = cond.root();
  const hlo::Attribute* dir = root.attr("direction");
  if (root.opcode != "compare" || !dir) return std::nullopt;
  const hlo::Instruction* lhs = operandDef(cond, root, 0);
  const hlo::Instruction* rhs = operandDef(cond, root, 1);
  if (dir->value == "LT") {
    auto i = stateIndex(cond, lhs);
    auto n = intConstant(rhs);
    if (i && n) return std::make_pair(*i, *n);
  } else if (dir->value == "GT") {
    auto i = stateIndex(cond, rhs);
    auto n = intConstant(lhs);
    if (i && n) return std::make_pair(*i, *n);
  }
  return std::nullopt;
}

// Whether the body's result element `index` is `gte(param, index) + 1`.
bool incrementsByOne(const hlo::Computation& body, int64_t index) {
  const hlo::Instruction& root = body.root();
  if (root.opcode != "tuple") return false;
  const hlo::Instruction* next = operandDef(body, root, static_cast<size_t>(index));
  if (!next || next->opcode != "add") return false;
  for (size_t k = 0; k < 2; ++k) {
    if (stateIndex(body, operandDef(body, *next, k)) == index &&
        intConstant(operandDef(body, *next, 1 - k)) == 1) {
      return true;
    }
  }
  return false;
}

std::optional<int64_t> tripCount(const hlo::Module& m, const hlo::Computation& comp,
                                 const hlo::Instruction& loop) {
  const hlo::Computation* cond = calledComputation(m, loop, "condition");
  const hlo::Computation* body = calledComputation(m, loop, "body");
  if (!cond || !body || cond->rootIndex < 0 || body->rootIndex < 0) return std::nullopt;
  auto bound = counterBound(*cond);
  if (!bound || !incrementsByOne(*body, bound->first)) return std::nullopt;
  const hlo::Instruction* init = operandDef(comp, loop, 0);
  if (!init || init->opcode != "tuple") return std::nullopt;
  auto start = intConstant(operandDef(comp, *init, static_cast<size_t>(bound->first)));
  if (!start) return std::nullopt;
  return bound->second > *start ? bound->second - *start : 0;
}

class LoopFinder {
 public:
  explicit LoopFinder(const hlo::Module& m) : module_(m) {}

  std::vector<LoopInfo> run() {
    if (module_.entryIndex >= 0) visit(module_.entry(), 0);
    return std::move(loops_);
  }

 private:
  void visit(const hlo::Computation& comp, int depth) {
    // A recursive module (which the importer rejects) must not recurse here forever.
    for (const hlo::Computation* c : stack_) {
      if (c == &comp) return;
    }
    stack_.push_back(&comp);
    for (const hlo::Instruction& inst : comp.instructions) {
      if (inst.opcode == "while") {
        loops_.push_back({inst.name, comp.name, inst.loc, depth, tripCount(module_, comp, inst)});
        for (const char* attr : {"condition", "body"}) {
          if (const hlo::Computation* c = calledComputation(module_, inst, attr))
            visit(*c, depth + 1);
        }
        continue;
      }
      for (const char* attr : {"to_apply", "true_computation", "false_computation"}) {
        if (const hlo::Computation* c = calledComputation(module_, inst, attr)) visit(*c, depth);
      }
      if (const hlo::Attribute* a = inst.attr("branch_computations")) {
        try {
          for (const std::string& name : hlo::readComputationList(*a)) {
            if (const hlo::Computation* c = module_.find(name)) visit(*c, depth);
          }
        } catch (const CompileError&) {
        }
      }
    }
    stack_.pop_back();
  }

  const hlo::Module& module_;
  std::vector<LoopInfo> loops_;
  std::vector<const hlo::Computation*> stack_;
};

}  // namespace

std::vector<LoopInfo> findLoops(const hlo::Module& module) { return LoopFinder(module).run(); }

}  // namespace lf::frontend
