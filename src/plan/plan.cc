#include "plan/plan.h"

#include <algorithm>
#include <unordered_set>

#include "plan/convolution_pack.h"
#include "plan/fusion.h"

namespace lf::plan {
namespace {

constexpr int64_t kAlignment = 64;

int64_t alignUp(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

class Planner {
 public:
  Planner(const ir::Program& program, Target target, const PlanOptions& options)
      : options_(options) {
    kernel_.program = &program;
    kernel_.target = target;
    uses_ = collectUses(program);
  }

  Kernel run() {
    const ir::Region& body = kernel_.program->body;
    markValuesThatNeedBuffers(body);
    for (size_t i = 0; i < body.args.size(); ++i) {
      Storage s;
      s.kind = StorageKind::Input;
      s.input = static_cast<int>(i);
      kernel_.storage[body.args[i].get()] = s;
    }
    planRegion(body);
    kernel_.scratchBytes = alignUp(next_);
    return std::move(kernel_);
  }

 private:
  // ---- Storage.
  int64_t allocate(int64_t bytes) {
    int64_t offset = alignUp(next_);
    next_ = offset + bytes;
    return offset;
  }

  void set(const ir::Value* v, StorageKind kind) {
    Storage s;
    s.kind = kind;
    if (kind == StorageKind::Scratch) s.offset = allocate(v->type.byteSize());
    kernel_.storage[v] = s;
  }

  // Makes `v` share the buffer of `of`, resolving chains so that every alias names a real buffer.
  void alias(const ir::Value* v, const ir::Value* of) {
    Storage s;
    s.kind = StorageKind::Alias;
    s.root = rootOf(of);
    kernel_.storage[v] = s;
  }

  const ir::Value* rootOf(const ir::Value* v) const {
    const Storage& s = kernel_.storage.at(v);
    return s.kind == StorageKind::Alias ? s.root : v;
  }

  bool isSmall(const ir::Value* v) const {
    return v->type.numElements() <= options_.localMaxElements;
  }

  size_t useCount(const ir::Value* v) const {
    auto it = uses_.find(v);
    return it == uses_.end() ? 0 : it->second.size();
  }

  // Branch arguments alias the operands bound to them, so those need a buffer (not a fused
  // expression); a bitcast to another width reads its operand's bytes through a pointer cast.
  void markValuesThatNeedBuffers(const ir::Region& region) {
    for (const auto& op : region.ops) {
      if (op->kind == ir::OpKind::Conditional) {
        for (size_t s = 1; s < op->operands.size(); ++s) needsBuffer_.insert(op->operands[s]);
      }
      if (op->kind == ir::OpKind::BitcastConvert && !isFusible(*op)) {
        needsBuffer_.insert(op->operands[0]);
        needsMemory_.insert(op->operands[0]);
      }
      for (const auto& sub : op->regions) markValuesThatNeedBuffers(*sub);
    }
  }

  // ---- Fusion.
  bool isCheapOperand(const ir::Value* v) const {
    const Storage& s = kernel_.storage.at(v);
    return s.kind != StorageKind::Fused || cheap_.count(v) > 0;
  }

  bool canFuse(const ir::Op& op) const {
    if (!options_.fuse || !isFusible(op)) return false;
    const ir::Value* v = op.result();
    if (needsBuffer_.count(v)) return false;
    if (isTransposeForLoopDot(op)) return false;
    bool cheap = isIndexOnly(op);
    for (const ir::Value* operand : op.operands) cheap = cheap && isCheapOperand(operand);
    auto it = uses_.find(v);
    if (it == uses_.end() || it->second.empty()) return false;
    if (it->second.size() > 1 && !cheap) return false;
    for (const Use& u : it->second) {
      if (u.user == nullptr) continue;  // a yield: evaluated where the region's results are written
      if (cheap) continue;
      // Computing it inside a loop body that it does not belong to would repeat it every
      // iteration; a consumer that re-reads elements would repeat it per read.
      if (u.user->parent != op.parent) return false;
      if (packsLhs(*u.user, u.slot)) continue;
      if (!readsOperandOnce(*u.user, u.slot)) return false;
    }
    return true;
  }

  // The lhs of a CPU convolution in the pixel-vector form, which reads each element once, into
  // its pack (convolution_pack.h).
  bool packsLhs(const ir::Op& user, int slot) const {
    return slot == 0 && kernel_.target == Target::Cpu && convolutionPack(user).has_value();
  }

  // A transpose that a dot in a loop reads (passes/dot_layout.h makes them): a buffer, written
  // once before the loop, that the dot's register tiles read in place, instead of transposed
  // indexing on every read of every iteration.
  bool isTransposeForLoopDot(const ir::Op& op) const {
    if (op.kind != ir::OpKind::Transpose) return false;
    auto it = uses_.find(op.result());
    if (it == uses_.end()) return false;
    for (const Use& u : it->second) {
      if (u.user != nullptr && u.user->kind == ir::OpKind::Dot && u.user->parent != op.parent)
        return true;
    }
    return false;
  }

  // ---- Ops.
  void planRegion(const ir::Region& region) {
    for (const auto& op : region.ops) planOp(*op);
  }

  void scalarRegion(const ir::Region& region) {
    Storage s;
    s.kind = StorageKind::Scalar;
    for (const auto& arg : region.args) kernel_.storage[arg.get()] = s;
    for (const auto& op : region.ops) {
      for (const auto& r : op->results) kernel_.storage[r.get()] = s;
      for (const auto& sub : op->regions) scalarRegion(*sub);
    }
  }

  // Where an op that runs as a stage keeps its result.
  void placeResult(const ir::Op& op, const ir::Value* v) {
    auto next = nextStateOf_.find(v);
    if (next != nextStateOf_.end() && !isSmall(v)) {
      Storage s;
      s.kind = StorageKind::NextState;
      s.root = next->second;
      kernel_.storage[v] = s;
      return;
    }
    // These write their results at indices computed at run time, or through a pointer (the QR
    // and eigh functions of lf_linalg.h), which locals cannot take.
    bool localAllowed =
        op.kind != ir::OpKind::Sort && op.kind != ir::OpKind::Scatter &&
        op.kind != ir::OpKind::SelectAndScatter && op.kind != ir::OpKind::Cholesky &&
        op.kind != ir::OpKind::Lu && op.kind != ir::OpKind::TriangularSolve &&
        op.kind != ir::OpKind::LuPivotsToPermutation && op.kind != ir::OpKind::Qr &&
        op.kind != ir::OpKind::HouseholderProduct && op.kind != ir::OpKind::Ormqr &&
        op.kind != ir::OpKind::Eigh && op.kind != ir::OpKind::Svd && op.kind != ir::OpKind::Fft &&
        op.kind != ir::OpKind::EigValues && op.kind != ir::OpKind::TridiagonalFactor &&
        op.kind != ir::OpKind::TridiagonalSolve && op.kind != ir::OpKind::TridiagonalSolvePerturbed;
    if (options_.localMaxElements > 0 && isSmall(v) && localAllowed && !needsMemory_.count(v)) {
      set(v, StorageKind::Local);
      return;
    }
    set(v, StorageKind::Scratch);
  }

  // A dynamic-update-slice may write into its operand's buffer when nothing else reads that
  // buffer: the operand has no other use and owns its buffer (or is loop state, see planWhile).
  bool canUpdateInPlace(const ir::Op& op) const {
    if (!options_.fuse) return false;
    const ir::Value* in = op.operands[0];
    if (inPlaceState_.count(&op)) return true;
    if (useCount(in) != 1) return false;
    StorageKind k = kernel_.storage.at(in).kind;
    return k == StorageKind::Scratch || k == StorageKind::Local || k == StorageKind::NextState;
  }

  void planOp(const ir::Op& op) {
    OpPlan& p = kernel_.ops[&op];
    switch (op.kind) {
      case ir::OpKind::Constant:
        set(op.result(), StorageKind::Constant);
        return;
      case ir::OpKind::While:
        planWhile(op, p);
        return;
      case ir::OpKind::Conditional:
        planConditional(op, p);
        return;
      default:
        break;
    }
    if (op.kind == ir::OpKind::Reshape &&
        kernel_.storage.at(rootOf(op.operands[0])).kind != StorageKind::Fused) {
      // Row-major data does not move in a reshape.
      alias(op.result(), op.operands[0]);
      return;
    }
    if (canFuse(op)) {
      set(op.result(), StorageKind::Fused);
      bool cheap = isIndexOnly(op);
      for (const ir::Value* operand : op.operands) cheap = cheap && isCheapOperand(operand);
      if (cheap) cheap_.insert(op.result());
      return;
    }
    if (op.kind == ir::OpKind::BitcastConvert && !isFusible(op)) {
      // Different widths add or drop the minor-most dim: the same little-endian bytes.
      alias(op.result(), op.operands[0]);
      return;
    }
    p.stage = kernel_.stageCount++;
    if (op.kind == ir::OpKind::DynamicUpdateSlice && canUpdateInPlace(op)) {
      p.inPlace = true;
      alias(op.result(), op.operands[0]);
      return;
    }
    for (const auto& r : op.results) placeResult(op, r.get());
    if (hasScalarRegions(op.kind)) {
      for (const auto& sub : op.regions) scalarRegion(*sub);
    }
    if (op.kind == ir::OpKind::Sort) {
      int64_t bytes = op.result()->type.numElements() * static_cast<int64_t>(sizeof(int64_t));
      p.temps = {allocate(bytes), allocate(bytes)};
    }
    if (op.kind == ir::OpKind::Fft && fftLinesInScratch(op, kernel_.target)) {
      // Each line's (re, im) arrays, and as much again for the work space the passes go back and
      // forth to (lf_fft.h).
      const ir::Value* in = op.operands[0];
      const int64_t n = op.attr<ir::FftAttrs>().length;
      const int64_t lines =
          in->type.numElements() == 0 ? 0 : in->type.numElements() / in->type.dims.back();
      const int64_t bytes = lines * 2 * n * byteSize(in->type.dtype);
      p.temps = {allocate(bytes), allocate(bytes)};
    }
    if (op.kind == ir::OpKind::Eigh && eighWorkInScratch(op, kernel_.target)) {
      const ir::Type& a = op.operands[0]->type;
      const int64_t n = a.dims.back();
      const int64_t matrices = n == 0 ? 0 : a.numElements() / (n * n);
      const bool complex = op.operands.size() == 2;
      p.temps = {allocate(matrices * eighWorkElements(n, complex) * byteSize(a.dtype)),
                 allocate(matrices * eighIntWorkElements(n) * 4)};
    }
    if (op.kind == ir::OpKind::Svd && svdWorkInScratch(op)) {
      const ir::Type& a = op.operands[0]->type;
      const int64_t m = a.dims[a.rank() - 2], n = a.dims.back(), k = std::min(m, n);
      const int64_t matrices = m * n == 0 ? 0 : a.numElements() / (m * n);
      p.temps = {allocate(matrices * svdWorkElements(k) * byteSize(a.dtype)),
                 allocate(matrices * svdIntWorkElements(k) * 4)};
    }
    if (op.kind == ir::OpKind::Convolution && kernel_.target == Target::Cpu) {
      if (auto pack = convolutionPack(op)) p.temps = {allocate(pack->bytes())};  // the packed lhs
    }
  }

  // Loop state lives in the While's result buffers; the condition and the body read it through
  // their arguments (aliases). Small state is a set of locals. Large state has a second (idle)
  // buffer: the body's new state is written there and the two are swapped, or, for a
  // dynamic-update-slice of the state that nothing else reads, written in place.
  void planWhile(const ir::Op& op, OpPlan& p) {
    p.stage = kernel_.stageCount++;
    const ir::Region& body = *op.regions[1];
    size_t n = op.results.size();
    std::unordered_set<const ir::Value*> claimed;
    for (size_t k = 0; k < n; ++k) {
      const ir::Value* r = op.result(static_cast<int>(k));
      bool local = options_.localMaxElements > 0 && isSmall(r) && !needsMemory_.count(r);
      set(r, local ? StorageKind::Local : StorageKind::Scratch);
      if (!options_.fuse) continue;
      const ir::Value* y = body.yields[k];
      const ir::Value* arg = body.args[k].get();
      if (y == arg) continue;
      bool yieldedOnce = std::count(body.yields.begin(), body.yields.end(), y) == 1;
      if (y->def != nullptr && y->def->kind == ir::OpKind::DynamicUpdateSlice &&
          y->def->parent == &body && y->def->operands[0] == arg && useCount(arg) == 1 &&
          yieldedOnce) {
        inPlaceState_.insert(y->def);
        continue;
      }
      if (local) continue;
      // The producer of a reshaped state writes the state's buffer (a reshape moves no data).
      while (y->def != nullptr && y->def->kind == ir::OpKind::Reshape && useCount(y) == 1 &&
             y->def->parent == &body) {
        y = y->def->operands[0];
      }
      if (y->def != nullptr && y->def->parent == &body && !claimed.count(y) && useCount(y) >= 1 &&
          y->def->kind != ir::OpKind::While && y->def->kind != ir::OpKind::Conditional) {
        claimed.insert(y);
        nextStateOf_[y] = r;
      }
    }
    for (const auto& region : op.regions) {
      for (size_t i = 0; i < region->args.size(); ++i) alias(region->args[i].get(), op.result(i));
      planRegion(*region);
    }
    for (size_t k = 0; k < n; ++k) {
      const ir::Value* r = op.result(static_cast<int>(k));
      const ir::Value* y = body.yields[k];
      StateUpdate u = updateOf(r, y, body.args[k].get());
      p.updates.push_back(u);
      if (u == StateUpdate::Evaluated || u == StateUpdate::Copied) {
        kernel_.storage[r].nextOffset = allocate(r->type.byteSize());
      }
    }
    for (size_t k = 0; k < n; ++k) {
      if (p.updates[k] == StateUpdate::Produced) {
        const ir::Value* r = op.result(static_cast<int>(k));
        kernel_.storage[r].nextOffset = allocate(r->type.byteSize());
      }
    }
  }

  StateUpdate updateOf(const ir::Value* r, const ir::Value* y, const ir::Value* arg) const {
    const Storage& rs = kernel_.storage.at(r);
    const ir::Value* root = rootOf(y);
    if (y == arg || root == r) {
      // A dynamic-update-slice in place leaves the state in its own buffer.
      bool inPlace = y != arg && y->def != nullptr && kernel_.ops.count(y->def) &&
                     kernel_.ops.at(y->def).inPlace;
      return inPlace ? StateUpdate::InPlace : StateUpdate::Unchanged;
    }
    if (rs.kind == StorageKind::Local) return StateUpdate::Register;
    const Storage& ys = kernel_.storage.at(root);
    if (ys.kind == StorageKind::NextState && ys.root == r) return StateUpdate::Produced;
    if (ys.kind == StorageKind::Fused && !cheap_.count(root)) return StateUpdate::Evaluated;
    return StateUpdate::Copied;
  }

  // Branch arguments alias the operands bound to them; every branch writes the result buffers.
  void planConditional(const ir::Op& op, OpPlan& p) {
    p.stage = kernel_.stageCount++;
    for (const auto& r : op.results) placeResult(op, r.get());
    size_t next = 1;
    for (const auto& region : op.regions) {
      for (const auto& arg : region->args) alias(arg.get(), op.operands.at(next++));
      planRegion(*region);
    }
  }

  PlanOptions options_;
  Kernel kernel_;
  int64_t next_ = 0;
  std::unordered_map<const ir::Value*, std::vector<Use>> uses_;
  std::unordered_set<const ir::Value*> needsBuffer_;  // not fused
  std::unordered_set<const ir::Value*> needsMemory_;  // not fused, not a local
  std::unordered_set<const ir::Value*> cheap_;        // fused, and index arithmetic only
  std::unordered_map<const ir::Value*, const ir::Value*> nextStateOf_;  // body yield -> state
  std::unordered_set<const ir::Op*> inPlaceState_;  // dynamic-update-slices of loop state
};

}  // namespace

const char* stateUpdateName(StateUpdate u) {
  switch (u) {
    case StateUpdate::Unchanged:
      return "unchanged";
    case StateUpdate::InPlace:
      return "updated in place";
    case StateUpdate::Produced:
      return "written into the idle buffer by its producer, swapped";
    case StateUpdate::Evaluated:
      return "fused expression computed into the idle buffer, swapped";
    case StateUpdate::Copied:
      return "COPIED into the idle buffer, swapped";
    case StateUpdate::Register:
      return "registers";
  }
  return "?";
}

bool hasScalarRegions(ir::OpKind kind) {
  return kind == ir::OpKind::Reduce || kind == ir::OpKind::ReduceWindow ||
         kind == ir::OpKind::Scatter || kind == ir::OpKind::SelectAndScatter ||
         kind == ir::OpKind::Sort;
}

const Storage& Kernel::storageOf(const ir::Value* v) const {
  const Storage& s = storage.at(v);
  return s.kind == StorageKind::Alias ? storage.at(s.root) : s;
}

const OpPlan& Kernel::opPlan(const ir::Op* op) const { return ops.at(op); }

Kernel plan(const ir::Program& program, Target target, const PlanOptions& options) {
  Kernel k = Planner(program, target, options).run();
  k.cuda = chooseCudaLaunch(k, options);
  chooseCpuThreads(k, options);
  return k;
}

}  // namespace lf::plan
