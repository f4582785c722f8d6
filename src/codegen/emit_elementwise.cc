// Elementwise ops: one loop over the result, each element a prelude call on the operands' elements
// (operands are read inside the loop: a fused operand computes its element there).
#include "codegen/emitter.h"

namespace lf::codegen {

void Emitter::emitElementwise(const ir::Op& op) {
  const ir::Value* out = op.result();
  openElementLoop(out);
  std::vector<std::string> args;
  for (const ir::Value* v : op.operands) {
    // Clamp may take scalar bounds for an array operand: they broadcast.
    bool broadcastScalar = v->type.rank() == 0 && out->type.rank() > 0;
    args.push_back(at(v, broadcastScalar ? "0" : "i"));
  }
  line(at(out, "i") + " = " + scalarExpr(op, args) + ";");
  close();
  endStage(op);
}

void Emitter::emitThreefry(const ir::Op& op) {
  const ir::Value* out0 = op.result(0);
  const ir::Value* out1 = op.result(1);
  openElementLoop(out0);
  std::vector<std::string> args;
  for (const ir::Value* v : op.operands) {
    args.push_back(at(v, v->type.numElements() == 1 ? "0" : "i"));
  }
  line("lf_threefry2x32(" + args[0] + ", " + args[1] + ", " + args[2] + ", " + args[3] + ", &" +
       at(out0, "i") + ", &" + at(out1, "i") + ");");
  close();
  endStage(op);
}

}  // namespace lf::codegen
