// The entry of a batch-mapped kernel: the group program's body inside the loop over groups of
// chains. Each group reads its rows of the batched inputs (the leading dimension: a pointer
// offset), writes its rows of the batched outputs, and owns a slot of the scratch arena; nothing is
// shared but the read-only inputs, so no group waits for another.
//   CPU:  an OpenMP loop over groups of chains (each thread runs whole groups, one after another;
//         the code of a group is vectorised across its chains).
//   CUDA: one thread per chain (groups of one chain, in thread mode), or one block per chain whose
//         threads split each stage (block mode) when one chain's stages are large.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "batch/batch.h"
#include "codegen/emitter.h"
#include "passes/pipeline.h"
#include "support/environment.h"

namespace lf::codegen {

std::string Emitter::batchedInputPointer(const ir::Value* v, int input) {
  std::string t = cType(v->type.dtype);
  std::string n = name(v);
  if (input == batch_->chainInput) {
    return "const int32_t " + n + "[1] = {(int32_t)(lf_group * " + std::to_string(batch_->group) +
           ")};";
  }
  std::string base = "(const " + t + "*)inputs[" + std::to_string(input) + "]";
  if (batch_->inputDims[input] >= 0) {
    base += " + lf_group * " + std::to_string(v->type.numElements());
  }
  return "const " + t + "* LF_RESTRICT " + n + " = " + base + ";";
}

// A batched output: element i of the group's value is (before, j, after) with j < G; it goes to
// (before, first chain + j, after) of the whole output. A shared one is the same in every group:
// the first group writes it.
void Emitter::emitChainOutput(size_t k) {
  const ir::Value* y = kernel_.program->body.yields[k];
  std::string t = cType(y->type.dtype);
  std::string out = "((" + t + "*)outputs[" + std::to_string(k) + "])";
  const int d = batch_->outputDims[k];
  if (d < 0) {
    open("if (lf_group == 0)");
    emitCopyToOffset(out, y);
    close();
    return;
  }
  const auto& dims = y->type.dims;
  int64_t after = 1;
  for (size_t j = static_cast<size_t>(d) + 1; j < dims.size(); ++j) after *= dims[j];
  const int64_t group = batch_->group;
  const int64_t n = y->type.numElements();
  openParallelLoop(n);
  if (d == 0) {
    line(out + "[lf_group * " + std::to_string(n) + " + i] = " + at(y, "i") + ";");
  } else {
    const std::string a = std::to_string(after), g = std::to_string(group);
    line("const int64_t before = i / " + std::to_string(group * after) + ", j = (i / " + a +
         ") % " + g + ";");
    line(out + "[(before * " + std::to_string(batch_->chains) + " + lf_group * " + g + " + j) * " +
         a + " + i % " + a + "] = " + at(y, "i") + ";");
  }
  close();
}

std::string Emitter::batchedKernelSource(const std::string& entryName, const std::string& pointers,
                                         const std::string& body) {
  const bool usesScratch = (pointers + body).find("lf_scratch") != std::string::npos;
  const std::string groups = std::to_string(batch_->chains / batch_->group);
  const std::string slot = std::to_string(batch_->scratchPerSlot);
  if (target_ == Target::Cpu) {
    const int threads = batch_->cpuThreads;
    open("extern \"C\" int " + entryName +
         "(const void* const* inputs, void* const* outputs, [[maybe_unused]] void* scratch)");
    if (threads > 1) {
      line("#pragma omp parallel num_threads(" + std::to_string(threads) + ")");
      open("");
    }
    // The floating-point mode is per thread.
    line("LF_ENTRY_SCOPE();");
    if (usesScratch) {
      line(threads > 1
               ? "char* lf_scratch = (char*)scratch + (int64_t)omp_get_thread_num() * " + slot + ";"
               : "char* lf_scratch = (char*)scratch;");
    }
    // Dynamic: groups whose loops run for different trip counts, or threads the OS delays, do not
    // hold the others up.
    if (threads > 1) line("#pragma omp for schedule(dynamic, 1)");
    open("for (int64_t lf_group = 0; lf_group < " + groups + "; ++lf_group)");
    out_ << pointers << "\n" << body;
    close();
    if (threads > 1) close();
    line("return 0;");
    close();
    return out_.str();
  }
  open("extern \"C\" __global__ void " + entryName + "(LfKernelArgs args)");
  if (batch_->chainPerBlock) {
    line("const int64_t lf_group = (int64_t)blockIdx.x;");
  } else {
    line("const int64_t lf_group = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;");
    line("if (lf_group >= " + groups + ") return;");
  }
  if ((pointers + body).find("inputs[") != std::string::npos) {
    line("const void* const* inputs = args.in;");
  }
  line("void* const* outputs = args.out;");
  if (usesScratch) line("char* lf_scratch = (char*)args.scratch + lf_group * " + slot + ";");
  out_ << pointers << "\n" << body;
  close();
  return out_.str();
}

}  // namespace lf::codegen

namespace lf::codegen {
namespace {

enum class BatchPolicy { Auto, Off, On };

// $LOOPFUSE_BATCH: auto (the default) maps programs whose loops carry batched state; on maps every
// program the analysis accepts; off maps none.
BatchPolicy batchPolicyFromEnvironment() {
  const char* env = std::getenv("LOOPFUSE_BATCH");
  if (env == nullptr || *env == '\0' || std::string(env) == "auto") return BatchPolicy::Auto;
  if (std::string(env) == "off") return BatchPolicy::Off;
  if (std::string(env) == "on") return BatchPolicy::On;
  throw std::invalid_argument("LOOPFUSE_BATCH must be auto, on or off, got '" + std::string(env) +
                              "'");
}

// Whether some loop of the program carries batched state: then each chain runs its own loop.
// Without one, the whole-batch kernel is as parallel and vectorises across chains.
bool loopCarriesBatch(const ir::Region& region, const batch::Mapping& m) {
  for (const auto& op : region.ops) {
    if (op->kind == ir::OpKind::While) {
      for (const auto& r : op->results) {
        if (m.dims.at(r.get()) >= 0) return true;
      }
    }
    for (const auto& sub : op->regions) {
      if (loopCarriesBatch(*sub, m)) return true;
    }
  }
  return false;
}

int64_t largestBatchedValue(const batch::Mapping& m) {
  int64_t largest = 0;
  for (const auto& [v, d] : m.dims) {
    if (d >= 0) largest = std::max(largest, v->type.numElements());
  }
  return largest;
}

int cpuThreadsForChains(const plan::PlanOptions& options, int64_t chains) {
  int64_t threads = options.cpuThreads > 0 ? options.cpuThreads
                                           : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::min<int64_t>(threads, chains));
}

// CPU: groups of consecutive chains, as large as divides the batch with at most kMaxGroup chains
// (the group's values stay in cache) and at least one group per thread; groups of one chain when
// some loop's chains stop on their own (Mapping::groupReductions): a group runs such a loop until
// its slowest chain is done, which cost more than vectorising across chains saved (blackjax NUTS
// over 64 chains: 1.06x jax.jit's speed in groups of 32, 1.95x alone). $LOOPFUSE_BATCH_GROUP sets
// it (it must divide the batch).
int64_t cpuGroupSize(int64_t chains, int threads, bool chainsStopAlone) {
  if (auto g = integerFromEnvironment("LOOPFUSE_BATCH_GROUP", 1, chains)) {
    if (chains % *g != 0) {
      throw std::invalid_argument("LOOPFUSE_BATCH_GROUP must divide the batch of " +
                                  std::to_string(chains) + " chains, got '" + std::to_string(*g) +
                                  "'");
    }
    return *g;
  }
  if (chainsStopAlone) return 1;
  constexpr int64_t kMaxGroup = 256;
  int64_t cap = std::max<int64_t>(1, std::min(kMaxGroup, chains / threads));
  for (int64_t g = cap; g > 1; --g) {
    if (chains % g == 0) return g;
  }
  return 1;
}

std::string batchHeader(const batch::Mapping& m, const std::string& placement) {
  std::string inputs, outputs;
  for (size_t i = 0; i < m.inputDims.size(); ++i) {
    if (m.inputDims[i] >= 0) inputs += (inputs.empty() ? "" : ", ") + std::to_string(i);
  }
  for (size_t k = 0; k < m.outputDims.size(); ++k) {
    outputs += (outputs.empty() ? "" : ", ") + std::to_string(k) +
               (m.outputDims[k] >= 0 ? " (dimension " + std::to_string(m.outputDims[k]) + ")"
                                     : " (shared)");
  }
  std::vector<std::string> iotas;
  for (const ir::Op* op : m.batchSources) {
    iotas.push_back(std::string(ir::opKindName(op->kind)) + " " + op->name +
                    (op->loc.known() ? " (line " + std::to_string(op->loc.line) + ")" : ""));
  }
  std::sort(iotas.begin(), iotas.end());
  std::string sources;
  for (const std::string& iota : iotas) sources += (sources.empty() ? "" : ", ") + iota;
  if (!sources.empty()) sources = "\n  the batch is made inside the program, from " + sources;
  return "batch mapping: " + std::to_string(m.chains) + " independent chains, " + placement +
         "\n  batched inputs (leading dimension): " + (inputs.empty() ? "none" : inputs) + sources +
         "\n  outputs: " + outputs + "\nthe program of one group:\n";
}

}  // namespace

BatchAttempt emitBatched(const ir::Program& program, Target target,
                         const plan::PlanOptions& options) {
  const BatchPolicy policy = batchPolicyFromEnvironment();
  if (policy == BatchPolicy::Off) return {std::nullopt, "off (LOOPFUSE_BATCH=off)"};
  if (target == Target::Cuda && options.forceCudaMode) {
    return {std::nullopt, "LOOPFUSE_CUDA_MODE sets the mode of the whole kernel"};
  }
  batch::Mapping m = batch::analyze(program);
  if (!m.mapped()) return {std::nullopt, m.reason};
  // Without a loop over batched state, mapping pays only for large work: the groups then run
  // their share on every thread (a small program is one quick pass over the batch either way).
  constexpr int64_t kMinBatchedElements = int64_t{1} << 16;
  const int64_t largest = largestBatchedValue(m);
  if (policy == BatchPolicy::Auto && !loopCarriesBatch(program.body, m) &&
      largest < kMinBatchedElements) {
    return {std::nullopt, "no loop carries batched state, and the largest batched value has " +
                              std::to_string(largest) + " elements (under " +
                              std::to_string(kMinBatchedElements) +
                              ": one kernel over the whole batch is as fast)"};
  }
  BatchLayout layout;
  layout.chains = m.chains;
  layout.inputDims = m.inputDims;
  layout.outputDims = m.outputDims;
  for (const ir::Value* y : program.body.yields) layout.outputs.push_back(y->type);
  layout.chainInput = static_cast<int>(program.body.args.size());
  if (target == Target::Cpu) {
    layout.cpuThreads = cpuThreadsForChains(options, m.chains);
    layout.group = cpuGroupSize(m.chains, layout.cpuThreads, !m.groupReductions.empty());
  }
  std::unique_ptr<ir::Program> group = batch::groupProgram(program, m, layout.group);
  if (auto errors = ir::verify(*group); !errors.empty()) {
    throw std::logic_error("the group program is invalid: " + errors.front().message);
  }
  passes::runPasses(*group);

  plan::PlanOptions groupOptions = options;
  groupOptions.forceCudaMode = false;
  groupOptions.cpuThreads = 1;  // a group runs on one CPU thread
  plan::Kernel k = plan::plan(*group, target, groupOptions);
  k.cpuThreadsReason = "a group of chains runs on one thread";
  layout.scratchPerSlot = (k.scratchBytes + 63) / 64 * 64;

  std::string defines, placement;
  int64_t slots = 0;
  unsigned blockThreads = 1, gridBlocks = 1;
  const int64_t groups = m.chains / layout.group;
  if (target == Target::Cpu) {
    slots = layout.cpuThreads;
    if (layout.cpuThreads > 1) defines = "#define LF_CPU_BATCH_THREADS 1\n";
    placement = std::to_string(groups) + " groups of " + std::to_string(layout.group) +
                " chains shared out over " + std::to_string(layout.cpuThreads) +
                " CPU thread(s) (" +
                (options.cpuThreads > 0 ? "LOOPFUSE_CPU_THREADS" : "one per hardware thread") +
                "), each running whole groups";
  } else if (k.cuda.mode == plan::CudaMode::Thread) {
    // Blocks of 128 threads (fewer for a small batch, in whole warps): many blocks, so the chains
    // spread over every multiprocessor.
    blockThreads = static_cast<unsigned>(std::min<int64_t>(128, (m.chains + 31) / 32 * 32));
    gridBlocks = static_cast<unsigned>((m.chains + blockThreads - 1) / blockThreads);
    slots = m.chains;
    defines = "#define LF_THREAD_MODE 1\n";
    placement = "one CUDA thread per chain (" + std::to_string(gridBlocks) + " blocks of " +
                std::to_string(blockThreads) + " threads), no barrier between chains";
  } else if (k.cuda.mode == plan::CudaMode::Block) {
    layout.chainPerBlock = true;
    blockThreads = k.cuda.blockThreads;
    gridBlocks = static_cast<unsigned>(m.chains);
    slots = m.chains;
    placement = "one CUDA block of " + std::to_string(blockThreads) +
                " threads per chain (one chain's largest stage writes " +
                std::to_string(k.cuda.largestStage) + " elements)";
  } else {
    return {std::nullopt, "one chain alone needs the whole grid (its largest stage writes " +
                              std::to_string(k.cuda.largestStage) + " elements)"};
  }
  constexpr int64_t kMaxScratch = int64_t{4} << 30;
  if (layout.scratchPerSlot > 0 && slots > kMaxScratch / layout.scratchPerSlot) {
    return {std::nullopt, "the groups' scratch would exceed 4 GiB (" +
                              std::to_string(layout.scratchPerSlot) + " bytes per group)"};
  }

  EmittedKernel out = describe(program, target, layout.scratchPerSlot * slots);
  out.explain = batchHeader(m, placement) + k.explain();
  std::vector<bool> read = inputsReadByOutputCopies(k);
  for (size_t i = 0; i < m.inputDims.size(); ++i) {
    out.aliasSafeInputs.push_back(m.inputDims[i] == 0 && !read[i]);
  }
  for (int d : m.outputDims) out.aliasSafeOutputs.push_back(d == 0);
  out.cudaMode = layout.chainPerBlock ? "batch-block" : "batch-thread";
  out.blockThreads = blockThreads;
  out.gridBlocks = gridBlocks;
  out.chains = m.chains;
  Emitter emitter(k, target, &layout);
  const std::string body = emitter.kernelSource(out.entryName);
  if (emitter.prefersWideVectors()) defines = kCpuWideVectorsDefine + defines;
  out.source = withPrelude(defines, target) + body;
  out.explain += emitter.mergedLoopsText() + emitter.dotFormsText() + hostCallbacksText(out);
  return {std::move(out), ""};
}

}  // namespace lf::codegen
