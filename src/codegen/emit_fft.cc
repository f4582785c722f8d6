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
    line("// twiddles of the " + std::to_string(n) + "-point transforms (codegen/fft_twiddles.h)");
    for (int part = 0; part < 2; ++part) {
      open(std::string(qualifier) + " double " + tableName(part == 0 ? "cos" : "sin", n) + "[" +
           std::to_string(n) + "] =");
      const std::vector<double> table = fftTable(n, part == 1);
      std::string row;
      for (int64_t k = 0; k < n; ++k) {
        char text[40];
        std::snprintf(text, sizeof text, "%a,", table[k]);  // hexadecimal: the double exactly
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

// The lines go to lf_fft_lanes a group of `lanes` at a time (LF_FFT_LANES: a CPU vector of them),
// point-major in the thread's arrays; a group past the last line is zeros, and writes nothing
// back. Where the plan put the lines in scratch (a GPU, long lines), one line at a time there.
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
  const std::string linesText = std::to_string(lines);
  const std::string inBase = "line * " + std::to_string(inPoints);
  const std::string outBase = "line * " + std::to_string(outPoints);
  // No more lanes than lines (rounded up to a power of two): a group of 8 lines in 16 lanes
  // would transform 8 lines of zeros.
  int64_t linesUp = 1;
  while (linesUp < lines) linesUp *= 2;
  const std::string most = "LF_FFT_LANES(" + T + ", " + ns + ")";
  const std::vector<int64_t>& temps = kernel_.opPlan(&op).temps;  // plan::fftLinesInScratch
  const bool inScratch = !temps.empty();
  const std::string lanes = inScratch || lines <= 1
                                ? std::string("1")
                                : "(" + most + " < " + std::to_string(linesUp) + " ? " + most +
                                      " : " + std::to_string(linesUp) + ")";
  const std::string lanesName = "fft_lanes_" + name(op.result(0));

  line("constexpr int64_t " + lanesName + " = " + lanes + ";");
  open("for (int64_t group = LF_TID; group < (" + linesText + " + " + lanesName + " - 1) / " +
       lanesName + "; group += LF_NTHREADS)");
  line("constexpr int64_t W = " + lanesName + ";");
  if (inScratch) {  // the line's own rows of the op's scratch
    line(T + "* re = (" + T + "*)(lf_scratch + " + std::to_string(temps[0]) + ") + group * " +
         std::to_string(2 * n) + ";");
    line(T + "* im = re + " + ns + ";");
  } else {
    line(T + " re[" + ns + " * W], im[" + ns + " * W];");
  }
  open("for (int64_t w = 0; w < W; ++w)");
  line("const int64_t line = group * W + w;");
  open("if (line >= " + linesText + ")");
  open("for (int64_t k = 0; k < " + ns + "; ++k)");
  line("re[k * W + w] = im[k * W + w] = (" + T + ")0;");
  close();
  line("continue;");
  close();
  auto slot = [&](const std::string& k) { return k + " * W + w"; };
  if (realOut) {
    // The Hermitian extension of the n/2 + 1 points given: X[n - k] = conj(X[k]), and the
    // imaginary parts of X[0] and X[n/2] ignored.
    const std::string half = std::to_string(inPoints);
    open("for (int64_t k = 0; k < " + half + "; ++k)");
    line("re[" + slot("k") + "] = " + at(in, inBase + " + k") + ";");
    line("im[" + slot("k") + "] = " + at(op.operands[1], inBase + " + k") + ";");
    close();
    open("for (int64_t k = " + half + "; k < " + ns + "; ++k)");
    line("re[" + slot("k") + "] = " + at(in, inBase + " + " + ns + " - k") + ";");
    line("im[" + slot("k") + "] = -" + at(op.operands[1], inBase + " + " + ns + " - k") + ";");
    close();
    line("im[" + slot("0") + "] = (" + T + ")0;");
    if (n % 2 == 0) line("im[" + slot(std::to_string(n / 2)) + "] = (" + T + ")0;");
  } else {
    open("for (int64_t k = 0; k < " + ns + "; ++k)");
    line("re[" + slot("k") + "] = " + at(in, inBase + " + k") + ";");
    if (!realIn) line("im[" + slot("k") + "] = " + at(op.operands[1], inBase + " + k") + ";");
    close();
  }
  close();
  if (realIn) {  // zeros, as one vector loop rather than a scatter
    open("for (int64_t e = 0; e < " + ns + " * W; ++e)");
    line("im[e] = (" + T + ")0;");
    close();
  }
  if (inScratch) {  // the work space the passes go back and forth to
    line(T + "* wre = (" + T + "*)(lf_scratch + " + std::to_string(temps.at(1)) + ") + group * " +
         std::to_string(2 * n) + ";");
    line(T + "* wim = wre + " + ns + ";");
  } else {
    line(T + " wre[" + ns + " * W], wim[" + ns + " * W];");
  }
  line("lf_fft_lanes<" + T + ", W>(re, im, " + ns + ", " + (inverse ? "true" : "false") + ", " +
       tableName("cos", n) + ", " + tableName("sin", n) + ", wre, wim);");
  open("for (int64_t w = 0; w < W; ++w)");
  line("const int64_t line = group * W + w;");
  line("if (line >= " + linesText + ") break;");
  open("for (int64_t k = 0; k < " + std::to_string(outPoints) + "; ++k)");
  line(at(op.result(0), outBase + " + k") + " = re[k * W + w];");
  if (!realOut) line(at(op.result(1), outBase + " + k") + " = im[k * W + w];");
  close();
  close();
  close();
  barrier();
}

}  // namespace lf::codegen
