// The fft op: one line (the last dimension) per SPMD iteration, copied into arrays of the
// thread's own, transformed there by the prelude's lf_fft_line (lf_fft.h), and written to the
// results. The twiddles of each length the kernel transforms are tables of the translation unit
// (codegen/fft_twiddles.h).
#include <cstdio>
#include <set>

#include "codegen/emitter.h"
#include "codegen/fft_twiddles.h"

namespace lf::codegen {
namespace {

void collectLengths(const ir::Region& region, std::set<int64_t>& lengths) {
  for (const auto& op : region.ops) {
    if (op->kind == ir::OpKind::Fft) lengths.insert(op->attr<ir::FftAttrs>().length);
    for (const auto& sub : op->regions) collectLengths(*sub, lengths);
  }
}

std::string tableName(const char* part, int64_t n) {
  return std::string("lf_twiddle_") + part + "_" + std::to_string(n);
}

}  // namespace

void Emitter::emitFftTables() {
  std::set<int64_t> lengths;
  collectLengths(kernel_.program->body, lengths);
  const char* qualifier = target_ == Target::Cuda ? "static __device__ const" : "static const";
  for (int64_t n : lengths) {
    line("// twiddles of the " + std::to_string(n) + "-point transforms: cos, sin of 2 pi k/n");
    for (int part = 0; part < 2; ++part) {
      open(std::string(qualifier) + " double " + tableName(part == 0 ? "cos" : "sin", n) + "[" +
           std::to_string(n) + "] =");
      std::string row;
      for (int64_t k = 0; k < n; ++k) {
        double cosine = 0, sine = 0;
        fftTwiddle(k, n, cosine, sine);
        const double v = part == 0 ? cosine : sine;
        char text[40];
        std::snprintf(text, sizeof text, "%a,", v);  // hexadecimal: the double exactly
        row += text;
        if ((k + 1) % 4 == 0 || k + 1 == n) {
          line(row);
          row.clear();
        } else {
          row += " ";
        }
      }
      close(";");
    }
  }
}

void Emitter::emitFft(const ir::Op& op) {
  const ir::FftAttrs& a = op.attr<ir::FftAttrs>();
  const int64_t n = a.length;  // at most ir::kMaxFftLength: the line's arrays are the thread's
  const bool realIn = a.kind == ir::FftKind::RealForward;
  const bool realOut = a.kind == ir::FftKind::RealInverse;
  const bool inverse = a.kind == ir::FftKind::Inverse || realOut;
  const ir::Value* in = op.operands[0];
  const int64_t inPoints = in->type.dims.back();
  const int64_t outPoints = op.result(0)->type.dims.back();
  const int64_t lines = inPoints == 0 ? 0 : in->type.numElements() / inPoints;
  const std::string T = cType(in->type.dtype);
  const std::string ns = std::to_string(n);
  const std::string inBase = "line * " + std::to_string(inPoints);
  const std::string outBase = "line * " + std::to_string(outPoints);
  const bool direct = (n & (n - 1)) != 0;

  openParallelLoop(lines, "line");
  line(T + " re[" + ns + "], im[" + ns + "];");
  if (realOut) {
    // The Hermitian extension of the n/2 + 1 points given: X[n - k] = conj(X[k]).
    const std::string half = std::to_string(inPoints);
    open("for (int64_t k = 0; k < " + half + "; ++k)");
    line("re[k] = " + at(in, inBase + " + k") + ";");
    line("im[k] = " + at(op.operands[1], inBase + " + k") + ";");
    close();
    open("for (int64_t k = " + half + "; k < " + ns + "; ++k)");
    line("re[k] = re[" + ns + " - k];");
    line("im[k] = -im[" + ns + " - k];");
    close();
    line("im[0] = (" + T + ")0;");
    if (n % 2 == 0) line("im[" + std::to_string(n / 2) + "] = (" + T + ")0;");
  } else {
    open("for (int64_t k = 0; k < " + ns + "; ++k)");
    line("re[k] = " + at(in, inBase + " + k") + ";");
    line("im[k] = " + (realIn ? "(" + T + ")0" : at(op.operands[1], inBase + " + k")) + ";");
    close();
  }
  if (direct) {
    line(T + " wre[" + ns + "], wim[" + ns + "];");
  } else {
    line(T + "* wre = nullptr;");
    line(T + "* wim = nullptr;");
  }
  line("lf_fft_line<" + T + ">(re, im, " + ns + ", " + (inverse ? "true" : "false") + ", " +
       tableName("cos", n) + ", " + tableName("sin", n) + ", wre, wim);");
  open("for (int64_t k = 0; k < " + std::to_string(outPoints) + "; ++k)");
  line(at(op.result(0), outBase + " + k") + " = re[k];");
  if (!realOut) line(at(op.result(1), outBase + " + k") + " = im[k];");
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
