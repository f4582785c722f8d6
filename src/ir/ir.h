// The program IR: SSA values with static types (dtype + row-major dims), ops from one closed enum
// with typed attributes, nested regions for control flow and for reducer/comparator computations.
// Tuples do not exist here: every value is one dense array (the frontend flattens them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "support/diagnostic.h"
#include "support/dtype.h"

namespace lf::ir {

struct Type {
  DType dtype = DType::F32;
  std::vector<int64_t> dims;  // empty for a scalar
  int rank() const { return static_cast<int>(dims.size()); }
  int64_t numElements() const;
  int64_t byteSize() const { return numElements() * lf::byteSize(dtype); }
  bool operator==(const Type& o) const { return dtype == o.dtype && dims == o.dims; }
  std::string toString() const;  // "f32[2,3]", "s32[]"
};

enum class OpKind : uint8_t {
  // Leaves.
  Constant,
  Iota,
  // Elementwise unary (result has the operand's shape; Convert/IsFinite/Not change the dtype rule).
  Abs,
  Negate,
  Sign,
  Floor,
  Ceil,
  RoundNearestAfz,
  RoundNearestEven,
  Exp,
  Expm1,
  Log,
  Log1p,
  Sqrt,
  Rsqrt,
  Cbrt,
  Tanh,
  Logistic,
  Sin,
  Cos,
  Tan,
  Erf,
  ReducePrecision,  // ReducePrecisionAttrs: round to a narrower float format, kept in this type
  IsFinite,
  Not,
  Popcnt,
  Clz,
  Convert,
  BitcastConvert,  // elementwise when widths match; otherwise adds/drops the minor-most dim
  // Elementwise binary (operands of one type; Compare gives pred).
  Add,
  Subtract,
  Multiply,
  Divide,
  Remainder,
  Power,
  Maximum,
  Minimum,
  And,
  Or,
  Xor,
  ShiftLeft,
  ShiftRightLogical,
  ShiftRightArithmetic,
  Atan2,
  Compare,
  // Elementwise ternary: select(pred, on_true, on_false), clamp(min, x, max) (min/max may be
  // scalars), fma(x, y, z) = x*y + z rounded once (f32/f64 only; no HLO op: passes/contract.h
  // makes it where XLA's LLVM backend fuses a multiply into an add).
  Select,
  Clamp,
  Fma,
  // Data movement.
  Broadcast,
  Reshape,
  Transpose,
  Slice,
  DynamicSlice,
  DynamicUpdateSlice,
  Concatenate,
  Pad,
  Reverse,
  // Compute.
  Dot,
  Reduce,
  ReduceWindow,
  Gather,
  Scatter,
  SelectAndScatter,
  Sort,
  // Control flow.
  While,
  Conditional,
  // Known custom calls.
  Threefry2x32,
  // Linear algebra on the last two dimensions (the leading ones are a batch).
  Cholesky,
  TriangularSolve,
  Lu,
  LuPivotsToPermutation,
  Qr,
  HouseholderProduct,
  Ormqr,
  Eigh,
  Svd,
  EigValues,
  // A tridiagonal system (the leading dimensions a batch), as LAPACK's gtsv solves it: the
  // factorization, then the substitution into the right-hand sides.
  TridiagonalFactor,
  TridiagonalSolve,
  TridiagonalSolvePerturbed,
  Convolution,
  // A one-dimensional discrete Fourier transform along the last dimension (FftAttrs); complex
  // values are (real, imaginary) pairs of arrays, as the frontend splits every complex array.
  Fft,
  // A host callback (jax.pure_callback, jax.debug.callback / print) inside a conditional branch:
  // Python code the kernel cannot run. The frontend imports it; passes/host_callbacks.h replaces
  // it before any other pass (see Program::hostCallbacks).
  HostCallback,
};

const char* opKindName(
    OpKind k);                 // "add", "dynamic-slice", ... (the HLO spelling where one exists)
bool isElementwise(OpKind k);  // unary, binary, ternary, Convert, same-width BitcastConvert

enum class CompareDirection : uint8_t { EQ, NE, LT, LE, GT, GE };
// FLOAT: IEEE (ordered, NE unordered); TOTALORDER: -NaN < -inf < ... < -0 < +0 < ... < inf < NaN;
// SIGNED/UNSIGNED for integers.
enum class CompareType : uint8_t { Float, TotalOrder, Signed, Unsigned };

// Every attribute struct compares with == (CSE merges ops whose kinds, attributes and operands are
// equal).
struct NoAttrs {
  bool operator==(const NoAttrs&) const = default;
};
struct ConstantAttrs {
  std::vector<uint8_t> bytes;  // row-major, little-endian; pred is one byte 0/1; f16/bf16 raw bits
  bool operator==(const ConstantAttrs&) const = default;
};
struct IotaAttrs {
  int64_t dimension = 0;
  bool operator==(const IotaAttrs&) const = default;
};
struct CompareAttrs {
  CompareDirection direction;
  CompareType type;
  bool operator==(const CompareAttrs&) const = default;
};
struct BroadcastAttrs {
  std::vector<int64_t> dimensions;
  bool operator==(const BroadcastAttrs&) const = default;
};  // operand dim i -> result dim dims[i]
struct TransposeAttrs {
  std::vector<int64_t> permutation;
  bool operator==(const TransposeAttrs&) const = default;
};  // result dim i = operand dim perm[i]
struct SliceAttrs {
  std::vector<int64_t> starts, limits, strides;
  bool operator==(const SliceAttrs&) const = default;
};
struct DynamicSliceAttrs {
  std::vector<int64_t> sizes;
  bool operator==(const DynamicSliceAttrs&) const = default;
};  // operands: array, then one s32/s64 scalar per dim
// DynamicUpdateSlice has no attributes: operands are array, update, then one index scalar per dim.
struct ConcatenateAttrs {
  int64_t dimension = 0;
  bool operator==(const ConcatenateAttrs&) const = default;
};
struct PadAttrs {
  std::vector<int64_t> low, high, interior;
  bool operator==(const PadAttrs&) const = default;
};  // operands: array, padding scalar
struct ReverseAttrs {
  std::vector<int64_t> dimensions;
  bool operator==(const ReverseAttrs&) const = default;
};
struct DotAttrs {
  std::vector<int64_t> lhsBatch, rhsBatch, lhsContracting, rhsContracting;
  bool operator==(const DotAttrs&) const = default;
};
// Reduce: operands are N inputs then N init scalars; regions[0] is the reducer with 2N scalar args
// (acc_0..acc_{N-1}, x_0..x_{N-1}) yielding N scalars; N results.
struct ReduceAttrs {
  std::vector<int64_t> dimensions;
  bool operator==(const ReduceAttrs&) const = default;
};
// ReduceWindow: operands/regions/results as Reduce.
struct ReduceWindowAttrs {
  std::vector<int64_t> sizes, strides, padLow, padHigh, baseDilation, windowDilation;
  bool operator==(const ReduceWindowAttrs&) const = default;
};
struct GatherAttrs {
  std::vector<int64_t> offsetDims, collapsedSliceDims, startIndexMap, operandBatchingDims,
      startIndicesBatchingDims, sliceSizes;
  int64_t indexVectorDim = 0;
  bool indicesAreSorted = false;
  bool operator==(const GatherAttrs&) const = default;
};
// Scatter: operands are N arrays, the indices, N updates; regions[0] is the combiner (2N scalar
// args: current_0..current_{N-1}, update_0..update_{N-1}; N yields); N results.
struct ScatterAttrs {
  std::vector<int64_t> updateWindowDims, insertedWindowDims, scatterDimsToOperandDims,
      inputBatchingDims, scatterIndicesBatchingDims;
  int64_t indexVectorDim = 0;
  bool indicesAreSorted = false;
  bool uniqueIndices = false;
  bool operator==(const ScatterAttrs&) const = default;
};
// SelectAndScatter (max pooling's gradient): operands are the operand, the source (one element per
// window) and the init scalar; regions[0] is select (two operand scalars -> pred, true when the
// first stays selected), regions[1] is scatter (two scalars -> one); one result, the operand's
// shape, every element init until the source elements are scattered onto each window's selected
// element. XLA has no dilation here.
struct SelectAndScatterAttrs {
  std::vector<int64_t> sizes, strides, padLow, padHigh;
  bool operator==(const SelectAndScatterAttrs&) const = default;
};
// Sort: N operands of one shape; regions[0] is the comparator (2N scalar args: a_0, b_0, a_1, b_1,
// ...; yields one pred, true when a goes first); N results.
struct SortAttrs {
  int64_t dimension = 0;
  bool isStable = false;
  bool operator==(const SortAttrs&) const = default;
};
// While: N operands (initial state); regions[0] = condition (N args, yields one pred[]),
// regions[1] = body (N args, N yields); N results.
// Conditional: operands[0] is the selector (pred[]: regions are {false, true}... see below), then
// the operands of each branch in order; regions[k] is branch k with branchOperandCounts[k] args;
// every branch yields the N results. For a pred selector, branch 0 runs when it is TRUE (HLO's
// true_computation) and branch 1 when FALSE; for an s32 index, out-of-range runs the last branch.
struct ConditionalAttrs {
  std::vector<int> branchOperandCounts;
  bool predicateSelector = false;
  bool operator==(const ConditionalAttrs&) const = default;
};
// Threefry2x32: operands (k0, k1, x0, x1), all u32 of one shape; results (out0, out1), elementwise.
// Convolution: operands (lhs, rhs), XLA's convolution: the dimension numbers say which dimension of
// each is the batch / feature / spatial one (rhs: input feature, output feature, spatial), the
// window (one entry per spatial dimension) its size, stride, padding and lhs / rhs dilation.
// featureGroupCount G splits lhs's features and rhs's output features into G groups (depthwise
// when G is the feature count). out[b, o, s...] = sum over window positions k and the group's
// input features c of lhs[b, g*C + c, s*stride + k*rhs_dilation - pad_low (in lhs-dilated
// coordinates)] * rhs[c, o, k], g = o / (O / G).
struct ConvolutionAttrs {
  int64_t lhsBatch = 0, lhsFeature = 1, rhsInput = 0, rhsOutput = 1, outBatch = 0, outFeature = 1;
  std::vector<int64_t> lhsSpatial, rhsSpatial, outSpatial;
  std::vector<int64_t> sizes, strides, padLow, padHigh, lhsDilation, rhsDilation;
  int64_t featureGroupCount = 1;
  bool operator==(const ConvolutionAttrs&) const = default;
};
// Cholesky: operand a [..., n, n] (f32/f64); results (factor of a's type, info s32[...]). With
// `lower`, factor's lower triangle (diagonal included) is L with a = L L^T, read from a's lower
// triangle; otherwise its upper triangle is U with a = U^T U. The other triangle keeps a's values.
// info is 0, or the 1-based order of the first leading minor that is not positive definite (the
// factor is then unspecified), as LAPACK's potrf reports it.
// Fft along the last dimension, n = length points (the leading dimensions are a batch):
//   Forward:  (re, im)[..., n] -> (re, im)[..., n], X[k] = sum_j x[j] e^(-2 pi i jk/n)
//   Inverse:  (re, im)[..., n] -> (re, im)[..., n], x[j] = 1/n sum_k X[k] e^(+2 pi i jk/n)
//   RealForward:  re[..., n] -> (re, im)[..., n/2+1], the forward transform's first n/2+1 points
//   RealInverse:  (re, im)[..., n/2+1] -> re[..., n], the inverse of the Hermitian spectrum those
//                 points extend to (the imaginary parts of points 0 and n/2 are ignored)
// XLA's FFT, IFFT, RFFT, IRFFT along one dimension; the frontend makes a multi-dimensional one
// from these, one dimension at a time.
enum class FftKind : uint8_t { Forward, Inverse, RealForward, RealInverse };
// The longest line loopfuse transforms: the kernel keeps a line in the thread's own arrays (the
// stack on the CPU, local memory on a GPU). The frontend reports a longer one as unsupported.
inline constexpr int64_t kMaxFftLength = 16384;
struct FftAttrs {
  FftKind kind = FftKind::Forward;
  int64_t length = 0;
  bool operator==(const FftAttrs&) const = default;
};
struct CholeskyAttrs {
  bool lower = true;
  bool operator==(const CholeskyAttrs&) const = default;
};
// TriangularSolve: operands a [..., m, m] (only its `lower` or upper triangle is read; with
// unitDiagonal, not its diagonal either, taken as ones) and b [..., m, n] (leftSide) or [..., n,
// m]; result x of b's type with op(a) x = b (leftSide) or x op(a) = b, op(a) = a or a^T (or
// conj(a^T) with conjugateA).
// Complex Cholesky, TriangularSolve and Lu: every complex matrix is two operands (or results),
// its real and its imaginary part, in place of the one: cholesky (a_re, a_im) -> (f_re, f_im,
// info) (a Hermitian, f = L with a = L L^H, or U with a = U^H U); triangular-solve (a_re, a_im,
// b_re, b_im) -> (x_re, x_im); lu (a_re, a_im) -> (lu_re, lu_im, pivots, info), the pivot the
// largest |re| + |im| (LAPACK's izamax).
// Lu: operand a [..., m, n] (f32/f64); results (lu of a's type, pivots s32[..., min(m, n)],
// info s32[...]): LAPACK's getrf, partial pivoting. lu holds L below the diagonal (unit diagonal
// implied) and U on and above it, with P a = L U; pivots[i] (1-based, as LAPACK) is the row swapped
// with row i at step i; info is 0, or the 1-based index of the first zero pivot.
// LuPivotsToPermutation: operand pivots s32[..., k] (0-based); result s32[..., m]: iota(m) with
// entries i and pivots[i] swapped for i = 0, 1, ..., k-1 in turn.
// Qr: operand a [..., m, n] (f32/f64); results (a's type, taus [..., min(m, n)]): LAPACK's geqrf,
// R on and above the diagonal, the Householder vectors' tails below it (their heads are 1), and
// their scalars. HouseholderProduct: operands (a [..., m, n], taus [..., k]) with m >= n >= k;
// result of a's type: the first n columns of Q = H(0) ... H(k-1) (LAPACK's orgqr).
// Eigh: operand a [..., n, n] (f32/f64, its lower triangle read); results (vectors of a's type,
// values [..., n], info s32[...]): LAPACK's syevd, eigenvalues ascending with eigenvector j in
// column j; info 0, or > 0 when the iteration did not converge (the results are then unspecified).
// Svd (SvdAttrs): operand a [..., m, n] (f32/f64); results (a's type: LAPACK's destroyed a,
// unspecified, the working copy; values [..., k] descending, k = min(m, n); with computeUv the left
// vectors u [..., m, k] (m x m with fullMatrices) and the right ones vt [..., k, n] (n x n); info
// s32[...]): LAPACK's gesdd, a = u diag(values) vt; info 0, -4 for a NaN in a, or > 0 when the
// iteration did not converge (the results are then unspecified).
// EigValues: operand a [..., n, n] (f32/f64, any matrix); results (a's type: LAPACK's destroyed
// a, unspecified, the working copy; wr [..., n] and wi [..., n], the eigenvalues' real and
// imaginary parts; info s32[...]): LAPACK's geev with no vectors, the eigenvalues in the order of
// its Schur form, a complex pair positive imaginary part first; info 0, or > 0 when the iteration
// did not converge or a is not finite (the values are then unspecified). n <= kGeevMaxRows.
// Ormqr (operands a [..., nq, n] holding k reflectors in its columns as geqrf leaves them, taus
// [..., k], c [..., m, n']; one result, c's type): LAPACK's ormqr, Q = H(0) ... H(k-1) applied to
// c: Q c, Q^T c (left, nq = m), c Q, c Q^T (right, nq = n').
// TridiagonalFactor: operands (dl, d, du), each [..., n] (f32/f64): the sub-diagonal (dl[i] =
// A[i][i-1], dl[0] unread), the diagonal and the super-diagonal (du[i] = A[i][i+1], du[n-1]
// unread); results (dl', d', du', multipliers of their type, steps u8[..., n], info s32[...]):
// LAPACK's gtsv elimination with partial pivoting, step k eliminating row k+1 with multiplier
// multipliers[k]: steps[k] is kTridiagonalEliminate, kTridiagonalSwap (rows k and k+1 swapped
// first) or kTridiagonalSkip (cgtsv/zgtsv: dl[k+1] = 0, nothing to eliminate). d' and du' are U's
// diagonal and first super-diagonal, dl'[k+1] its second super-diagonal (the fill-in of a swap,
// else 0, as gtsv leaves dl); info is 0, or the 1-based row of the first zero pivot, where gtsv
// stops (the later entries keep their inputs). Complex diagonals (cgtsv, zgtsv): each of dl, d,
// du, dl', d', du' and multipliers is two values, its real and imaginary parts.
// TridiagonalSolve: operands (dl', d', du', multipliers, steps, info) as TridiagonalFactor gives
// them and b [..., n, k] (two parts when complex); result x of b's type (two parts): gtsv's
// solution of A x = b, each column on its own. With info != 0 x is b after the eliminations gtsv
// made before it stopped (no back solve).
// TridiagonalSolvePerturbed: operands (dl, d, du) [..., n] (f32/f64) and b [..., n, k]; result x
// of b's type: jax's own kernel for tridiagonal_solve(perturb_singular=True) (jaxlib's
// tridiagonal_solve_perturbed.h, after LAPACK's lagtf/lagts): a scaled partial pivoting, and
// pivots below eps max|U| perturbed (or the row scaled) so that a singular system (T - lambda I
// in inverse iteration) gives a finite solution. The perturbation of a row reads all k columns.
inline constexpr int64_t kTridiagonalPerturbedMaxElements = 16384;  // 3 n + k, the local work
inline constexpr uint8_t kTridiagonalEliminate = 0;
inline constexpr uint8_t kTridiagonalSwap = 1;
inline constexpr uint8_t kTridiagonalSkip = 2;
struct OrmqrAttrs {
  bool left = true;
  bool transpose = false;
  bool operator==(const OrmqrAttrs&) const = default;
};
// gesdd's bidiagonal solver (bdsdc) runs lasdq (bdsqr) up to this min(m, n), and divide and
// conquer past it when vectors are wanted (lf_svd_dc.h). Values alone (computeUv false) past it
// skip gesdd's QR or LQ first (the values do not depend on the path).
inline constexpr int64_t kSvdLapackPathMaxRank = 25;
// The largest min(m, n) of an svd op, with or without vectors: one thread decomposes each matrix.
inline constexpr int64_t kSvdValuesMaxRank = 1024;
// The largest EigValues matrix: geev's Hessenberg QR (lahqr) runs up to 75 rows; LAPACK takes
// another algorithm (laqr0) above, with the eigenvalues in another order (LF_GEEV_MAX_ROWS).
inline constexpr int64_t kGeevMaxRows = 75;
struct SvdAttrs {
  bool computeUv = true;
  bool fullMatrices = false;
  bool operator==(const SvdAttrs&) const = default;
};
struct TriangularSolveAttrs {
  bool leftSide = true;
  bool lower = true;
  bool unitDiagonal = false;
  bool transposeA = false;
  bool conjugateA = false;  // complex a only: op(a) = conj(a^T) (LAPACK 'C', XLA's ADJOINT)
  bool operator==(const TriangularSolveAttrs&) const = default;
};

// ReducePrecision: the operand's value rounded to nearest-even at `mantissaBits`, then flushed to
// +-0 / +-inf outside the normal range of an `exponentBits`-bit exponent; NaN unchanged.
struct ReducePrecisionAttrs {
  int exponentBits = 8;
  int mantissaBits = 23;
  bool operator==(const ReducePrecisionAttrs&) const = default;
};

// HostCallback: any operands and results (the callback's arguments and results); `target` is the
// custom-call target (xla_ffi_python_cpu_callback, ...), `hasSideEffect` XLA's
// custom_call_has_side_effect (jax.debug.callback and print; false for pure_callback).
struct HostCallbackAttrs {
  std::string target;
  bool hasSideEffect = false;
  bool operator==(const HostCallbackAttrs&) const = default;
};

using Attrs =
    std::variant<NoAttrs, ConstantAttrs, IotaAttrs, CompareAttrs, BroadcastAttrs, TransposeAttrs,
                 SliceAttrs, DynamicSliceAttrs, ConcatenateAttrs, PadAttrs, ReverseAttrs, DotAttrs,
                 ReduceAttrs, ReduceWindowAttrs, GatherAttrs, ScatterAttrs, SelectAndScatterAttrs,
                 SortAttrs, ConditionalAttrs, CholeskyAttrs, TriangularSolveAttrs, ConvolutionAttrs,
                 ReducePrecisionAttrs, HostCallbackAttrs, FftAttrs, SvdAttrs, OrmqrAttrs>;

struct Op;
struct Region;

struct Value {
  Type type;
  Op* def = nullptr;        // the op that produces it; nullptr for a region argument
  Region* argOf = nullptr;  // the region whose argument it is; nullptr for op results
  int index = 0;            // result index in def, or argument index in argOf
  std::string name;         // hint from the HLO instruction name (for printing and errors)
};

struct Region {
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Op>> ops;  // in a valid execution order
  std::vector<Value*> yields;            // what the region returns
  Op* parent = nullptr;                  // nullptr for the program's top-level region

  Value* addArg(Type type, std::string name = "");
  // Appends an op with the given results; returns it. Sets parents and result back-pointers.
  Op* append(OpKind kind, std::vector<Value*> operands, std::vector<Type> resultTypes,
             Attrs attrs = NoAttrs{}, SourceLoc loc = {}, std::string name = "");
};

// Ops may use values defined earlier in their own region or in any enclosing region (the frontend
// produces closed regions; passes such as LICM may create uses of enclosing values).
struct Op {
  OpKind kind;
  std::vector<Value*> operands;
  std::vector<std::unique_ptr<Value>> results;
  Attrs attrs;
  std::vector<std::unique_ptr<Region>> regions;
  Region* parent = nullptr;
  SourceLoc loc;     // of the HLO instruction
  std::string name;  // the HLO instruction name
  // Set by loop-invariant code motion: the name of the loop this op was moved out of (innermost
  // first when it left several), shown by `loopfuse explain`.
  std::string hoistedFrom;

  Value* result(int i = 0) const { return results[i].get(); }
  template <class T>
  const T& attr() const {
    return std::get<T>(attrs);
  }
  template <class T>
  T& attr() {
    return std::get<T>(attrs);
  }
  Region* addRegion();
};

// The region `v` is defined in: its op's region, or the region whose argument it is.
Region* definingRegion(const Value* v);
// Whether `v` is defined inside one of `op`'s regions, at any depth.
bool definedInside(const Value* v, const Op& op);

// A new op that belongs to no region yet: the caller inserts it into `Region::ops` and sets its
// parent (Region::append builds its ops with it and appends them; passes insert in the middle).
std::unique_ptr<Op> makeOp(OpKind kind, std::vector<Value*> operands, std::vector<Type> resultTypes,
                           Attrs attrs = NoAttrs{}, SourceLoc loc = {}, std::string name = "");

// A host callback the program may reach, as passes/host_callbacks.h records it.
struct HostCallbackSite {
  std::string name;    // the HLO instruction, e.g. "pure_callback.2"
  std::string target;  // the custom-call target
  SourceLoc loc;
  bool hasSideEffect = false;
};

struct Program {
  std::string name;  // the HLO module name
  Region body;       // args: entry parameters in order; yields: the flattened outputs
  std::vector<std::string> outputNames;  // one per yield, e.g. "output_0"
  // Non-empty once passes/host_callbacks.h has replaced the program's host callbacks: the last
  // yield is then the host-callback status, an s32[] that is 0 when the run reached none, else the
  // 1-based index here of the first one it reached (the run's other outputs are then meaningless;
  // the caller runs the program with XLA instead).
  std::vector<HostCallbackSite> hostCallbacks;
  // Set by passes/pipeline.h once the passes that read the program as JAX wrote it (divide,
  // excess-precision) have run: a second run of the pipeline, on a batch group's program made
  // from the first run's result, skips them.
  bool importedFormPassesRun = false;
};

// Checks types, operand counts, attribute ranges and dominance. Empty when valid.
std::vector<Diagnostic> verify(const Program& program);
// A stable text form (values renumbered in order), used by golden tests and `loopfuse ir`.
std::string print(const Program& program);

}  // namespace lf::ir
