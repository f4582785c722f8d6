// Convolution: one output element per SPMD iteration (the form of a dot's element loop), summing
// over the window's positions and then the group's input features, one fma each (f16/bf16
// accumulate in f32 and round once). A window position in the padding, or between the elements of
// a dilated lhs, contributes 0 * w, as in XLA's convolution (its patches hold zeros there): a NaN
// or infinite weight there gives NaN in both. On the CPU, a convolution with its features minor
// runs as register tiles (emit_convolution_tiles.cc), or to a few output features as pixel
// vectors (emit_convolution_pixels.cc), that sum the same chain, so every form gives the same bits.
// Within the float tolerances of XLA's (Eigen's) convolution, whose summation order is its own
// GEMM's.
#include "codegen/dot_form.h"
#include "plan/convolution_pack.h"

namespace lf::codegen {

void Emitter::emitConvolution(const ir::Op& op) {
  // The pixel-vector form where the plan made room for its pack (few output features, CPU): it
  // reads the kernel and writes the result element by element, so either may be fused or in any
  // buffer (a reversed kernel of an input gradient), and the plan has fused an elementwise lhs
  // into the pack, which this form alone reads once per element.
  const auto pack = plan::convolutionPack(op);
  if (pack && !kernel_.opPlan(&op).temps.empty() && !isLocal(op.result())) {
    emitConvolutionPixels(op, *pack);
    return;
  }
  if (convolutionTiled(op)) {
    emitConvolutionTiles(op);
    return;
  }
  const ir::Value* lhs = op.operands[0];
  const ir::Value* rhs = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  const DType acc = dot::accumulatorType(out->type.dtype);
  const int64_t groupInputs = rhs->type.dims[a.rhsInput];
  const int64_t groupOutputs = rhs->type.dims[a.rhsOutput] / a.featureGroupCount;
  int64_t windowElements = 1;
  for (int64_t s : a.sizes) windowElements *= s;

  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(cType(acc) + " sum = 0;");
  // Unread when the lhs is a fused value that drops its feature dim.
  line("[[maybe_unused]] const int64_t group = o" + std::to_string(a.outFeature) + " / " +
       std::to_string(groupOutputs) + ";");
  open("for (int64_t r = 0; r < " + std::to_string(windowElements) + "; ++r)");
  declareMultiIndex(a.sizes, "r", "w");
  std::vector<std::string> outIdx;
  for (int d = 0; d < out->type.rank(); ++d) outIdx.push_back("o" + std::to_string(d));
  std::vector<std::string> lhsIdx = convolutionWindowIndex(op, outIdx, "", "ok");
  std::vector<std::string> rhsIdx(rhs->type.rank());
  for (size_t d = 0; d < a.rhsSpatial.size(); ++d)
    rhsIdx[a.rhsSpatial[d]] = "w" + std::to_string(d);
  lhsIdx[a.lhsFeature] = "group * " + std::to_string(groupInputs) + " + c";
  rhsIdx[a.rhsInput] = "c";
  rhsIdx[a.rhsOutput] = "o" + std::to_string(a.outFeature);
  open("for (int64_t c = 0; c < " + std::to_string(groupInputs) + "; ++c)");
  const std::string l = dot::asAccumulator(lhs, acc, at(lhs, ElementIndex{"", lhsIdx}));
  const std::string w = dot::asAccumulator(rhs, acc, at(rhs, ElementIndex{"", rhsIdx}));
  line("const " + cType(acc) + " e = " + l + ";");  // a load, then a select (not a branch)
  line("const " + cType(acc) + " l = ok ? e : (" + cType(acc) + ")0;");
  line("sum = " + dot::multiplyAccumulate(acc, "sum", "l", w) + ";");
  close();
  close();
  line(at(out, "i") + " = " +
       (acc == out->type.dtype ? "sum" : "lf_convert<" + cType(out->type.dtype) + ">(sum)") + ";");
  close();
  endStage(op);
}

std::vector<std::string> Emitter::convolutionWindowIndex(const ir::Op& op,
                                                         const std::vector<std::string>& outIdx,
                                                         const std::string& suffix,
                                                         const std::string& valid) {
  const ir::Value* lhs = op.operands[0];
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  std::vector<std::string> lhsIdx(lhs->type.rank());
  std::string all = "true";
  for (size_t d = 0; d < a.lhsSpatial.size(); ++d) {
    // The position in the lhs dilated by lhsDilation and padded by padLow.
    const std::string p = "p" + suffix + "_" + std::to_string(d);
    const std::string dil = std::to_string(a.lhsDilation[d]);
    line("const int64_t " + p + " = " + outIdx[a.outSpatial[d]] + " * " +
         std::to_string(a.strides[d]) + " + w" + std::to_string(d) + " * " +
         std::to_string(a.rhsDilation[d]) + " - (" + std::to_string(a.padLow[d]) + ");");
    all += " && " + p + " >= 0 && " + p + " % " + dil + " == 0 && " + p + " / " + dil + " < " +
           std::to_string(lhs->type.dims[a.lhsSpatial[d]]);
    lhsIdx[a.lhsSpatial[d]] = "x" + suffix + "_" + std::to_string(d);
  }
  line("const bool " + valid + " = " + all + ";");
  // Where the position is not an lhs element, the element read is the one at spatial position 0
  // (and multiplied by 0 instead): a fused lhs computes its element before the test.
  for (size_t d = 0; d < a.lhsSpatial.size(); ++d) {
    const std::string p = "p" + suffix + "_" + std::to_string(d);
    line("const int64_t x" + suffix + "_" + std::to_string(d) + " = " + valid + " ? " + p + " / " +
         std::to_string(a.lhsDilation[d]) + " : 0;");
  }
  lhsIdx[a.lhsBatch] = outIdx[a.outBatch];
  return lhsIdx;
}

}  // namespace lf::codegen
