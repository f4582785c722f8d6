// While and Conditional. Loop control runs in every thread: the predicate and the branch index
// are read from memory after a barrier, so all threads take the same path.
#include "codegen/emitter.h"

namespace lf::codegen {

// The state lives in the While's result buffers (the regions' arguments alias them): copied in from
// the operands before the loop, and from the body's yields at the end of every iteration.
void Emitter::emitWhile(const ir::Op& op) {
  const ir::Region& cond = *op.regions[0];
  const ir::Region& body = *op.regions[1];
  const std::vector<int64_t>& temps = kernel_.opPlan(&op).temps;
  size_t n = op.results.size();
  std::string tag = std::to_string(++uniqueCounter_);

  line("// initial state");
  for (size_t k = 0; k < n; ++k) emitCopy(op.result(k), op.operands[k]);
  barrier();
  open("while (true)");
  line("// condition");
  emitRegion(cond);
  line("const bool pred" + tag + " = " + scalar(cond.yields[0]) + ";");
  line("if (!pred" + tag + ") break;");
  line("// body");
  emitRegion(body);
  line("// next state");
  bool anyTemp = false;
  for (size_t k = 0; k < n; ++k) {
    if (temps[k] < 0) continue;
    // This yield is another state buffer (a swap or rotation): save it before it is overwritten.
    anyTemp = true;
    std::string t = cType(op.result(k)->type.dtype);
    emitCopyToOffset("((" + t + "*)(lf_scratch + " + std::to_string(temps[k]) + "))",
                     body.yields[k]);
  }
  if (anyTemp) barrier();
  for (size_t k = 0; k < n; ++k) {
    const ir::Value* y = body.yields[k];
    const plan::Storage& from = kernel_.storageOf(y);
    const plan::Storage& to = kernel_.storageOf(op.result(k));
    if (from.kind == plan::StorageKind::Scratch && from.offset == to.offset) continue;  // unchanged
    if (temps[k] >= 0) {
      std::string t = cType(op.result(k)->type.dtype);
      openParallelLoop(op.result(k)->type.numElements());
      line(at(op.result(k), "i") + " = ((const " + t + "*)(lf_scratch + " +
           std::to_string(temps[k]) + "))[i];");
      close();
    } else {
      emitCopy(op.result(k), y);
    }
  }
  barrier();
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
  barrier();
}

}  // namespace lf::codegen
