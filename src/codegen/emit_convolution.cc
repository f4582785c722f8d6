// Convolution: one output element per SPMD iteration (the form of a dot's element loop), summing
// over the window's positions and then the group's input features. f16/bf16 accumulate in f32
// and round once. Within the float tolerances of XLA's (Eigen's) convolution, whose summation
// order is its own GEMM's.
#include "codegen/emitter.h"

namespace lf::codegen {

void Emitter::emitConvolution(const ir::Op& op) {
  const ir::Value* lhs = op.operands[0];
  const ir::Value* rhs = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  const size_t n = a.lhsSpatial.size();
  const DType t = out->type.dtype;
  const bool half = t == DType::F16 || t == DType::BF16;
  const std::string acc = half ? "float" : cType(t);
  auto load = [&](const std::string& element) {
    return half ? "lf_convert<float>(" + element + ")" : element;
  };
  const int64_t groupInputs = rhs->type.dims[a.rhsInput];
  const int64_t groupOutputs = rhs->type.dims[a.rhsOutput] / a.featureGroupCount;
  int64_t windowElements = 1;
  for (int64_t s : a.sizes) windowElements *= s;

  openElementLoop(out);
  declareMultiIndex(out->type.dims, "i", "o");
  line(acc + " sum = 0;");
  // Unread when the lhs is a fused value that drops its feature dim.
  line("[[maybe_unused]] const int64_t group = o" + std::to_string(a.outFeature) + " / " +
       std::to_string(groupOutputs) + ";");
  open("for (int64_t r = 0; r < " + std::to_string(windowElements) + "; ++r)");
  declareMultiIndex(a.sizes, "r", "w");
  std::vector<std::string> lhsIdx(lhs->type.rank()), rhsIdx(rhs->type.rank());
  std::string valid = "true";
  for (size_t d = 0; d < n; ++d) {
    // The position in the lhs dilated by lhsDilation and padded by padLow.
    const std::string p = "p" + std::to_string(d);
    const std::string dil = std::to_string(a.lhsDilation[d]);
    line("const int64_t " + p + " = o" + std::to_string(a.outSpatial[d]) + " * " +
         std::to_string(a.strides[d]) + " + w" + std::to_string(d) + " * " +
         std::to_string(a.rhsDilation[d]) + " - (" + std::to_string(a.padLow[d]) + ");");
    valid += " && " + p + " >= 0 && " + p + " % " + dil + " == 0 && " + p + " / " + dil + " < " +
             std::to_string(lhs->type.dims[a.lhsSpatial[d]]);
    lhsIdx[a.lhsSpatial[d]] = p + " / " + dil;
    rhsIdx[a.rhsSpatial[d]] = "w" + std::to_string(d);
  }
  line("if (!(" + valid + ")) continue;");
  lhsIdx[a.lhsBatch] = "o" + std::to_string(a.outBatch);
  lhsIdx[a.lhsFeature] = "group * " + std::to_string(groupInputs) + " + c";
  rhsIdx[a.rhsInput] = "c";
  rhsIdx[a.rhsOutput] = "o" + std::to_string(a.outFeature);
  open("for (int64_t c = 0; c < " + std::to_string(groupInputs) + "; ++c)");
  line("sum = sum + " + load(at(lhs, ElementIndex{"", lhsIdx})) + " * " +
       load(at(rhs, ElementIndex{"", rhsIdx})) + ";");
  close();
  close();
  line(at(out, "i") + " = " + (half ? "lf_convert<" + cType(t) + ">(sum)" : "sum") + ";");
  close();
  endStage(op);
}

}  // namespace lf::codegen
