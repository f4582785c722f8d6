#include "passes/cse.h"

#include <functional>
#include <unordered_map>

#include "ir/clone.h"

namespace lf::passes {
namespace {

using K = ir::OpKind;

// Values defined inside the first op's regions, paired with those of the second.
using Correspondence = std::unordered_map<const ir::Value*, const ir::Value*>;

bool sameValue(const ir::Value* a, const ir::Value* b, const Correspondence& inside) {
  auto it = inside.find(a);
  return it != inside.end() ? it->second == b : a == b;
}

bool sameOp(const ir::Op& a, const ir::Op& b, Correspondence& inside);

bool sameRegion(const ir::Region& a, const ir::Region& b, Correspondence& inside) {
  if (a.args.size() != b.args.size() || a.ops.size() != b.ops.size() ||
      a.yields.size() != b.yields.size()) {
    return false;
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (a.args[i]->type != b.args[i]->type) return false;
    inside[a.args[i].get()] = b.args[i].get();
  }
  for (size_t i = 0; i < a.ops.size(); ++i) {
    if (!sameOp(*a.ops[i], *b.ops[i], inside)) return false;
  }
  for (size_t i = 0; i < a.yields.size(); ++i) {
    if (!sameValue(a.yields[i], b.yields[i], inside)) return false;
  }
  return true;
}

bool sameOp(const ir::Op& a, const ir::Op& b, Correspondence& inside) {
  if (a.kind != b.kind || !(a.attrs == b.attrs) || a.operands.size() != b.operands.size() ||
      a.results.size() != b.results.size() || a.regions.size() != b.regions.size()) {
    return false;
  }
  for (size_t i = 0; i < a.operands.size(); ++i) {
    if (!sameValue(a.operands[i], b.operands[i], inside)) return false;
  }
  for (size_t i = 0; i < a.results.size(); ++i) {
    if (a.results[i]->type != b.results[i]->type) return false;
    inside[a.results[i].get()] = b.results[i].get();
  }
  for (size_t i = 0; i < a.regions.size(); ++i) {
    if (!sameRegion(*a.regions[i], *b.regions[i], inside)) return false;
  }
  return true;
}

void combine(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); }

// Kind, operands, result types and constant bytes; other attributes and regions are left to
// sameOp (equal ops must hash equally, unequal ones may collide).
size_t hashOp(const ir::Op& op) {
  size_t h = static_cast<size_t>(op.kind);
  for (const ir::Value* v : op.operands) combine(h, std::hash<const ir::Value*>()(v));
  for (const auto& r : op.results) {
    combine(h, static_cast<size_t>(r->type.dtype));
    for (int64_t d : r->type.dims) combine(h, static_cast<size_t>(d));
  }
  if (op.kind == K::Constant) {
    for (uint8_t b : op.attr<ir::ConstantAttrs>().bytes) combine(h, b);
  }
  combine(h, op.regions.size());
  return h;
}

// Loop and branch regions run as ordinary code and may read enclosing values; the others are
// inlined per element as scalar code.
bool regionsSeeEnclosingValues(K kind) { return kind == K::While || kind == K::Conditional; }

class Cse {
 public:
  void region(ir::Region& r) {
    scopes_.emplace_back();
    std::vector<std::unique_ptr<ir::Op>> kept;
    kept.reserve(r.ops.size());
    for (auto& op : r.ops) {
      for (ir::Value*& v : op->operands) v = ir::lookup(replaced_, v);
      for (auto& sub : op->regions) {
        if (regionsSeeEnclosingValues(op->kind)) {
          region(*sub);
        } else {
          isolatedRegion(*sub);
        }
      }
      const size_t h = hashOp(*op);
      if (const ir::Op* earlier = find(*op, h)) {
        for (size_t i = 0; i < op->results.size(); ++i) {
          replaced_[op->result(static_cast<int>(i))] = earlier->result(static_cast<int>(i));
        }
        // Kept alive to the end of the pass, so that no new value reuses a key's address.
        removed_.push_back(std::move(op));
        continue;
      }
      scopes_.back().emplace(h, op.get());
      kept.push_back(std::move(op));
    }
    r.ops = std::move(kept);
    for (ir::Value*& y : r.yields) y = ir::lookup(replaced_, y);
    scopes_.pop_back();
  }

 private:
  void isolatedRegion(ir::Region& r) {
    std::vector<Scope> outer = std::move(scopes_);
    scopes_.clear();
    region(r);
    scopes_ = std::move(outer);
  }

  const ir::Op* find(const ir::Op& op, size_t h) const {
    for (const Scope& scope : scopes_) {
      auto [begin, end] = scope.equal_range(h);
      for (auto it = begin; it != end; ++it) {
        Correspondence inside;
        if (sameOp(*it->second, op, inside)) return it->second;
      }
    }
    return nullptr;
  }

  using Scope = std::unordered_multimap<size_t, const ir::Op*>;
  std::vector<Scope> scopes_;  // the enclosing regions' ops, outermost first
  ir::ValueMap replaced_;
  std::vector<std::unique_ptr<ir::Op>> removed_;
};

}  // namespace

void eliminateCommonSubexpressions(ir::Program& program) { Cse().region(program.body); }

}  // namespace lf::passes
