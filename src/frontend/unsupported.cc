// Finds everything the importer cannot handle before importing anything, so that the user gets
// one report listing every unsupported op, custom-call target, element type and dynamic shape.
// Only instructions reachable from the entry's root or its side effects (through called
// computations) count.
#include <set>

#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

constexpr const char* kFallbackHint = "; run this function with jax.jit instead";

class UnsupportedFinder {
 public:
  explicit UnsupportedFinder(const hlo::Module& m) : module_(m) {}

  std::vector<Diagnostic> run() {
    visit(module_.entry());
    return std::move(diags_);
  }

 private:
  void visit(const hlo::Computation& comp) {
    if (!visited_.insert(&comp).second) return;
    for (int idx : reachableInOrder(comp, effects_)) check(comp, comp.instructions[idx]);
  }

  void check(const hlo::Computation& comp, const hlo::Instruction& inst) {
    std::string where = " (instruction " + inst.name + " in computation " + comp.name + ")";
    if (std::string why = unsupportedTypeIn(inst.shape); !why.empty()) {
      diags_.push_back({inst.shape.loc.known() ? inst.shape.loc : inst.loc, why + where});
    }
    if (needsComplexRule(comp, inst) && !complexHandlers().count(inst.opcode)) {
      diags_.push_back({inst.opcodeLoc.known() ? inst.opcodeLoc : inst.loc,
                        "unsupported op '" + inst.opcode + "' on complex numbers (" +
                            inst.shape.toString() + ")" + where + kFallbackHint});
      return;
    }
    if (inst.opcode != "parameter" && !handlers().count(inst.opcode) &&
        !complexHandlers().count(inst.opcode)) {
      diags_.push_back({inst.opcodeLoc.known() ? inst.opcodeLoc : inst.loc,
                        "unsupported op '" + inst.opcode + "'" + where + kFallbackHint});
      return;
    }
    if (inst.opcode == "custom-call") {
      const hlo::Attribute* target = inst.attr("custom_call_target");
      if (target != nullptr) {
        std::string name;
        try {
          name = hlo::readString(*target);
        } catch (const CompileError&) {
          return;  // the import reports the malformed attribute
        }
        if (!isKnownCustomCallTarget(name)) {
          diags_.push_back({target->valueLoc, "unsupported custom-call target '" + name + "'" +
                                                  where + kFallbackHint});
        } else if (needsComplexRule(comp, inst) && !takesComplexCustomCall(name)) {
          diags_.push_back({target->valueLoc, "unsupported custom-call target '" + name +
                                                  "' on complex numbers (" + inst.shape.toString() +
                                                  ")" + where + kFallbackHint});
        }
      }
      return;
    }
    for (const std::string& name : calledComputations(inst)) visitNamed(name);
  }

  void visitNamed(const std::string& name) {
    if (const hlo::Computation* c = module_.find(name)) visit(*c);
  }

  const hlo::Module& module_;
  SideEffects effects_{module_};
  std::set<const hlo::Computation*> visited_;
  std::vector<Diagnostic> diags_;
};

}  // namespace

std::vector<Diagnostic> findUnsupported(const hlo::Module& module) {
  return UnsupportedFinder(module).run();
}

}  // namespace lf::frontend
