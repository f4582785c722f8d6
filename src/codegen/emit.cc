// emit(): the translation unit (prelude + constant tables + the program body + the entry wrapper)
// and the Emitter's shared machinery: text, names, storage, the walk over regions.
#include "codegen/emit.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "codegen/emitter.h"
#include "codegen/prelude_sources.h"
#include "support/environment.h"

namespace lf::codegen {

std::string cType(DType t) {
  switch (t) {
    case DType::Pred:
      return "bool";
    case DType::S8:
      return "int8_t";
    case DType::S16:
      return "int16_t";
    case DType::S32:
      return "int32_t";
    case DType::S64:
      return "int64_t";
    case DType::U8:
      return "uint8_t";
    case DType::U16:
      return "uint16_t";
    case DType::U32:
      return "uint32_t";
    case DType::U64:
      return "uint64_t";
    case DType::F16:
      return "lf_f16";
    case DType::BF16:
      return "lf_bf16";
    case DType::F32:
      return "float";
    case DType::F64:
      return "double";
  }
  return "void";
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

namespace {

// A C identifier from an HLO name: "add.3" -> "add_3".
std::string sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "v" + out;
  return out;
}

}  // namespace

Emitter::Emitter(const plan::Kernel& kernel, Target target, const BatchLayout* batch)
    : kernel_(kernel), target_(target), batch_(batch) {}

// ---------------------------------------------------------------------------------------------
// Text.

void Emitter::line(const std::string& text) {
  out_ << std::string(2 * indent_, ' ') << text << "\n";
}

void Emitter::open(const std::string& text) {
  line(text.empty() ? "{" : text + " {");
  ++indent_;
  fusedMemo_.emplace_back();
}

void Emitter::close(const std::string& suffix) {
  --indent_;
  line("}" + suffix);
  fusedMemo_.pop_back();
  while (!rowSplits_.empty() && rowSplits_.back().depth > fusedMemo_.size()) rowSplits_.pop_back();
}

void Emitter::openParallelLoop(int64_t n, const std::string& var, int64_t rowLength) {
  const bool split = var == "i" && rowLength > 0 && n % rowLength == 0 && n > rowLength;
  if (!split) {
    open("for (int64_t " + var + " = LF_TID; " + var + " < " + std::to_string(n) + "; " + var +
         " += LF_NTHREADS)");
    if (var == "i") rowSplits_.push_back({0, fusedMemo_.size()});
    return;
  }
  const std::string c = std::to_string(rowLength);
  line("for (int64_t i_r = LF_TID; i_r < " + std::to_string(n / rowLength) +
       "; i_r += LF_NTHREADS)");
  open("  for (int64_t i_c = 0; i_c < " + c + "; ++i_c)");
  line("[[maybe_unused]] const int64_t i = i_r * " + c + " + i_c;");
  rowSplits_.push_back({rowLength, fusedMemo_.size()});
}

int64_t Emitter::rowLengthFor(const std::vector<int64_t>& dims) const {
  // One CPU thread only: a team shares out the rows, too few of them for its threads at times.
  // Rows of at least two 32-byte vectors of f32, so that the inner loop is worth a vector loop.
  if (target_ != Target::Cpu || kernel_.cpuThreads > 1 || dims.size() < 2) return 0;
  // A row that is not a whole number of vectors leaves each row a scalar tail: rows of at least 32
  // then (a flat loop would index a row-broadcast operand by i % c, which does not vectorize at
  // all: an rfft's 33 points per row of 64 ran 1.7x slower as one flat loop, measured on the
  // Kuramoto-Sivashinsky benchmark's 256 x 64).
  const int64_t c = dims.back();
  return c >= 16 && (c % 8 == 0 || c >= 32) ? c : 0;
}

void Emitter::openElementLoop(const ir::Value* out, const std::string& var) {
  openElementLoop(out, out->type.numElements(), var);
}

void Emitter::openElementLoop(const ir::Value* out, int64_t n, const std::string& var) {
  if (!isLocal(out)) {
    openRowLoop(out, n, var);
    return;
  }
  noteVectorLoop(n, out->type.dtype);
  open("for (int64_t " + var + " = 0; " + var + " < " + std::to_string(n) + "; ++" + var + ")");
}

void Emitter::openRowLoop(const ir::Value* v, int64_t n, const std::string& var) {
  const int64_t rowLength = n == v->type.numElements() ? rowLengthFor(v->type.dims) : 0;
  const bool split = var == "i" && rowLength > 0 && n % rowLength == 0 && n > rowLength;
  noteVectorLoop(split ? rowLength : n, v->type.dtype);
  openParallelLoop(n, var, rowLength);
}

void Emitter::noteVectorLoop(int64_t trip, DType dtype) {
  const int64_t bytes = trip * lf::byteSize(dtype);
  if (target_ != Target::Cpu || bytes < 64) return;  // too short for a 512-bit vector anyway
  if (bytes % 64 != 0) {
    wideVectorsFit_ = false;
  } else if (bytes >= 256) {
    wideVectorsPay_ = true;
  }
}

bool Emitter::prefersWideVectors() const { return wideVectorsFit_ && wideVectorsPay_; }

bool Emitter::isLocal(const ir::Value* v) const {
  return kernel_.storageOf(v).kind == plan::StorageKind::Local;
}

void Emitter::endStage(const ir::Op& op) {
  for (const auto& r : op.results) {
    if (!isLocal(r.get())) {
      barrier();
      return;
    }
  }
}

void Emitter::declareMultiIndex(const std::vector<int64_t>& dims, const std::string& var,
                                const std::string& prefix, const std::vector<bool>& used) {
  std::vector<std::string> parts = splitIndex(dims, var, used);
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!used.empty() && !used[d]) continue;
    // A component may go unread: a one-element local ignores its index.
    line("[[maybe_unused]] const int64_t " + prefix + std::to_string(d) + " = " + parts[d] + ";");
  }
}

void Emitter::barrier() { line("LF_BARRIER();"); }

void Emitter::comment(const ir::Op& op) {
  std::string text = "// " + op.name + " (" + ir::opKindName(op.kind);
  if (op.loc.known()) text += ", line " + std::to_string(op.loc.line);
  const plan::OpPlan& p = kernel_.opPlan(&op);
  if (p.stage >= 0) text += ", stage " + std::to_string(p.stage);
  line(text + ")");
}

// ---------------------------------------------------------------------------------------------
// Names and storage.

std::string Emitter::name(const ir::Value* v) {
  auto it = names_.find(v);
  if (it != names_.end()) return it->second;
  // The "v_" prefix keeps value names apart from the emitter's own locals (i, o0, acc0, ...).
  std::string base = "v_" + sanitize(v->name.empty() ? std::string("value") : v->name);
  std::string n = base;
  while (usedNames_.count(n)) n = base + "_" + std::to_string(++uniqueCounter_);
  usedNames_.insert(n);
  names_[v] = n;
  return n;
}

std::string Emitter::nextName(const ir::Value* state) {
  std::string n = name(state) + "_next";
  usedNames_.insert(n);
  return n;
}

std::string Emitter::at(const ir::Value* v, const std::string& index) {
  if (merged_ && index == "i") {
    auto local = merged_->locals.find(v);
    if (local != merged_->locals.end()) return local->second;
  }
  const plan::Storage& s = kernel_.storage.at(v);
  switch (s.kind) {
    case plan::StorageKind::Scalar:
      return name(v);
    case plan::StorageKind::Alias:
      // Same element type: the root's element (so aliases of locals and fused values work too);
      // a bitcast to another width reads through its own pointer.
      if (s.root->type.dtype == v->type.dtype) return at(s.root, index);
      if (readLog_ != nullptr) readLog_->emplace_back(s.root, index);
      return name(v) + "[" + index + "]";
    case plan::StorageKind::Fused:
      return fusedElement(v, index);
    case plan::StorageKind::NextState:
      if (readLog_ != nullptr) readLog_->emplace_back(v, index);
      return nextName(s.root) + "[" + index + "]";
    case plan::StorageKind::Local:
      return name(v) + "[" + (v->type.numElements() == 1 ? std::string("0") : index) + "]";
    default:
      if (readLog_ != nullptr) readLog_->emplace_back(v, index);
      return name(v) + "[" + index + "]";
  }
}

std::string Emitter::scalar(const ir::Value* v) { return at(v, "0"); }

std::string Emitter::linear(const std::vector<int64_t>& dims, const std::vector<std::string>& idx) {
  std::vector<int64_t> strides = rowMajorStrides(dims);
  std::string e;
  for (size_t d = 0; d < dims.size(); ++d) {
    // Size-1 dims stay in: their index folds to 0, and every declared index is then used (NVRTC
    // warns about unused variables).
    if (!e.empty()) e += " + ";
    e += strides[d] == 1 ? idx[d] : "(" + idx[d] + ") * " + std::to_string(strides[d]);
  }
  return e.empty() ? "0" : e;
}

std::string Emitter::clampedIndex(const std::string& x, DType t, int64_t hi) {
  std::string h = std::to_string(hi);
  if (isUnsignedInt(t)) {
    return "((uint64_t)" + x + " > (uint64_t)" + h + " ? (int64_t)" + h + " : (int64_t)" + x + ")";
  }
  return "((int64_t)" + x + " < 0 ? (int64_t)0 : ((int64_t)" + x + " > " + h + " ? (int64_t)" + h +
         " : (int64_t)" + x + "))";
}

// ---------------------------------------------------------------------------------------------
// Program structure.

namespace {

void forEachOp(const ir::Region& region, const std::function<void(const ir::Op&)>& f) {
  for (const auto& op : region.ops) {
    f(*op);
    for (const auto& sub : op->regions) forEachOp(*sub, f);
  }
}

std::string hexLiteral(const uint8_t* p, int width) {
  uint64_t bits = 0;
  for (int b = width - 1; b >= 0; --b) bits = (bits << 8) | p[b];
  std::ostringstream s;
  s << "0x" << std::hex << bits << (width == 8 ? "ull" : "u");
  return s.str();
}

}  // namespace

// Constants become tables of raw bit patterns (unsigned integers of the element width), read
// through a pointer of the element type: exact for NaN payloads, -0.0, f16 and bf16.
void Emitter::emitConstants() {
  const char* qualifier = target_ == Target::Cuda ? "static __device__ const" : "static const";
  forEachOp(kernel_.program->body, [&](const ir::Op& op) {
    if (op.kind != ir::OpKind::Constant) return;
    if (kernel_.storage.at(op.result()).kind != plan::StorageKind::Constant) return;
    if (!names_.count(op.result())) return;  // no code reads it
    const auto& bytes = op.attr<ir::ConstantAttrs>().bytes;
    const ir::Type& t = op.result()->type;
    int width = byteSize(t.dtype);
    if (static_cast<int64_t>(bytes.size()) != t.byteSize()) {
      throw CompileError(op.loc, "constant " + op.name + " holds " + std::to_string(bytes.size()) +
                                     " bytes but its type " + t.toString() + " needs " +
                                     std::to_string(t.byteSize()));
    }
    std::string table = "lf_table_" + name(op.result());
    std::string bitsType = "uint" + std::to_string(8 * width) + "_t";
    int64_t n = t.numElements();
    line("// " + op.name + ": " + t.toString());
    if (n == 0) {
      line(std::string(qualifier) + " " + bitsType + " " + table + "[1] = {0};");
      return;
    }
    open(std::string(qualifier) + " " + bitsType + " " + table + "[" + std::to_string(n) + "] =");
    std::string row;
    for (int64_t i = 0; i < n; ++i) {
      row += hexLiteral(bytes.data() + i * width, width) + ",";
      if ((i + 1) % 8 == 0 || i + 1 == n) {
        line(row);
        row.clear();
      } else {
        row += " ";
      }
    }
    close(";");
  });
}

void Emitter::declarePointer(const ir::Value* v) {
  const plan::Storage& s = kernel_.storage.at(v);
  std::string t = cType(v->type.dtype);
  std::string n = name(v);
  switch (s.kind) {
    case plan::StorageKind::Input:
      if (batch_ != nullptr) {
        line(batchedInputPointer(v, s.input));
        break;
      }
      line("const " + t + "* LF_RESTRICT " + n + " = (const " + t + "*)inputs[" +
           std::to_string(s.input) + "];");
      break;
    case plan::StorageKind::Scratch:
      line(t + "* " + n + " = (" + t + "*)(lf_scratch + " + std::to_string(s.offset) + ");");
      if (s.nextOffset >= 0) {
        line(t + "* " + nextName(v) + " = (" + t + "*)(lf_scratch + " +
             std::to_string(s.nextOffset) + ");");
      }
      break;
    case plan::StorageKind::Local:
      // A multi-result op (reduce to value and index) may have a result nobody reads.
      line("[[maybe_unused]] " + t + " " + n + "[" +
           std::to_string(std::max<int64_t>(1, v->type.numElements())) + "];");
      break;
    case plan::StorageKind::Constant:
      line("const " + t + "* " + n + " = (const " + t + "*)lf_table_" + n + ";");
      break;
    case plan::StorageKind::Alias:
      line("const " + t + "* " + n + " = (const " + t + "*)" + name(s.root) + ";");
      break;
    case plan::StorageKind::Scalar:
    case plan::StorageKind::Fused:
    case plan::StorageKind::NextState:
      break;
  }
}

// Every buffer gets one pointer at the top of the body: the real buffers first, then the aliases.
void Emitter::emitPointers() {
  std::vector<const ir::Value*> values;
  for (const auto& arg : kernel_.program->body.args) values.push_back(arg.get());
  std::function<void(const ir::Region&)> collect = [&](const ir::Region& region) {
    for (const auto& arg : region.args) values.push_back(arg.get());
    for (const auto& op : region.ops) {
      for (const auto& r : op->results) values.push_back(r.get());
      for (const auto& sub : op->regions) collect(*sub);
    }
  };
  for (const auto& op : kernel_.program->body.ops) {
    for (const auto& r : op->results) values.push_back(r.get());
    for (const auto& sub : op->regions) collect(*sub);
  }
  std::unordered_set<const ir::Value*> referenced;
  for (const ir::Value* v : values) {
    if (!names_.count(v)) continue;
    referenced.insert(v);
    const plan::Storage& s = kernel_.storage.at(v);
    if (s.kind == plan::StorageKind::Alias) referenced.insert(s.root);
  }
  for (const ir::Value* v : values) {
    if (referenced.count(v) && kernel_.storage.at(v).kind != plan::StorageKind::Alias) {
      declarePointer(v);
    }
  }
  for (const ir::Value* v : values) {
    if (referenced.count(v) && kernel_.storage.at(v).kind == plan::StorageKind::Alias) {
      declarePointer(v);
    }
  }
}

void Emitter::emitCopy(const ir::Value* to, const ir::Value* from) {
  openElementLoop(to);
  line(at(to, "i") + " = " + at(from, "i") + ";");
  close();
}

void Emitter::emitCopyToOffset(const std::string& toPtr, const ir::Value* from) {
  // In rows where rows pay (rowLengthFor): a fused transpose's index then splits once per row, and
  // the row's inner loop is a vector copy (a scan's [T, B, H] stack written as flax's [B, T, H]
  // output: 14% of an LSTM's time as a flat loop with a division and a modulo per element).
  openRowLoop(from, from->type.numElements());
  line(toPtr + "[i] = " + at(from, "i") + ";");
  close();
}

void Emitter::emitOutputs() {
  const auto& yields = kernel_.program->body.yields;
  for (size_t k = 0; k < yields.size(); ++k) {
    line("// output " + std::to_string(k));
    if (batch_ != nullptr) {
      emitChainOutput(k);
      continue;
    }
    std::string t = cType(yields[k]->type.dtype);
    emitCopyToOffset("((" + t + "*)outputs[" + std::to_string(k) + "])", yields[k]);
  }
}

void Emitter::emitReshape(const ir::Op& op) {
  // Only a reshape of a fused value that must be a buffer is a stage: it computes the elements.
  openElementLoop(op.result());
  line(at(op.result(), "i") + " = " + at(op.operands[0], "i") + ";");
  close();
  endStage(op);
}

void Emitter::emitOp(const ir::Op& op) {
  using K = ir::OpKind;
  if (kernel_.opPlan(&op).stage < 0) return;  // constants and aliases emit no code
  // LAPACK's QR, eigh and SVD loops shrink column by column, where 512-bit vectors leave longer
  // tails: such kernels keep the default (four 48 x 48 eighs and QRs per step measured 12.8 ms
  // with 512, 12.1 without, twice, though within this 2-core host's noise).
  if (op.kind == K::Qr || op.kind == K::HouseholderProduct || op.kind == K::Ormqr ||
      op.kind == K::Eigh || op.kind == K::Svd || op.kind == K::EigValues)
    wideVectorsFit_ = false;
  comment(op);
  switch (op.kind) {
    case K::Iota:
      emitIota(op);
      break;
    case K::Reshape:
      emitReshape(op);
      break;
    case K::Broadcast:
      emitBroadcast(op);
      break;
    case K::Transpose:
      emitTranspose(op);
      break;
    case K::Slice:
      emitSlice(op);
      break;
    case K::DynamicSlice:
      emitDynamicSlice(op);
      break;
    case K::DynamicUpdateSlice:
      emitDynamicUpdateSlice(op);
      break;
    case K::Concatenate:
      emitConcatenate(op);
      break;
    case K::Pad:
      emitPad(op);
      break;
    case K::Reverse:
      emitReverse(op);
      break;
    case K::Dot:
      emitDot(op);
      break;
    case K::Convolution:
      emitConvolution(op);
      break;
    case K::Reduce:
      emitReduce(op);
      break;
    case K::ReduceWindow:
      emitReduceWindow(op);
      break;
    case K::Gather:
      emitGather(op);
      break;
    case K::SelectAndScatter:
      emitSelectAndScatter(op);
      break;
    case K::Scatter:
      emitScatter(op);
      break;
    case K::Sort:
      emitSort(op);
      break;
    case K::Cholesky:
      emitCholesky(op);
      break;
    case K::TriangularSolve:
      emitTriangularSolve(op);
      break;
    case K::Lu:
      emitLu(op);
      break;
    case K::Qr:
      emitQr(op);
      break;
    case K::HouseholderProduct:
      emitHouseholderProduct(op);
      break;
    case K::Ormqr:
      emitOrmqr(op);
      break;
    case K::Eigh:
      emitEigh(op);
      break;
    case K::Svd:
      emitSvd(op);
      break;
    case K::EigValues:
      emitEigValues(op);
      break;
    case K::TridiagonalFactor:
      emitTridiagonalFactor(op);
      break;
    case K::TridiagonalSolve:
      emitTridiagonalSolve(op);
      break;
    case K::TridiagonalSolvePerturbed:
      emitTridiagonalSolvePerturbed(op);
      break;
    case K::Fft:
      emitFft(op);
      break;
    case K::LuPivotsToPermutation:
      emitPivotsToPermutation(op);
      break;
    case K::While:
      emitWhile(op);
      break;
    case K::Conditional:
      emitConditional(op);
      break;
    case K::Threefry2x32:
      emitThreefry(op);
      break;
    default:
      if (ir::isElementwise(op.kind)) {
        emitElementwise(op);
        break;
      }
      throw CompileError(op.loc, std::string("the emitter does not support ") +
                                     ir::opKindName(op.kind) + " (" + op.name + ")");
  }
}

std::string Emitter::kernelSource(const std::string& entryName) {
  // A CPU kernel with threads runs its body inside an OpenMP parallel region: one level deeper; a
  // batch-mapped one inside the loop over chains too.
  const bool cpuTeam = target_ == Target::Cpu && kernel_.cpuThreads > 1;
  int bodyIndent = cpuTeam ? 2 : 1;
  if (batch_ != nullptr && target_ == Target::Cpu) bodyIndent = batch_->cpuThreads > 1 ? 3 : 2;
  // The body first: the declarations above it (constant tables, buffer pointers) then cover only
  // the values it names, so the code has no unused variables (NVRTC warns about them).
  indent_ = bodyIndent;
  emitRegion(kernel_.program->body);
  emitOutputs();
  std::string body = out_.str();
  out_.str("");
  indent_ = bodyIndent;
  emitPointers();
  std::string pointers = out_.str();
  out_.str("");
  indent_ = 0;

  line("// ---- Generated by loopfuse from module " + kernel_.program->name + " (target " +
       targetName(target_) + ").");
  line("// Scratch: " + std::to_string(kernel_.scratchBytes) + " bytes.");
  line("");
  emitConstants();
  emitFftTables();
  line("");
  if (batch_ != nullptr) return batchedKernelSource(entryName, pointers, body);
  // The body is the same for both targets; only the entry's signature differs.
  std::string code = pointers + body;
  bool usesScratch = code.find("lf_scratch") != std::string::npos;
  if (target_ == Target::Cpu) {
    open("extern \"C\" int " + entryName +
         "(const void* const* inputs, void* const* outputs, [[maybe_unused]] void* scratch)");
    if (cpuTeam) {
      line("#pragma omp parallel num_threads(" + std::to_string(kernel_.cpuThreads) + ")");
      open("");
      // The floating-point mode is per thread.
      line("LF_ENTRY_SCOPE();");
      line("const int lf_tid = omp_get_thread_num();");
      line("const int lf_nthreads = omp_get_num_threads();");
    } else {
      line("LF_ENTRY_SCOPE();");
    }
    if (usesScratch) line("char* lf_scratch = (char*)scratch;");
    out_ << pointers << "\n" << body;
    if (cpuTeam) close();
    line("return 0;");
    close();
    return out_.str();
  }
  open("extern \"C\" __global__ void " + entryName + "(LfKernelArgs args)");
  if (code.find("inputs[") != std::string::npos) line("const void* const* inputs = args.in;");
  line("void* const* outputs = args.out;");
  if (usesScratch) line("char* lf_scratch = (char*)args.scratch;");
  out_ << pointers << "\n" << body;
  close();
  return out_.str();
}

namespace {

plan::PlanOptions planOptionsFromEnvironment() {
  plan::PlanOptions options;
  if (auto threads = integerFromEnvironment("LOOPFUSE_CPU_THREADS", 1, 1024))
    options.cpuThreads = static_cast<int>(*threads);
  const char* mode = std::getenv("LOOPFUSE_CUDA_MODE");
  if (mode == nullptr || *mode == '\0') return options;
  options.forceCudaMode = true;
  std::string m(mode);
  if (m == "thread") {
    options.cudaMode = plan::CudaMode::Thread;
  } else if (m == "block") {
    options.cudaMode = plan::CudaMode::Block;
  } else if (m == "grid") {
    options.cudaMode = plan::CudaMode::Grid;
  } else {
    throw std::invalid_argument("LOOPFUSE_CUDA_MODE must be thread, block or grid, got '" + m +
                                "'");
  }
  return options;
}

}  // namespace

EmittedKernel emit(const ir::Program& program, Target target) {
  const plan::PlanOptions options = planOptionsFromEnvironment();
  BatchAttempt batched = emitBatched(program, target, options);
  if (batched.kernel) return std::move(*batched.kernel);
  plan::Kernel k = plan::plan(program, target, options);
  EmittedKernel out = describe(program, target, k.scratchBytes);
  out.explain = k.explain() + "batch mapping: none: " + batched.why + "\n";
  for (bool read : inputsReadByOutputCopies(k)) out.aliasSafeInputs.push_back(!read);
  out.aliasSafeOutputs.assign(out.outputs.size(), true);
  out.cudaMode = plan::cudaModeName(k.cuda.mode);
  out.blockThreads = k.cuda.blockThreads;
  out.cooperative = k.cuda.mode == plan::CudaMode::Grid;
  std::string prelude;
  if (target == Target::Cpu && k.cpuThreads > 1) prelude += "#define LF_CPU_THREADS 1\n";
  if (target == Target::Cuda) {
    // The prelude maps LF_TID / LF_NTHREADS / LF_BARRIER() for the mode.
    if (k.cuda.mode == plan::CudaMode::Thread) prelude += "#define LF_THREAD_MODE 1\n";
    if (k.cuda.mode == plan::CudaMode::Grid) prelude += "#define LF_GRID_MODE 1\n";
  }
  Emitter emitter(k, target);
  const std::string body = emitter.kernelSource(out.entryName);
  if (emitter.prefersWideVectors()) prelude = kCpuWideVectorsDefine + prelude;
  out.source = withPrelude(prelude, target) + body;
  out.explain += emitter.mergedLoopsText() + emitter.dotFormsText() + hostCallbacksText(out);
  return out;
}

std::vector<bool> inputsReadByOutputCopies(const plan::Kernel& kernel) {
  const ir::Region& body = kernel.program->body;
  std::vector<bool> read(body.args.size(), false);
  std::vector<const ir::Value*> work(body.yields.begin(), body.yields.end());
  std::unordered_set<const ir::Value*> seen;
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    const plan::Storage& s = kernel.storage.at(v);
    if (s.kind == plan::StorageKind::Input && s.input >= 0) {
      read[static_cast<size_t>(s.input)] = true;
    } else if (s.kind == plan::StorageKind::Alias) {
      work.push_back(s.root);
    } else if (s.kind == plan::StorageKind::Fused && v->def != nullptr) {
      work.insert(work.end(), v->def->operands.begin(), v->def->operands.end());
    }
  }
  return read;
}

EmittedKernel describe(const ir::Program& program, Target target, int64_t scratchBytes) {
  EmittedKernel out;
  out.target = target;
  out.entryName = "loopfuse_" + sanitize(program.name.empty() ? "main" : program.name);
  for (const auto& arg : program.body.args) {
    out.inputs.push_back(arg->type);
    out.inputNames.push_back(arg->name);
  }
  for (const ir::Value* y : program.body.yields) out.outputs.push_back(y->type);
  out.scratchBytes = scratchBytes;
  for (const ir::HostCallbackSite& site : program.hostCallbacks) {
    std::string text = site.name + " (" + site.target + ")";
    if (site.loc.known())
      text += " at line " + std::to_string(site.loc.line) + ":" + std::to_string(site.loc.col);
    out.hostCallbacks.push_back(std::move(text));
  }
  return out;
}

std::string hostCallbacksText(const EmittedKernel& kernel) {
  if (kernel.hostCallbacks.empty()) return "";
  std::string text =
      "host callbacks: " + std::to_string(kernel.hostCallbacks.size()) +
      ", each in a conditional branch; a run that reaches one stops its loops and "
      "reports it in its last output (lf.jit then runs the call with XLA, which runs "
      "the Python callback):\n";
  for (size_t i = 0; i < kernel.hostCallbacks.size(); ++i)
    text += "  " + std::to_string(i + 1) + ": " + kernel.hostCallbacks[i] + "\n";
  return text;
}

std::string withPrelude(const std::string& defines, Target target) {
  std::string text = defines;
  text += preludeText(target == Target::Cpu ? "lf_cpu.h" : "lf_cuda.h");
  text += preludeText("lf_common.h");
  return text + "\n";
}

}  // namespace lf::codegen
