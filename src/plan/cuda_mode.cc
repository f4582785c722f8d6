// The parallel mapping: how many threads the kernel's stages are worth, on the GPU (thread, block
// or grid mode) and on the CPU (an OpenMP team). A stage that writes N elements to memory keeps N
// threads busy; values in registers are computed by every thread.
#include <algorithm>
#include <functional>

#include "plan/plan.h"

namespace lf::plan {
namespace {

// Up to this many elements per stage, one thread does the whole program: no barrier, no shared
// traffic, the latency of a CPU core (the batch-1 sampler of the seed program).
constexpr int64_t kThreadModeMaxElements = 64;
// Up to this many, one block: its barrier costs tens of nanoseconds; a grid barrier microseconds.
constexpr int64_t kBlockModeMaxElements = int64_t{1} << 18;
constexpr unsigned kBlockThreads = 256;

int64_t largestStage(const Kernel& k) {
  int64_t largest = 0;
  std::function<void(const ir::Region&)> walk = [&](const ir::Region& region) {
    for (const auto& op : region.ops) {
      const OpPlan& p = k.opPlan(op.get());
      if (p.stage >= 0 && op->kind != ir::OpKind::While && op->kind != ir::OpKind::Conditional) {
        for (const auto& r : op->results) {
          StorageKind kind = k.storageOf(r.get()).kind;
          if (kind == StorageKind::Local) continue;
          int64_t n = p.inPlace ? op->operands[1]->type.numElements() : r->type.numElements();
          largest = std::max(largest, n);
        }
      }
      if (hasScalarRegions(op->kind)) continue;
      for (const auto& sub : op->regions) walk(*sub);
    }
  };
  walk(k.program->body);
  // Loop state copied into memory at the start is a stage too.
  for (const auto& [v, s] : k.storage) {
    if (s.kind == StorageKind::Scratch) largest = std::max(largest, v->type.numElements());
  }
  return largest;
}

unsigned threadsFor(int64_t elements) {
  int64_t warps = (elements + 31) / 32;
  return static_cast<unsigned>(std::clamp<int64_t>(warps * 32, 32, kBlockThreads));
}

}  // namespace

const char* cudaModeName(CudaMode m) {
  switch (m) {
    case CudaMode::Thread:
      return "thread";
    case CudaMode::Block:
      return "block";
    case CudaMode::Grid:
      return "grid";
  }
  return "?";
}

CudaLaunch chooseCudaLaunch(const Kernel& kernel, const PlanOptions& options) {
  CudaLaunch l;
  l.largestStage = largestStage(kernel);
  std::string size = "the largest stage writes " + std::to_string(l.largestStage) + " elements";
  if (options.forceCudaMode) {
    l.mode = options.cudaMode;
    l.reason = std::string("forced by LOOPFUSE_CUDA_MODE (") + size + ")";
  } else if (l.largestStage <= kThreadModeMaxElements) {
    l.mode = CudaMode::Thread;
    l.reason = size + " (<= " + std::to_string(kThreadModeMaxElements) +
               "): one thread runs everything, small values in registers, no barriers";
  } else if (l.largestStage <= kBlockModeMaxElements) {
    l.mode = CudaMode::Block;
    l.reason = size + " (<= " + std::to_string(kBlockModeMaxElements) +
               "): one block splits each stage, __syncthreads() between stages";
  } else {
    l.mode = CudaMode::Grid;
    l.reason =
        size + ": a cooperative grid over every multiprocessor, grid barriers between stages";
  }
  switch (l.mode) {
    case CudaMode::Thread:
      l.blockThreads = 1;
      break;
    case CudaMode::Block:
      l.blockThreads = threadsFor(l.largestStage);
      break;
    case CudaMode::Grid:
      l.blockThreads = kBlockThreads;
      break;
  }
  return l;
}

// One thread unless asked: an OpenMP barrier per stage costs a microsecond when every thread has a
// core, and milliseconds when the machine is oversubscribed (measured here: the vmapped seed took
// 8.3 s with 2 threads beside two compilers, 2.6 s with one). Mapping a vmapped batch over threads
// without barriers (each thread its own chains) is the mapping that pays; see docs/ARCHITECTURE.md.
void chooseCpuThreads(Kernel& kernel, const PlanOptions& options) {
  if (options.cpuThreads > 0) {
    kernel.cpuThreads = options.cpuThreads;
    kernel.cpuThreadsReason = "set by LOOPFUSE_CPU_THREADS";
    return;
  }
  kernel.cpuThreads = 1;
  kernel.cpuThreadsReason = "the default; LOOPFUSE_CPU_THREADS=N splits each stage over N threads";
}

}  // namespace lf::plan
