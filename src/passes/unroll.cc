#include "passes/unroll.h"

#include <limits>

#include "ir/clone.h"
#include "passes/fold.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// The raw bits of a scalar integer constant.
std::optional<uint64_t> scalarIntegerConstant(const ir::Value* v) {
  if (v->def == nullptr || v->def->kind != K::Constant || v->type.rank() != 0) return std::nullopt;
  if (!isInteger(v->type.dtype)) return std::nullopt;
  const auto& bytes = v->def->attr<ir::ConstantAttrs>().bytes;
  if (static_cast<int64_t>(bytes.size()) != v->type.byteSize()) return std::nullopt;
  return loadBits(v->type.dtype, bytes.data());
}

// Whether `next` is arg + 1 or 1 + arg.
bool isIncrement(const ir::Value* next, const ir::Value* arg) {
  const ir::Op* add = next->def;
  if (add == nullptr || add->kind != K::Add) return false;
  for (int i = 0; i < 2; ++i) {
    if (add->operands[i] == arg && scalarIntegerConstant(add->operands[1 - i]) == uint64_t{1}) {
      return true;
    }
  }
  return false;
}

int64_t countOps(const ir::Region& region) {
  int64_t n = 0;
  for (const auto& op : region.ops) {
    ++n;
    for (const auto& sub : op->regions) n += countOps(*sub);
  }
  return n;
}

class Unroller {
 public:
  // Inner loops first: the walk rewrites an op's regions before the op.
  void region(ir::Region& r) {
    auto visit = [this](std::unique_ptr<ir::Op>& op, std::vector<std::unique_ptr<ir::Op>>& kept,
                        ir::Region& parent) {
      if (op->kind == K::While) {
        std::optional<int64_t> trips = constantTripCount(*op);
        if (trips && *trips <= kMaxUnrolledTrips &&
            countOps(*op->regions[1]) <= kMaxUnrolledBodyOps) {
          unroll(*op, *trips, parent, kept);
          // Kept alive to the end of the pass, so that no new value reuses a key's address.
          removed_.push_back(std::move(op));
          return;
        }
      }
      kept.push_back(std::move(op));
    };
    ir::rewriteRegion(r, replaced_, visit);
  }

 private:
  // Appends `trips` copies of the body to `out`, each reading the state the previous one yields.
  void unroll(const ir::Op& loop, int64_t trips, ir::Region& parent,
              std::vector<std::unique_ptr<ir::Op>>& out) {
    const ir::Region& body = *loop.regions[1];
    std::vector<ir::Value*> state = loop.operands;
    for (int64_t t = 0; t < trips; ++t) {
      ir::ValueMap copy;
      for (size_t i = 0; i < state.size(); ++i) copy[body.args[i].get()] = state[i];
      for (const auto& op : body.ops) out.push_back(ir::cloneOp(*op, copy, &parent));
      for (size_t i = 0; i < state.size(); ++i) state[i] = ir::lookup(copy, body.yields[i]);
    }
    for (size_t i = 0; i < state.size(); ++i) {
      replaced_[loop.result(static_cast<int>(i))] = state[i];
    }
  }

  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

std::optional<int64_t> constantTripCount(const ir::Op& loop) {
  if (loop.kind != K::While || loop.regions.size() != 2) return std::nullopt;
  const ir::Region& cond = *loop.regions[0];
  const ir::Region& body = *loop.regions[1];
  const ir::Op* test = cond.yields.size() == 1 ? cond.yields[0]->def : nullptr;
  if (test == nullptr || test->kind != K::Compare) return std::nullopt;
  const ir::Value* counter = nullptr;
  const ir::Value* bound = nullptr;
  switch (test->attr<ir::CompareAttrs>().direction) {
    case ir::CompareDirection::LT:
      counter = test->operands[0], bound = test->operands[1];
      break;
    case ir::CompareDirection::GT:
      counter = test->operands[1], bound = test->operands[0];
      break;
    default:
      return std::nullopt;
  }
  if (counter->argOf != &cond) return std::nullopt;
  const size_t k = static_cast<size_t>(counter->index);
  std::optional<uint64_t> start = scalarIntegerConstant(loop.operands[k]);
  std::optional<uint64_t> end = scalarIntegerConstant(bound);
  if (!start || !end || !isIncrement(body.yields[k], body.args[k].get())) return std::nullopt;
  // The compare follows the counter's signedness (as the emitter does); the counter stops at N, so
  // it never wraps, and N - c0 fits in 64 unsigned bits.
  const DType t = counter->type.dtype;
  const int shift = 64 - bitWidth(t);
  bool runs = *start < *end;
  if (isSignedInt(t)) {
    runs = (static_cast<int64_t>(*start << shift) >> shift) <
           (static_cast<int64_t>(*end << shift) >> shift);
  }
  if (!runs) return 0;
  const uint64_t trips = ((*end - *start) << shift) >> shift;
  const uint64_t most = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return static_cast<int64_t>(trips < most ? trips : most);
}

void unrollSmallLoops(ir::Program& program) { Unroller().region(program.body); }

}  // namespace lf::passes
