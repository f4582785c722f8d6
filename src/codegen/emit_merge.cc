// Loop merging: consecutive elementwise stages over the same number of elements share one loop,
//   for (i = LF_TID; i < n; i += LF_NTHREADS) { a[i] = f(x[i]); b[i] = g(a[i], y[i / 2]); }
// instead of one loop and one barrier each. It is right when every member reads what the earlier
// members wrote only at its own index i: the thread that wrote a[i] is the one that reads it, so no
// barrier is needed between them, and the host compiler keeps a[i] in a register. A chain of
// vmapped threefry rounds (each value feeding two others, so not fusable into one expression)
// becomes one loop this way; on a GPU each merge is one barrier less per iteration. (See
// mergeStages for where it is on.)
#include <cctype>

#include "codegen/emitter.h"
#include "support/environment.h"

namespace lf::codegen {

bool Emitter::isMergeableStage(const ir::Op& op) const {
  if (kernel_.opPlan(&op).stage < 0) return false;
  if (op.kind != ir::OpKind::Threefry2x32 && !ir::isElementwise(op.kind)) return false;
  for (const auto& r : op.results) {
    // Results in memory, split over the threads: a local is computed whole by every thread.
    plan::StorageKind k = kernel_.storageOf(r.get()).kind;
    if (k != plan::StorageKind::Scratch && k != plan::StorageKind::NextState) return false;
    if (r->type.numElements() != op.result(0)->type.numElements()) return false;
  }
  return true;
}

void Emitter::emitMergeableStageBody(const ir::Op& op) {
  comment(op);
  if (op.kind == ir::OpKind::Threefry2x32) {
    emitThreefryBody(op);
  } else {
    emitElementwiseBody(op);
  }
}

namespace {

// Whether `text` names the identifier `id` (not as part of a longer one).
bool mentions(const std::string& text, const std::string& id) {
  auto isIdChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(id); at != std::string::npos; at = text.find(id, at + 1)) {
    bool before = at > 0 && isIdChar(text[at - 1]);
    bool after = at + id.size() < text.size() && isIdChar(text[at + id.size()]);
    if (!before && !after) return true;
  }
  return false;
}

bool balanced(const std::string& text) {
  int depth = 0;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth == 0;
}

// A read at the loop's own index, or of one fixed element, or in a loop split into rows
// (RowSplit) one that does not change along a row or steps with i_c, `<invariant> + (i_c)`: what a
// vectorizing host compiler handles. Anything else (i / 2, a transposed or dynamic index) is a
// gather.
bool isContiguousRead(const std::string& index) {
  if (index == "i") return true;
  if (index.empty() || mentions(index, "i")) return false;
  if (!mentions(index, "i_c")) return true;
  const std::string step = "(i_c)";
  if (index.size() < step.size() || index.compare(index.size() - step.size(), step.size(), step)) {
    return false;
  }
  std::string rest = index.substr(0, index.size() - step.size());
  if (rest.empty()) return true;
  const std::string plus = " + ";
  if (rest.size() < plus.size() || rest.compare(rest.size() - plus.size(), plus.size(), plus)) {
    return false;
  }
  rest.resize(rest.size() - plus.size());
  return balanced(rest) && !mentions(rest, "i_c");
}

}  // namespace

void Emitter::emitMergeableStage(const ir::Op& op) {
  const int64_t n = op.result(0)->type.numElements();
  const bool mayJoin = merged_ && merged_->n == n;
  // A dry run: the body emitted aside (in the open loop, or in a loop of its own), noting every
  // buffer read. Reads of the members' results at i come from their locals and are not noted.
  std::ostringstream aside;
  std::swap(out_, aside);
  const std::optional<MergedLoop> before = merged_;
  const auto memo = fusedMemo_.back();
  std::vector<std::pair<const ir::Value*, std::string>> reads;
  readLog_ = &reads;
  if (!mayJoin) {
    merged_ = MergedLoop{};
    merged_->n = n;
    openRowLoop(op.result(0), n);
  }
  emitMergeableStageBody(op);
  if (!mayJoin) close();
  readLog_ = nullptr;
  std::swap(out_, aside);
  bool sameIndex = true, contiguous = true;
  for (const auto& [value, index] : reads) {
    sameIndex = sameIndex && !(mayJoin && before->written.count(value));
    contiguous = contiguous && isContiguousRead(index);
  }
  // On the CPU a gather in a merged loop would keep the whole loop from vectorizing: such a stage
  // keeps a loop of its own. A GPU thread gains from every barrier left out.
  const bool mergeable = contiguous || target_ != Target::Cpu;
  if (mayJoin && sameIndex && mergeable) {
    out_ << aside.str();
    merged_->members.insert(&op);
    merged_->memberNames.push_back(op.name);
    for (const auto& r : op.results) merged_->written.insert(r.get());
    return;
  }
  merged_ = before;  // forget the locals and fused elements of the dry run
  fusedMemo_.back() = memo;
  closeMergedLoop();
  if (!mergeable) {
    emitOp(op);
    return;
  }
  openRowLoop(op.result(0), n);
  merged_ = MergedLoop{};
  merged_->n = n;
  emitMergeableStageBody(op);
  merged_->members.insert(&op);
  merged_->memberNames.push_back(op.name);
  for (const auto& r : op.results) merged_->written.insert(r.get());
}

void Emitter::storeElement(const ir::Value* out, const std::string& expr,
                           const std::string& local) {
  if (!merged_) {
    line(at(out, "i") + " = " + expr + ";");
    return;
  }
  std::string element = local;
  if (element.empty()) {
    element = "m" + std::to_string(++uniqueCounter_);
    line("const " + cType(out->type.dtype) + " " + element + " = " + expr + ";");
  }
  const std::string store = std::string(2 * indent_, ' ') + at(out, "i") + " = " + element + ";\n";
  out_ << store;
  merged_->locals[out] = element;
  merged_->stores.emplace_back(out, store);
}

bool Emitter::onlyMembersRead(const ir::Value* v) {
  if (!uses_) uses_ = plan::collectUses(*kernel_.program);
  auto it = uses_->find(v);
  if (it == uses_->end() || it->second.empty()) return false;  // keep what nothing reads
  for (const plan::Use& use : it->second) {
    if (use.user == nullptr || !merged_->members.count(use.user)) return false;
  }
  return true;
}

void Emitter::closeMergedLoop() {
  if (!merged_) return;
  // A result read only by members (each through its local) needs no store: drop it, and the
  // buffer's name, so that no pointer is declared for it.
  std::vector<std::string> dead;
  for (const auto& [value, store] : merged_->stores) {
    if (kernel_.storage.at(value).kind == plan::StorageKind::Scratch && onlyMembersRead(value)) {
      dead.push_back(store);
      names_.erase(value);
    }
  }
  if (!dead.empty()) {
    std::string text = out_.str();
    for (const std::string& store : dead) {
      size_t at = text.rfind(store);
      if (at != std::string::npos) text.erase(at, store.size());
    }
    out_.str("");
    out_ << text;
  }
  if (merged_->memberNames.size() > 1) mergedLoops_.push_back(merged_->memberNames);
  merged_.reset();
  close();
  barrier();
}

std::string Emitter::mergedLoopsText() const {
  if (mergedLoops_.empty()) return "";
  size_t stages = 0;
  for (const auto& loop : mergedLoops_) stages += loop.size();
  std::string text = "loop merging: " + std::to_string(stages) + " stages share " +
                     std::to_string(mergedLoops_.size()) + " loops, " +
                     std::to_string(stages - mergedLoops_.size()) +
                     " barriers fewer than the stages above count (LOOPFUSE_MERGE_STAGES)\n";
  for (const auto& loop : mergedLoops_) {
    text += "  one loop:";
    for (const std::string& name : loop) text += " " + name;
    text += "\n";
  }
  return text;
}

// On by default for CUDA, where every merge is one barrier less for all threads. Off by default on
// the CPU: there it measured no gain (the vmapped seed program 0.85 s per call either way) and
// small programs up to 25% slower, as GCC versions a loop that writes many arrays for aliasing
// instead of vectorizing it. LOOPFUSE_MERGE_STAGES=0 or 1 overrides both.
bool Emitter::mergeStages() {
  if (!mergeStages_) {
    mergeStages_ = integerFromEnvironment("LOOPFUSE_MERGE_STAGES", 0, 1)
                       .value_or(target_ == Target::Cuda ? 1 : 0);
  }
  return *mergeStages_ != 0;
}

void Emitter::emitRegion(const ir::Region& region) {
  for (const auto& op : region.ops) {
    if (mergeStages() && isMergeableStage(*op)) {
      emitMergeableStage(*op);
      continue;
    }
    if (kernel_.opPlan(op.get()).stage >= 0) closeMergedLoop();  // fused ops emit nothing here
    emitOp(*op);
  }
  closeMergedLoop();
}

}  // namespace lf::codegen
