#include "plan/convolution_pack.h"

#include <algorithm>

namespace lf::plan {
namespace {

// Accumulators per tile: AVX2 has 16 vector registers, and each step also needs the input
// vectors and a broadcast weight.
constexpr int64_t kMaxAccumulators = 12;
// Independent fma chains that keep two fma pipes of latency 4 busy: a tile with fewer takes as
// long as one with this many.
constexpr int64_t kChainsToHideLatency = 8;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Vectors per tile along a row of `outputs` pixels, `lanes` each, for `features` accumulators per
// vector: the fewest fma steps per row, counting a tile of fewer than kChainsToHideLatency chains
// as that many; on a tie the smaller tile (fewer lanes past the row's end).
int64_t bestVectorsPerTile(int64_t outputs, int64_t lanes, int64_t features) {
  const int64_t most = std::clamp<int64_t>(kMaxAccumulators / features, 1, 4);
  int64_t best = 1, bestCost = -1;
  for (int64_t v = 1; v <= most; ++v) {
    const int64_t cost = ceilDiv(outputs, v * lanes) * std::max(v * features, kChainsToHideLatency);
    if (bestCost < 0 || cost < bestCost) best = v, bestCost = cost;
  }
  return best;
}

}  // namespace

int64_t ConvolutionPack::chunks(int vectorBytes) const {
  return ceilDiv(minorOutputs, vectorsPerTile(vectorBytes) * lanes(vectorBytes));
}

int64_t ConvolutionPack::elements() const {
  int64_t n = batch * inputs * minorPadded;
  for (size_t d = 0; d < spans.size(); ++d) {
    if (static_cast<int>(d) != minorSpatial) n *= spans[d];
  }
  return n;
}

bool hasTileForm(const ir::Op& op) {
  if (op.kind != ir::OpKind::Convolution) return false;
  const ir::Value* lhs = op.operands[0];
  const ir::Value* rhs = op.operands[1];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  const DType t = out->type.dtype;
  if ((t != DType::F32 && t != DType::F64) || lhs->type.dtype != t || rhs->type.dtype != t) {
    return false;
  }
  if (a.featureGroupCount != 1 || out->type.numElements() == 0) return false;
  return a.outFeature + 1 == out->type.rank() && a.rhsOutput + 1 == rhs->type.rank();
}

std::optional<ConvolutionPack> convolutionPack(const ir::Op& op) {
  if (!hasTileForm(op)) return std::nullopt;
  const ir::Value* lhs = op.operands[0];
  const ir::Value* out = op.result();
  const auto& a = op.attr<ir::ConvolutionAttrs>();
  const int rank = out->type.rank();
  if (a.sizes.empty()) return std::nullopt;
  ConvolutionPack p;
  p.elementBytes = byteSize(out->type.dtype);
  p.features = out->type.dims.back();
  if (p.features * p.elementBytes > 16) return std::nullopt;
  int64_t window = 1;
  for (int64_t s : a.sizes) window *= s;
  if (window < 2) return std::nullopt;  // a 1x1 convolution: the pack would cost what it saves
  for (size_t d = 0; d < a.outSpatial.size(); ++d) {
    if (a.outSpatial[d] == rank - 2) p.minorSpatial = static_cast<int>(d);
  }
  if (p.minorSpatial < 0 || a.strides[p.minorSpatial] != 1) return std::nullopt;
  const size_t m = static_cast<size_t>(p.minorSpatial);
  p.batch = lhs->type.dims[a.lhsBatch];
  p.inputs = lhs->type.dims[a.lhsFeature];
  p.minorOutputs = out->type.dims[rank - 2];
  for (size_t d = 0; d < a.outSpatial.size(); ++d) {
    const int64_t outputs = out->type.dims[a.outSpatial[d]];
    p.spans.push_back((outputs - 1) * a.strides[d] + (a.sizes[d] - 1) * a.rhsDilation[d] + 1);
  }
  const int64_t reach = (a.sizes[m] - 1) * a.rhsDilation[m];
  p.minorPadded = p.spans[m];
  for (int bytes : {64, 32}) {
    const int64_t lanes = bytes / p.elementBytes;
    p.pixelVectors[bytes == 64 ? 0 : 1] = bestVectorsPerTile(p.minorOutputs, lanes, p.features);
    p.minorPadded =
        std::max(p.minorPadded, p.chunks(bytes) * p.vectorsPerTile(bytes) * lanes + reach);
  }
  if (p.elements() > 4 * lhs->type.numElements() + (int64_t{1} << 20) / p.elementBytes) {
    return std::nullopt;
  }
  return p;
}

}  // namespace lf::plan
