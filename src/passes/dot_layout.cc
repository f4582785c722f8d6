#include "passes/dot_layout.h"

#include <unordered_map>
#include <vector>

namespace lf::passes {
namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

constexpr int64_t kMaxTransposedBytes = int64_t{16} << 20;

bool isMatrixVectorProduct(const Op& op) {
  if (op.kind != OpKind::Dot) return false;
  const auto& a = op.attr<ir::DotAttrs>();
  const Value* w = op.operands[0];
  const Value* x = op.operands[1];
  const DType t = op.result()->type.dtype;
  if (t != DType::F32 && t != DType::F64) return false;
  if (w->type.dtype != t || x->type.dtype != t) return false;
  if (!a.lhsBatch.empty() || w->type.rank() != 2 || x->type.rank() != 1) return false;
  if (a.lhsContracting != std::vector<int64_t>{1} || a.rhsContracting != std::vector<int64_t>{0})
    return false;
  const int64_t m = w->type.dims[0], k = w->type.dims[1];
  return m * byteSize(t) >= 32 && m * k * byteSize(t) <= kMaxTransposedBytes;
}

// The op of `outer` that contains `r` (directly or through nested regions), and whether a While is
// on the way; nullptr when `r` is not nested in `outer`.
Op* enclosingOpIn(Region* r, const Region* outer, bool& throughLoop) {
  throughLoop = false;
  while (r != nullptr && r->parent != nullptr) {
    Op* op = r->parent;
    throughLoop = throughLoop || op->kind == OpKind::While;
    if (op->parent == outer) return op;
    r = op->parent;
  }
  return nullptr;
}

void collect(const Region& r, std::vector<Op*>& dots) {
  for (const auto& op : r.ops) {
    for (const auto& sub : op->regions) collect(*sub, dots);
    if (isMatrixVectorProduct(*op)) dots.push_back(op.get());
  }
}

class Rewriter {
 public:
  void rewrite(Op& dot) {
    Value* w = dot.operands[0];
    Region* home = ir::definingRegion(w);
    bool throughLoop = false;
    Op* loop = enclosingOpIn(dot.parent, home, throughLoop);
    if (loop == nullptr || !throughLoop) return;
    Value*& wt = transposed_[w];
    if (wt == nullptr) {
      ir::Type t = w->type;
      std::swap(t.dims[0], t.dims[1]);
      std::unique_ptr<Op> transpose =
          ir::makeOp(OpKind::Transpose, {w}, {t}, ir::TransposeAttrs{{1, 0}}, dot.loc,
                     w->name + "_transposed");
      transpose->parent = home;
      wt = transpose->result();
      for (auto it = home->ops.begin(); it != home->ops.end(); ++it) {
        if (it->get() == loop) {
          home->ops.insert(it, std::move(transpose));
          break;
        }
      }
    }
    dot.operands = {dot.operands[1], wt};
    dot.attrs = ir::DotAttrs{{}, {}, {0}, {0}};
  }

 private:
  std::unordered_map<const Value*, Value*> transposed_;
};

}  // namespace

void transposeInvariantMatrixVectorProducts(ir::Program& program) {
  // Collected first: the rewrite inserts ops into the regions being walked.
  std::vector<Op*> dots;
  collect(program.body, dots);
  Rewriter r;
  for (Op* dot : dots) r.rewrite(*dot);
}

}  // namespace lf::passes
