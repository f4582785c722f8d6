// While and Conditional. Loop control runs in every thread: the predicate and the branch index
// are read from memory after a barrier, so all threads take the same path.
#include <algorithm>

#include "codegen/emitter.h"

namespace lf::codegen {

// Whether a stage of the region (or of a region nested in it) writes memory rather than locals.
bool Emitter::writesMemory(const ir::Region& region) const {
  for (const auto& op : region.ops) {
    if (kernel_.opPlan(op.get()).stage < 0) continue;
    for (const auto& r : op->results) {
      if (!isLocal(r.get())) return true;
    }
    if (plan::hasScalarRegions(op->kind)) continue;
    for (const auto& sub : op->regions) {
      if (writesMemory(*sub)) return true;
    }
  }
  return false;
}

// The state lives in the While's result buffers (the regions' arguments alias them), copied in from
// the operands once. At the end of an iteration each state gets its new value as the plan says:
// small state through temporaries (registers), large state by swapping with the idle buffer that
// the body (or the fused yield written here) filled; a state updated in place needs nothing.
void Emitter::emitWhile(const ir::Op& op) {
  using U = plan::StateUpdate;
  const ir::Region& cond = *op.regions[0];
  const ir::Region& body = *op.regions[1];
  const std::vector<U>& updates = kernel_.opPlan(&op).updates;
  size_t n = op.results.size();
  std::string tag = std::to_string(++uniqueCounter_);

  line("// initial state");
  for (size_t k = 0; k < n; ++k) emitCopy(op.result(k), op.operands[k]);
  endStage(op);
  open("while (true)");
  line("// condition");
  emitRegion(cond);
  line("const bool pred" + tag + " = " + scalar(cond.yields[0]) + ";");
  line("if (!pred" + tag + ") break;");
  line("// body");
  emitRegion(body);
  line("// next state");
  // Every new value is read before any state changes (a yield may be another state: a swap).
  std::vector<std::string> temps(n);
  bool inMemory = false;
  for (size_t k = 0; k < n; ++k) {
    const ir::Value* r = op.result(k);
    const ir::Value* y = body.yields[k];
    if (updates[k] == U::Register) {
      temps[k] = "next" + tag + "_" + std::to_string(k);
      line(cType(r->type.dtype) + " " + temps[k] + "[" +
           std::to_string(std::max<int64_t>(1, r->type.numElements())) + "];");
      open("for (int64_t i = 0; i < " + std::to_string(r->type.numElements()) + "; ++i)");
      line(temps[k] + "[i] = " + at(y, "i") + ";");
      close();
    } else if (updates[k] == U::Evaluated || updates[k] == U::Copied) {
      openRowLoop(r, r->type.numElements());
      line(nextName(r) + "[i] = " + at(y, "i") + ";");
      close();
    }
    if (updates[k] != U::Register && updates[k] != U::Unchanged) inMemory = true;
  }
  // No thread may start the next iteration's writes into a buffer another one still reads: the
  // idle buffers, and every buffer a stage of the body writes (read, maybe by a local op with no
  // barrier after it, in this iteration; written again in the next).
  if (inMemory || writesMemory(body)) barrier();
  for (size_t k = 0; k < n; ++k) {
    const ir::Value* r = op.result(k);
    if (updates[k] == U::Register) {
      open("for (int64_t i = 0; i < " + std::to_string(r->type.numElements()) + "; ++i)");
      line(at(r, "i") + " = " + temps[k] + "[i];");
      close();
    } else if (updates[k] == U::Produced || updates[k] == U::Evaluated || updates[k] == U::Copied) {
      std::string t = cType(r->type.dtype);
      line("{ " + t + "* swap = " + name(r) + "; " + name(r) + " = " + nextName(r) + "; " +
           nextName(r) + " = swap; }");
    }
  }
  close();
}

// Branch arguments alias the operands; the branch that runs writes the result buffers.
void Emitter::emitConditional(const ir::Op& op) {
  const ir::Value* selector = op.operands[0];
  const auto& a = op.attr<ir::ConditionalAttrs>();
  int64_t branches = static_cast<int64_t>(op.regions.size());
  std::string b = "branch" + std::to_string(++uniqueCounter_);
  if (a.predicateSelector) {
    // Branch 0 is HLO's true_computation.
    line("const int64_t " + b + " = " + scalar(selector) + " ? 0 : 1;");
  } else {
    // An index out of range runs the last branch.
    std::string s = "(int64_t)" + scalar(selector);
    line("const int64_t " + b + " = (" + s + " < 0 || " + s + " >= " + std::to_string(branches) +
         ") ? " + std::to_string(branches - 1) + " : " + s + ";");
  }
  for (int64_t k = 0; k < branches; ++k) {
    open(std::string(k == 0 ? "" : "else ") + "if (" + b + " == " + std::to_string(k) + ")");
    const ir::Region& region = *op.regions[k];
    emitRegion(region);
    for (size_t r = 0; r < op.results.size(); ++r) emitCopy(op.result(r), region.yields[r]);
    close();
  }
  endStage(op);
}

}  // namespace lf::codegen
