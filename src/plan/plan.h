// The execution plan of a program: where every value lives and how each op runs.
//
// Storage of a value is one of: an input pointer; a slot of the one scratch arena; a constant
// table; an alias of another value's buffer (reshape, bitcast, region arguments); a local of the
// generated function (small values: registers, computed redundantly by every thread, so they need
// no barrier); or nothing at all, when the value is fused: every consumer computes the element it
// needs from the value's operands, in registers (chains of elementwise and index-only ops).
//
// Loop state never moves by copy where it can be avoided: a While's large state buffers come in
// pairs (ping-pong), the body's producer of a new state writes straight into the idle buffer and
// the two are swapped; a dynamic-update-slice whose array has no other reader (a scan's stacked
// outputs) writes its update in place. The emitter only follows this plan.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "support/target.h"

namespace lf::plan {

enum class StorageKind : uint8_t {
  Input,     // a program parameter, read through the input pointer
  Scratch,   // a slot of the scratch arena
  Constant,  // a static table in the emitted source
  Alias,   // the buffer of another value (reshape, bitcast, region arguments of While/Conditional)
  Scalar,  // a local variable inside scalar region code (reducer, comparator, combiner)
  Local,   // a local array (or scalar) of the generated function, written by every thread
  Fused,   // no storage: consumers compute its elements inline
  NextState,  // the idle (ping-pong) buffer of While state `root`: the body's new state
};

struct Storage {
  StorageKind kind = StorageKind::Scratch;
  int input = -1;                   // Input: the parameter index
  int64_t offset = 0;               // Scratch: byte offset in the arena (64-byte aligned)
  int64_t nextOffset = -1;          // Scratch While result: the offset of its ping-pong partner
  const ir::Value* root = nullptr;  // Alias: the value whose buffer this is; NextState: the state
};

// How one piece of While state gets its value for the next iteration.
enum class StateUpdate : uint8_t {
  Unchanged,  // the body yields the state itself
  InPlace,    // a dynamic-update-slice wrote its update into the state buffer
  Produced,   // the op that computes the new state wrote it into the idle buffer; swap
  Evaluated,  // a fused expression is computed into the idle buffer; swap
  Copied,     // an existing buffer is copied into the idle buffer; swap (a per-iteration copy)
  Register,   // small state in locals: the compiler keeps it in registers
};
const char* stateUpdateName(StateUpdate u);

// Whether an fft's lines are transformed in scratch memory, one line per SPMD iteration, rather
// than in arrays of the thread's own: on a GPU (local memory is reserved for every thread the
// device can hold) and for lines longer than 4096 points (the CPU's stack).
inline bool fftLinesInScratch(const ir::Op& op, Target target) {
  return target == Target::Cuda || op.attr<ir::FftAttrs>().length > 4096;
}

// eigh's workspace (lf_linalg.h's LF_SYEVD_WORK / LF_SYEVD_IWORK, lf_linalg_complex.h's
// LF_HEEVD_WORK for a complex matrix): elements of the matrix's real type, and int32s. The
// divide and conquer above 25 rows (LF_STEDC_SMLSIZ) needs about 3 n^2 elements (4 n^2 complex).
inline int64_t eighWorkElements(int64_t n, bool complex) {
  const int64_t stedc = n <= 25 ? 2 * n + 1 : 2 * n * n + 4 * n + 1;
  return complex ? 2 * n * n + 3 * n + stedc : n * n + 2 * n + stedc;
}
inline int64_t eighIntWorkElements(int64_t n) { return n <= 25 ? 1 : 6 * n + 1; }

// The largest eigh whose workspace is an array of the thread that decomposes the matrix (on the
// CPU: 100-130 KB of its stack at 64 rows in f64). Larger ones, and every eigh on a GPU (where
// local memory is reserved for every thread the device can hold), keep it in scratch, one
// workspace per matrix.
inline constexpr int64_t kEighStackMaxRows = 64;
inline bool eighWorkInScratch(const ir::Op& op, Target target) {
  return target == Target::Cuda || op.operands[0]->type.dims.back() > kEighStackMaxRows;
}

// The SVD's workspace (lf_svd.h's LF_GESDD_WORK / LF_GESDD_IWORK for min(m, n) = k): elements of
// the matrix's type, and int32s. bdsdc's divide and conquer (vectors past 25) needs about 6 k^2
// elements; up to 25 it is an array of the thread that decomposes the matrix, past that it lives
// in scratch, one workspace per matrix.
inline int64_t svdWorkElements(int64_t k) {
  const int64_t bdsdc = k <= 25 ? 6 * k : 2 * k + 5 * (k + 1) * (k + 1) + 8 * (k + 1);
  return k * k + 4 * k + bdsdc + 1;
}
inline int64_t svdIntWorkElements(int64_t k) { return k <= 25 ? 1 : 8 * k + 8; }
inline bool svdWorkInScratch(const ir::Op& op) {
  const ir::Type& a = op.operands[0]->type;
  const int64_t k = std::min(a.dims[a.rank() - 2], a.dims.back());
  return op.operands.size() == 1 && op.attr<ir::SvdAttrs>().computeUv && k > 25;
}

// What the plan decided for one op.
struct OpPlan {
  int stage = -1;  // emission order of the array ops; -1 for ops that emit no loop (fused, aliases)
  // Sort: the two int64 permutation buffers of the merge sort. Convolution on the CPU: the
  // packed lhs of the pixel-vector form (convolution_pack.h). Fft where fftLinesInScratch: each
  // line's arrays and its work space. Eigh where eighWorkInScratch, Svd where
  // svdWorkInScratch: each matrix's workspace, then its int32 workspace.
  std::vector<int64_t> temps;
  // While: per state index, how the state is updated.
  std::vector<StateUpdate> updates;
  // DynamicUpdateSlice: the result is the operand's buffer; only the update is written.
  bool inPlace = false;
};

// How the CUDA kernel runs (DESIGN.md): one thread with everything in registers; one block whose
// threads split each stage, __syncthreads() between stages; or a cooperative grid over every
// multiprocessor with grid barriers.
enum class CudaMode : uint8_t { Thread, Block, Grid };
const char* cudaModeName(CudaMode m);

struct PlanOptions {
  bool fuse = true;               // false: every value is materialised (the v1 code generator)
  int64_t localMaxElements = 16;  // values up to this size live in locals (0: none)
  bool forceCudaMode = false;     // use `cudaMode` instead of choosing from the sizes
  CudaMode cudaMode = CudaMode::Thread;
  int cpuThreads = 0;  // CPU threads (OpenMP team) for the kernel; 0: chosen from the sizes
};

struct CudaLaunch {
  CudaMode mode = CudaMode::Thread;
  unsigned blockThreads = 1;  // grid mode: per block; the runtime sizes the grid by occupancy
  int64_t largestStage = 0;   // elements written by the largest stage to memory
  std::string reason;         // why this mode, for `loopfuse explain`
};

struct Kernel {
  const ir::Program* program = nullptr;
  Target target = Target::Cpu;
  std::unordered_map<const ir::Value*, Storage> storage;
  std::unordered_map<const ir::Op*, OpPlan> ops;
  int64_t scratchBytes = 0;
  int stageCount = 0;
  CudaLaunch cuda;  // the CUDA execution mode (set for every target; used by the CUDA one)
  // CPU: threads of the OpenMP team that splits each stage (1: no team, no barriers).
  int cpuThreads = 1;
  std::string cpuThreadsReason;

  const Storage& storageOf(const ir::Value* v) const;  // resolved: never an Alias of an Alias
  const OpPlan& opPlan(const ir::Op* op) const;
  // A human-readable summary: stages, fused values, storage, state updates, barriers per loop
  // iteration (`loopfuse explain`).
  std::string explain() const;
  // Every whole-buffer copy that runs once per iteration of some loop, one line each ("loop w:
  // state 2 copied"); empty when loops update their state in place or by swapping buffers.
  std::vector<std::string> perIterationCopies() const;
};

// Whether the regions of an op hold scalar code (reducer, comparator, combiner) rather than array
// code (While, Conditional).
bool hasScalarRegions(ir::OpKind kind);

Kernel plan(const ir::Program& program, Target target, const PlanOptions& options = {});

// The CUDA execution mode of a planned kernel, from the largest stage that writes memory.
CudaLaunch chooseCudaLaunch(const Kernel& kernel, const PlanOptions& options);
// The CPU threads of a planned kernel (after chooseCudaLaunch, whose largest stage it reads).
void chooseCpuThreads(Kernel& kernel, const PlanOptions& options);

}  // namespace lf::plan
