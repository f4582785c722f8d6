// The emitter's internals: one Emitter walks the planned program and writes SPMD C++ code, one
// member function per op family (defined in emit_*.cc). Every array op becomes a loop
//   for (int64_t i = LF_TID; i < N; i += LF_NTHREADS) { out[i] = f(in[...]); }  LF_BARRIER();
// and loop control runs in every thread (uniform), so the code is right for 1 thread or many.
// Values the plan fuses have no loop of their own: `at()` computes their elements inside the
// consumer's loop. Locals (small values) are computed whole by every thread.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/emit.h"
#include "plan/convolution_pack.h"
#include "plan/fusion.h"
#include "plan/plan.h"

namespace lf::codegen {

// The C++ spelling of an element type in emitted code ("float", "lf_bf16", "uint32_t", ...).
std::string cType(DType t);
// Row-major strides of dims (in elements).
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims);

// The parts of an EmittedKernel that come from the program's signature (entry name, inputs,
// outputs) and the scratch size.
EmittedKernel describe(const ir::Program& program, Target target, int64_t scratchBytes);
// `defines` (mode macros) followed by the target's prelude and the common one.
std::string withPrelude(const std::string& defines, Target target);

// Per program input: whether the output copies at the end of `kernel` may read it (an output
// computed from it on the fly, through fused expressions and aliases): then no output may take
// its buffer (EmittedKernel::aliasSafeInputs).
std::vector<bool> inputsReadByOutputCopies(const plan::Kernel& kernel);

// The kernel of a batch-mapped program (emit_batch.cc), or why the program is not batch-mapped.
struct BatchAttempt {
  std::optional<EmittedKernel> kernel;
  std::string why;
};
BatchAttempt emitBatched(const ir::Program& program, Target target,
                         const plan::PlanOptions& options);

// How a batch-mapped kernel (batch/batch.h) lays its chains out: the planned kernel is the program
// of one group of chains, and the entry runs it once per group.
struct BatchLayout {
  int64_t chains = 0;
  int64_t group = 1;              // chains per group
  std::vector<int> inputDims;     // per original input: 0 when batched (leading), else -1
  std::vector<int> outputDims;    // per output: its batch dimension, or -1 (chain 0 writes it)
  std::vector<ir::Type> outputs;  // the whole outputs' types
  int chainInput = -1;            // the group program's argument: the group's first chain
  int cpuThreads = 1;             // CPU: threads that share out the groups
  bool chainPerBlock = false;     // CUDA: one block per chain (else one thread per chain)
  int64_t scratchPerSlot = 0;     // bytes of scratch each group (CUDA) or thread (CPU) owns
};

struct DotTileNest;          // emit_dot_tiles.cc
struct ConvolutionTileNest;  // emit_convolution_tiles.cc
// Whether a dot runs as the CPU's register tiles of vectors, reading the rhs in place or from a
// transposed copy, or of scalars for a few columns (emit_dot_tiles.cc).
enum class DotTiling : uint8_t { None, InPlace, Packed, Scalar };

class Emitter {
 public:
  Emitter(const plan::Kernel& kernel, Target target, const BatchLayout* batch = nullptr);
  // The kernel part of the translation unit (everything after the preludes).
  std::string kernelSource(const std::string& entryName);
  // After kernelSource: the stages that share a loop, for `loopfuse explain` (empty if none).
  std::string mergedLoopsText() const;
  // After kernelSource: the form each dot runs in on the CPU (empty on CUDA or without dots).
  std::string dotFormsText() const;
  // After kernelSource: whether every CPU element loop fits 512-bit vectors and some are long
  // enough to gain from them (kCpuWideVectorsDefine).
  bool prefersWideVectors() const;

 private:
  // ---- Text.
  void line(const std::string& text);
  void open(const std::string& text);  // writes `text {` and indents
  void close(const std::string& suffix = "");
  // Opens the SPMD loop `for (int64_t <var> = LF_TID; <var> < n; ...)`. With a row length (the
  // result's last dimension), a CPU kernel of one thread opens it as two loops instead, rows
  // outside and the row's elements inside, `i` then their linear index (see RowSplit).
  void openParallelLoop(int64_t n, const std::string& var = "i", int64_t rowLength = 0);
  // The row length the element loop over a value of `dims` splits into (0: a flat loop).
  int64_t rowLengthFor(const std::vector<int64_t>& dims) const;
  // Opens the loop over the elements of `out`: split over the threads when `out` is in memory,
  // every element in every thread when it is a local (each thread keeps its own copy).
  void openElementLoop(const ir::Value* out, const std::string& var = "i");
  void openElementLoop(const ir::Value* out, int64_t n, const std::string& var = "i");
  // The SPMD loop over n elements of v, in rows where rowLengthFor(v's dims) says so.
  void openRowLoop(const ir::Value* v, int64_t n, const std::string& var = "i");
  // Records an element loop whose inner loop runs `trip` elements of `dtype` (prefersWideVectors).
  void noteVectorLoop(int64_t trip, DType dtype);
  // The barrier after a stage, left out when every result is a local of each thread.
  void endStage(const ir::Op& op);
  // Declares <prefix>0..<prefix>{r-1}, the multi-index of the linear index `var` in `dims`; with
  // `used`, only the components marked there.
  void declareMultiIndex(const std::vector<int64_t>& dims, const std::string& var,
                         const std::string& prefix, const std::vector<bool>& used = {});
  void barrier();
  void comment(const ir::Op& op);

  // ---- Names and storage.
  std::string name(const ir::Value* v);  // the C identifier of a value (pointer or scalar local)
  std::string at(const ir::Value* v, const std::string& index);  // element read / write
  std::string scalar(const ir::Value* v);  // element 0, or the local of a scalar region value
  // The element `index` of a fused value: emits its computation (and its fused operands') as
  // locals of the current block, once per block and index, and returns the local.
  std::string fusedElement(const ir::Value* v, const std::string& index);
  // An element's index in its value: the linear (row-major) one, or one expression per dimension,
  // or both. Index-only fused ops (broadcast, slice, transpose, ...) map the parts straight to
  // their operand's, so a chain of them never splits an index it has just linearised.
  struct ElementIndex {
    std::string linear;              // empty: not known, linearise `parts`
    std::vector<std::string> parts;  // empty: not known, split `linear`
  };
  std::string at(const ir::Value* v, const ElementIndex& index);
  std::string fusedElement(const ir::Value* v, const ElementIndex& index);
  // The multi-index of the linear index `index` in `dims`, as expressions (size-1 dims, and dims
  // not marked in `used` when given, give "0").
  std::vector<std::string> splitIndex(const std::vector<int64_t>& dims, const std::string& index,
                                      const std::vector<bool>& used = {});
  std::string nextName(const ir::Value* state);  // the idle buffer of a ping-pong While state
  bool isLocal(const ir::Value* v) const;
  // Whether `at(v, ...)` names an element of an array in memory, so that its address can be taken.
  bool isAddressable(const ir::Value* v) const;
  static std::string linear(const std::vector<int64_t>& dims, const std::vector<std::string>& idx);
  // The index expression `x` of integer type `t` as an int64 clamped to [0, hi].
  static std::string clampedIndex(const std::string& x, DType t, int64_t hi);

  // ---- Program structure (emit.cc).
  void emitConstants();
  void emitPointers();
  void declarePointer(const ir::Value* v);
  void emitRegion(const ir::Region& region);
  void emitOp(const ir::Op& op);
  void emitCopy(const ir::Value* to, const ir::Value* from);               // whole buffer
  void emitCopyToOffset(const std::string& toPtr, const ir::Value* from);  // raw pointer target
  void emitOutputs();  // copies the program's yields to the output pointers

  // ---- Batch mapping (emit_batch.cc): the chain's view of inputs and outputs, the entry.
  std::string batchedInputPointer(const ir::Value* v, int input);
  void emitChainOutput(size_t k);
  std::string batchedKernelSource(const std::string& entryName, const std::string& pointers,
                                  const std::string& body);

  // ---- Loop merging (emit_merge.cc): consecutive elementwise stages over the same number of
  // elements share one loop and one barrier when each reads the others' results at its own index.
  // Inside the loop each member's element is also a local, which later members read instead of
  // the buffer; a result that only members read directly loses its store (and its buffer's use).
  struct MergedLoop {
    int64_t n = 0;
    std::unordered_set<const ir::Op*> members;
    std::vector<std::string> memberNames;          // in emission order, for `loopfuse explain`
    std::unordered_set<const ir::Value*> written;  // the members' results
    std::unordered_map<const ir::Value*, std::string> locals;      // result -> its element's local
    std::vector<std::pair<const ir::Value*, std::string>> stores;  // result -> its store line
  };
  bool isMergeableStage(const ir::Op& op) const;
  void emitMergeableStage(const ir::Op& op);
  void emitMergeableStageBody(const ir::Op& op);
  // Writes element i of `out` (a stage's result): `out[i] = expr;`, through a local in a merged
  // loop. `expr` may be empty when `local` is already assigned (threefry's out-parameters).
  void storeElement(const ir::Value* out, const std::string& expr, const std::string& local = "");
  void closeMergedLoop();  // ends the open merged loop (and its stage) if there is one
  bool onlyMembersRead(const ir::Value* v);  // every use of v is a member's operand
  bool mergeStages();                        // on unless LOOPFUSE_MERGE_STAGES=0

  // ---- Op families.
  void emitElementwise(const ir::Op& op);      // emit_elementwise.cc
  void emitElementwiseBody(const ir::Op& op);  // inside a loop over `i`
  void emitThreefry(const ir::Op& op);
  void emitThreefryBody(const ir::Op& op);
  void emitIota(const ir::Op& op);  // emit_movement.cc
  void emitBroadcast(const ir::Op& op);
  void emitTranspose(const ir::Op& op);
  void emitSlice(const ir::Op& op);
  void emitConcatenate(const ir::Op& op);
  void emitRowConcatenate(const ir::Op& op);
  void emitPad(const ir::Op& op);
  void emitReverse(const ir::Op& op);
  void emitDynamicSlice(const ir::Op& op);  // emit_indexing.cc
  void emitDynamicUpdateSlice(const ir::Op& op);
  void emitGather(const ir::Op& op);
  void emitScatter(const ir::Op& op);
  void emitDot(const ir::Op& op);  // emit_dot.cc
  void emitDotByRows(const ir::Op& op, int64_t lhsFree);
  void emitDotTiled(const ir::Op& op, int64_t lhsFree);
  DotTiling dotTiling(const ir::Op& op, int64_t lhsFree) const;  // emit_dot_tiles.cc
  void emitDotRegisterTiles(const ir::Op& op, int64_t lhsFree, DotTiling tiling);
  void emitDotScalarTiles(const ir::Op& op, int64_t lhsFree);
  void noteDotForm(const ir::Op& op, const std::string& form);  // for dotFormsText
  void emitDotTileNest(const ir::Op& op, int64_t lhsFree, const DotTileNest& nest);
  void declareAccumulators(const ir::Op& op);
  void accumulateAndStore(const ir::Op& op, const ElementIndex& in);
  void foldIntoAccumulators(const ir::Op& op, const std::string& element, const ElementIndex& in);
  void emitReduce(const ir::Op& op);
  bool reducesColumns(const ir::Op& op) const;
  void emitReduceColumns(const ir::Op& op, const std::vector<int64_t>& reducedSizes,
                         const std::vector<std::string>& inIdx);
  void emitReduceWindow(const ir::Op& op);
  void emitSelectAndScatter(const ir::Op& op);
  void emitSort(const ir::Op& op);  // emit_sort.cc
  void copyMatrix(const ir::Value* to, const ir::Value* from, const std::string& base,
                  int64_t elements);           // emit_linalg.cc
  void emitCholesky(const ir::Op& op);         // emit_linalg.cc
  void emitTriangularSolve(const ir::Op& op);  // emit_linalg.cc
  // Complex arrays as (real, imaginary) pairs: an element read as an lf_cx, and `value` (an lf_cx
  // name) stored part by part (emit_linalg_complex.cc).
  std::string complexAt(const ir::Value* re, const ir::Value* im, const std::string& index);
  void storeComplex(const ir::Value* re, const ir::Value* im, const std::string& index,
                    const std::string& value);
  void emitComplexCholesky(const ir::Op& op);         // emit_linalg_complex.cc
  void emitComplexTriangularSolve(const ir::Op& op);  // emit_linalg_complex.cc
  void emitComplexLu(const ir::Op& op);               // emit_linalg_complex.cc
  void emitConvolution(const ir::Op& op);             // emit_convolution.cc
  // The lhs index of output element outIdx at window position w0, w1, ... (declared): declares
  // the position p<suffix>_<d> in the padded, dilated lhs, the flag `valid` (an lhs element is
  // there) and the index x<suffix>_<d> read (0 where not valid). The feature dim is left empty.
  std::vector<std::string> convolutionWindowIndex(const ir::Op& op,
                                                  const std::vector<std::string>& outIdx,
                                                  const std::string& suffix,
                                                  const std::string& valid);
  bool convolutionTiled(const ir::Op& op) const;  // emit_convolution_tiles.cc
  void emitConvolutionTiles(const ir::Op& op);
  void emitConvolutionTileNest(const ir::Op& op, const ConvolutionTileNest& nest);
  void emitConvolutionPixels(const ir::Op& op,
                             const plan::ConvolutionPack& pack);  // emit_convolution_pixels.cc
  void emitConvolutionPixelTiles(const ir::Op& op, const plan::ConvolutionPack& pack,
                                 int vectorBytes);
  void emitLu(const ir::Op& op);  // emit_linalg.cc
  void emitQr(const ir::Op& op);  // emit_linalg_qr_eigh.cc
  void emitHouseholderProduct(const ir::Op& op);
  void emitOrmqr(const ir::Op& op);          // emit_linalg_qr_eigh.cc
  void emitEigh(const ir::Op& op);           // emit_linalg_qr_eigh.cc
  void emitHermitianEigh(const ir::Op& op);  // emit_linalg_qr_eigh.cc
  void declareEighWork(const ir::Op& op, const std::string& T, const std::string& macro);
  void emitComplexQr(const ir::Op& op);  // emit_linalg_qr_eigh.cc
  void emitComplexHouseholderProduct(const ir::Op& op);
  void emitSvd(const ir::Op& op);                // emit_linalg_svd.cc
  void emitEigValues(const ir::Op& op);          // emit_linalg_eig.cc
  void emitComplexSvdValues(const ir::Op& op);   // emit_linalg_svd.cc
  void emitTridiagonalFactor(const ir::Op& op);  // emit_tridiagonal.cc
  // An element of one real array or of a complex one's (real, imaginary) parts, as an expression
  // (lf_cx for complex), and its store (emit_tridiagonal.cc).
  std::string fieldAt(const std::vector<const ir::Value*>& parts, const std::string& index);
  void storeField(const std::vector<const ir::Value*>& parts, const std::string& index,
                  const std::string& value);
  void emitTridiagonalSolve(const ir::Op& op);           // emit_tridiagonal.cc
  void emitTridiagonalSolvePerturbed(const ir::Op& op);  // emit_tridiagonal_perturbed.cc
  void emitFft(const ir::Op& op);                        // emit_fft.cc
  void emitFftTables();                            // emit_fft.cc: the twiddles, once per length
  void emitPivotsToPermutation(const ir::Op& op);  // emit_linalg.cc
  void emitReshape(const ir::Op& op);
  void emitWhile(const ir::Op& op);  // emit_control.cc
  bool writesMemory(const ir::Region& region) const;
  void emitConditional(const ir::Op& op);

  // ---- Scalar code (emit_scalar.cc).
  // The C expression of an elementwise op applied to operand expressions.
  std::string scalarExpr(const ir::Op& op, const std::vector<std::string>& args);
  // Emits a scalar region inline: binds its arguments to `args`, declares one local per op, and
  // returns the expressions of its yields. Call inside a `{ }` block.
  std::vector<std::string> emitScalarRegion(const ir::Region& region,
                                            const std::vector<std::string>& args);

  const plan::Kernel& kernel_;
  Target target_;
  const BatchLayout* batch_ = nullptr;
  std::ostringstream out_;
  int indent_ = 0;
  std::unordered_map<const ir::Value*, std::string> names_;
  std::unordered_set<std::string> usedNames_;
  int uniqueCounter_ = 0;
  // Fused elements already computed, per open block: (value, index) -> local.
  std::vector<std::unordered_map<std::string, std::string>> fusedMemo_{1};
  std::optional<MergedLoop> merged_;
  // The element loop over i split into rows: `for (i_r ...) for (i_c = 0; i_c < rowLength; ...)`,
  // i = i_r * rowLength + i_c. splitIndex writes the multi-index of i from i_r and i_c, so a
  // broadcast row (a bias) reads b[i_c], contiguous in the inner loop, where a flat loop reads
  // b[i % C], a gather that GCC cannot check for aliasing and so does not vectorize. One entry
  // per open loop over i (rowLength 0: a flat one), with the block depth it was opened at.
  struct RowSplit {
    int64_t rowLength = 0;
    size_t depth = 0;
  };
  std::vector<RowSplit> rowSplits_;
  bool wideVectorsFit_ = true;   // no element loop of a length 512-bit vectors leave a tail in
  bool wideVectorsPay_ = false;  // some element loop of at least four 512-bit vectors
  std::vector<std::string> dotForms_;                  // noteDotForm
  std::vector<std::vector<std::string>> mergedLoops_;  // closed loops of two or more members
  std::optional<int64_t> mergeStages_;
  std::optional<std::unordered_map<const ir::Value*, std::vector<plan::Use>>> uses_;
  // While set, at() notes here every buffer element it reads: (value, index expression).
  std::vector<std::pair<const ir::Value*, std::string>>* readLog_ = nullptr;
};

}  // namespace lf::codegen
