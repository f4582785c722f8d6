#include "passes/excess_precision.h"

#include "ir/clone.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// The bf16 elementwise op whose result `convert` widens to f32, or nullptr. Converts, compares,
// selects and clamps round nothing (or are not arithmetic), so they are left alone.
const ir::Op* widenedBf16Op(const ir::Op& convert) {
  if (convert.kind != K::Convert || convert.result()->type.dtype != DType::F32) return nullptr;
  const ir::Value* x = convert.operands[0];
  if (x->type.dtype != DType::BF16 || x->def == nullptr || !ir::isElementwise(x->def->kind)) {
    return nullptr;
  }
  switch (x->def->kind) {
    case K::Convert:
    case K::BitcastConvert:
    case K::Compare:
    case K::Select:
    case K::Clamp:
    case K::IsFinite:
      return nullptr;
    default:
      break;
  }
  for (const ir::Value* operand : x->def->operands) {
    if (operand->type.dtype != DType::BF16) return nullptr;
  }
  return x->def;
}

class Widener {
 public:
  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      const ir::Op* half = widenedBf16Op(*op);
      if (half == nullptr) {
        kept.push_back(std::move(op));
        return;
      }
      std::vector<ir::Value*> wide;
      for (ir::Value* operand : half->operands) {
        ir::Type t = operand->type;
        t.dtype = DType::F32;
        wide.push_back(
            append(kept, parent,
                   ir::makeOp(K::Convert, {operand}, {t}, ir::NoAttrs{}, op->loc, operand->name)));
      }
      replaced_[op->result()] = append(kept, parent,
                                       ir::makeOp(half->kind, std::move(wide), {op->result()->type},
                                                  half->attrs, half->loc, half->name));
      removed_.push_back(std::move(op));  // kept alive to the end of the pass, as in simplify
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  static ir::Value* append(std::vector<std::unique_ptr<ir::Op>>& kept, ir::Region& parent,
                           std::unique_ptr<ir::Op> op) {
    op->parent = &parent;
    kept.push_back(std::move(op));
    return kept.back()->result();
  }

  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void keepExcessPrecision(ir::Program& program) { Widener().region(program.body); }

}  // namespace lf::passes
