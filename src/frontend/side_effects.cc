// Which instructions have effects besides their results: XLA keeps them even when nothing reads
// what they give (a jax.debug.callback's custom call, or a conditional that may run one), so the
// importer must too.
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {

std::vector<std::string> calledComputations(const hlo::Instruction& inst) {
  static constexpr const char* kSingle[] = {"to_apply", "condition", "body", "true_computation",
                                            "false_computation"};
  std::vector<std::string> out;
  // A malformed attribute names nothing here; the import reports it.
  for (const char* name : kSingle) {
    if (const hlo::Attribute* a = inst.attr(name)) {
      try {
        out.push_back(hlo::readComputationName(*a));
      } catch (const CompileError&) {
      }
    }
  }
  if (const hlo::Attribute* a = inst.attr("branch_computations")) {
    try {
      for (std::string& n : hlo::readComputationList(*a)) out.push_back(std::move(n));
    } catch (const CompileError&) {
    }
  }
  return out;
}

bool SideEffects::of(const hlo::Instruction& inst) {
  if (inst.opcode == "custom-call") {
    const hlo::Attribute* a = inst.attr("custom_call_has_side_effect");
    try {
      if (a != nullptr && hlo::readBool(*a)) return true;
    } catch (const CompileError&) {
    }
  }
  for (const std::string& name : calledComputations(inst)) {
    const hlo::Computation* c = module_.find(name);
    if (c != nullptr && of(*c)) return true;
  }
  return false;
}

bool SideEffects::of(const hlo::Computation& comp) {
  auto [it, inserted] = memo_.try_emplace(&comp, false);
  if (!inserted) return it->second;  // known, or being visited (recursion is rejected elsewhere)
  bool found = false;
  for (const hlo::Instruction& inst : comp.instructions) found = found || of(inst);
  memo_[&comp] = found;
  return found;
}

}  // namespace lf::frontend
