// XLA's fft: FFT / IFFT (complex to complex), RFFT (real to the first n/2 + 1 complex points) and
// IRFFT (those points back to n reals), over the last len(fft_length) dimensions. The IR's fft
// op transforms the last dimension only, so a transform over several dimensions is one fft op per
// dimension, each between transposes that bring its dimension last and back: RFFT takes the last
// dimension first (the real one), IRFFT takes it last.
#include <numeric>

#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;
using ir::Value;

Value* transpose(InstrContext& c, Value* v, const std::vector<int64_t>& perm) {
  ir::Type t = v->type;
  for (size_t i = 0; i < perm.size(); ++i) t.dims[i] = v->type.dims[perm[i]];
  return c.emit(OpKind::Transpose, {v}, {t}, ir::TransposeAttrs{perm})->result();
}

// One transform along dimension `axis` of the leaves in `x` (one real array or (re, im)).
Values along(InstrContext& c, Values x, int64_t axis, ir::FftKind kind, int64_t length) {
  const int64_t rank = x[0]->type.rank();
  std::vector<int64_t> perm(rank), back(rank);
  std::iota(perm.begin(), perm.end(), 0);
  perm.erase(perm.begin() + axis);
  perm.push_back(axis);
  for (int64_t i = 0; i < rank; ++i) back[perm[i]] = i;
  const bool moved = axis != rank - 1;
  if (moved) {
    for (Value*& v : x) v = transpose(c, v, perm);
  }
  ir::Type out = x[0]->type;
  out.dims.back() = kind == ir::FftKind::RealForward ? length / 2 + 1 : length;
  std::vector<ir::Type> types(kind == ir::FftKind::RealInverse ? 1 : 2, out);
  Values r = resultsOf(c.emit(OpKind::Fft, x, types, ir::FftAttrs{kind, length}));
  if (moved) {
    for (Value*& v : r) v = transpose(c, v, back);
  }
  return r;
}

}  // namespace

Values importFft(InstrContext& c) {
  c.expectOperands(1);
  const std::string type = c.attr("fft_type").value;
  const std::vector<int64_t> lengths = hlo::readIntList(c.attr("fft_length"));
  const hlo::Shape& in = c.operandShape(0);
  const int64_t rank = static_cast<int64_t>(in.dims.size());
  const int64_t fftRank = static_cast<int64_t>(lengths.size());
  if (fftRank < 1 || fftRank > 3 || fftRank > rank) {
    c.fail("fft over " + std::to_string(fftRank) + " dimensions of " + in.toString() +
           " (XLA takes 1 to 3, at most the operand's rank)");
  }
  for (int64_t n : lengths) {
    if (n < 1 || n > ir::kMaxFftLength) {
      c.fail("fft of " + std::to_string(n) + " points: loopfuse transforms 1 to " +
             std::to_string(ir::kMaxFftLength) + " points per dimension");
    }
  }
  Values x = c.operands[0];
  const int64_t first = rank - fftRank;
  if (type == "FFT" || type == "IFFT") {
    if (!complexPartType(in.elementType))
      c.fail(type + " needs a complex operand, got " + in.toString());
    for (int64_t d = rank - 1; d >= first; --d) {
      x = along(c, x, d, type == "FFT" ? ir::FftKind::Forward : ir::FftKind::Inverse,
                lengths[d - first]);
    }
  } else if (type == "RFFT") {
    if (complexPartType(in.elementType)) c.fail("RFFT needs a real operand, got " + in.toString());
    x = {c.array(0)};
    x = along(c, x, rank - 1, ir::FftKind::RealForward, lengths.back());
    for (int64_t d = rank - 2; d >= first; --d) {
      x = along(c, x, d, ir::FftKind::Forward, lengths[d - first]);
    }
  } else if (type == "IRFFT") {
    if (!complexPartType(in.elementType))
      c.fail("IRFFT needs a complex operand, got " + in.toString());
    for (int64_t d = rank - 2; d >= first; --d) {
      x = along(c, x, d, ir::FftKind::Inverse, lengths[d - first]);
    }
    x = along(c, x, rank - 1, ir::FftKind::RealInverse, lengths.back());
  } else {
    c.fail("unknown fft_type '" + type + "' (expected FFT, IFFT, RFFT or IRFFT)");
  }
  return x;
}

}  // namespace lf::frontend
