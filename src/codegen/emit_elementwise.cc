// Elementwise ops: one loop over the result, each element a prelude call on the operands' elements
// (operands are read inside the loop: a fused operand computes its element there).
#include "codegen/emitter.h"

namespace lf::codegen {

void Emitter::emitElementwise(const ir::Op& op) {
  openElementLoop(op.result());
  emitElementwiseBody(op);
  close();
  endStage(op);
}

void Emitter::emitElementwiseBody(const ir::Op& op) {
  const ir::Value* out = op.result();
  std::vector<std::string> args;
  for (const ir::Value* v : op.operands) {
    // Clamp may take scalar bounds for an array operand: they broadcast.
    bool broadcastScalar = v->type.rank() == 0 && out->type.rank() > 0;
    args.push_back(at(v, broadcastScalar ? "0" : "i"));
  }
  storeElement(out, scalarExpr(op, args));
}

void Emitter::emitThreefry(const ir::Op& op) {
  openElementLoop(op.result(0));
  emitThreefryBody(op);
  close();
  endStage(op);
}

void Emitter::emitThreefryBody(const ir::Op& op) {
  std::vector<std::string> args;
  for (const ir::Value* v : op.operands) {
    args.push_back(at(v, v->type.numElements() == 1 ? "0" : "i"));
  }
  if (!merged_) {
    line("lf_threefry2x32(" + args[0] + ", " + args[1] + ", " + args[2] + ", " + args[3] + ", &" +
         at(op.result(0), "i") + ", &" + at(op.result(1), "i") + ");");
    return;
  }
  const std::string bits0 = "m" + std::to_string(++uniqueCounter_);
  const std::string bits1 = "m" + std::to_string(++uniqueCounter_);
  line("uint32_t " + bits0 + ", " + bits1 + ";");
  line("lf_threefry2x32(" + args[0] + ", " + args[1] + ", " + args[2] + ", " + args[3] + ", &" +
       bits0 + ", &" + bits1 + ");");
  storeElement(op.result(0), "", bits0);
  storeElement(op.result(1), "", bits1);
}

}  // namespace lf::codegen
