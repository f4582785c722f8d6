#include "plan/plan.h"

namespace lf::plan {
namespace {

constexpr int64_t kAlignment = 64;

int64_t alignUp(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

class Planner {
 public:
  Planner(const ir::Program& program, Target target) {
    kernel_.program = &program;
    kernel_.target = target;
  }

  Kernel run() {
    const ir::Region& body = kernel_.program->body;
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
  int64_t allocate(int64_t bytes) {
    int64_t offset = alignUp(next_);
    next_ = offset + bytes;
    return offset;
  }

  void scratch(const ir::Value* v) {
    Storage s;
    s.kind = StorageKind::Scratch;
    s.offset = allocate(v->type.byteSize());
    kernel_.storage[v] = s;
  }

  // Makes `v` share the buffer of `of`, resolving chains so that every alias names a real buffer.
  void alias(const ir::Value* v, const ir::Value* of) {
    const Storage& target = kernel_.storage.at(of);
    Storage s;
    s.kind = StorageKind::Alias;
    s.root = target.kind == StorageKind::Alias ? target.root : of;
    kernel_.storage[v] = s;
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

  void planRegion(const ir::Region& region) {
    for (const auto& op : region.ops) planOp(*op);
  }

  void planOp(const ir::Op& op) {
    OpPlan& p = kernel_.ops[&op];
    switch (op.kind) {
      case ir::OpKind::Constant: {
        Storage s;
        s.kind = StorageKind::Constant;
        kernel_.storage[op.result()] = s;
        return;
      }
      case ir::OpKind::Reshape:
        // Row-major data does not move in a reshape.
        alias(op.result(), op.operands[0]);
        return;
      case ir::OpKind::BitcastConvert:
        if (op.result()->type.byteSize() == op.operands[0]->type.byteSize() &&
            byteSize(op.result()->type.dtype) != byteSize(op.operands[0]->type.dtype)) {
          // Different widths add or drop the minor-most dim: the same little-endian bytes.
          alias(op.result(), op.operands[0]);
          return;
        }
        break;
      case ir::OpKind::While:
        planWhile(op, p);
        return;
      case ir::OpKind::Conditional:
        planConditional(op, p);
        return;
      default:
        break;
    }
    p.stage = kernel_.stageCount++;
    for (const auto& r : op.results) scratch(r.get());
    if (hasScalarRegions(op.kind)) {
      for (const auto& sub : op.regions) scalarRegion(*sub);
    }
    if (op.kind == ir::OpKind::Sort) {
      int64_t bytes = op.result()->type.numElements() * static_cast<int64_t>(sizeof(int64_t));
      p.temps = {allocate(bytes), allocate(bytes)};
    }
  }

  // Loop state lives in the While's result buffers; the condition and the body read it through
  // their arguments (aliases), and the body's yields are copied into it at the end of an iteration.
  void planWhile(const ir::Op& op, OpPlan& p) {
    p.stage = kernel_.stageCount++;
    for (const auto& r : op.results) scratch(r.get());
    for (const auto& region : op.regions) {
      for (size_t i = 0; i < region->args.size(); ++i) alias(region->args[i].get(), op.result(i));
      planRegion(*region);
    }
    const ir::Region& body = *op.regions[1];
    for (size_t k = 0; k < body.yields.size(); ++k) {
      const ir::Value* root = rootOf(body.yields[k]);
      bool isOtherState = false;
      for (size_t j = 0; j < op.results.size(); ++j) {
        if (j != k && root == op.result(j)) isOtherState = true;
      }
      kernel_.ops[&op].temps.push_back(isOtherState ? allocate(op.result(k)->type.byteSize())
                                                    : int64_t{-1});
    }
  }

  // Branch arguments alias the operands bound to them; every branch writes the result buffers.
  void planConditional(const ir::Op& op, OpPlan& p) {
    p.stage = kernel_.stageCount++;
    for (const auto& r : op.results) scratch(r.get());
    size_t next = 1;
    for (const auto& region : op.regions) {
      for (const auto& arg : region->args) alias(arg.get(), op.operands.at(next++));
      planRegion(*region);
    }
  }

  const ir::Value* rootOf(const ir::Value* v) const {
    const Storage& s = kernel_.storage.at(v);
    return s.kind == StorageKind::Alias ? s.root : v;
  }

  Kernel kernel_;
  int64_t next_ = 0;
};

}  // namespace

bool hasScalarRegions(ir::OpKind kind) {
  return kind == ir::OpKind::Reduce || kind == ir::OpKind::ReduceWindow ||
         kind == ir::OpKind::Scatter || kind == ir::OpKind::Sort;
}

const Storage& Kernel::storageOf(const ir::Value* v) const {
  const Storage& s = storage.at(v);
  return s.kind == StorageKind::Alias ? storage.at(s.root) : s;
}

const OpPlan& Kernel::opPlan(const ir::Op* op) const { return ops.at(op); }

Kernel plan(const ir::Program& program, Target target) { return Planner(program, target).run(); }

}  // namespace lf::plan
