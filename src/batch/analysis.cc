// The batch dimension of every value: one rule per op family, and a fixed point over loop state
// (state that starts shared may become batched in the body, as a scan's carry does when a batched
// value is added to it).
#include <algorithm>
#include <functional>
#include <optional>

#include "batch/batch.h"
#include "batch/rules.h"

namespace lf::batch {
namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Value;

struct Unmappable {
  std::string reason;
};

class Analyzer {
 public:
  Analyzer(Mapping& m, int64_t chains, bool iotaSources)
      : m_(m), chains_(chains), iotaSources_(iotaSources) {}

  void region(const Region& r) {
    for (const auto& op : r.ops) this->op(*op);
  }

  int dim(const Value* v) const {
    auto it = m_.dims.find(v);
    if (it == m_.dims.end()) throw Unmappable{"value " + v->name + " is read before it is defined"};
    return it->second;
  }

 private:
  [[noreturn]] static void mixes(const Op& op, const std::string& why) {
    std::string where = op.loc.known() ? " (line " + std::to_string(op.loc.line) + ")" : "";
    throw Unmappable{std::string(ir::opKindName(op.kind)) + " " + op.name + where + " " + why};
  }

  void op(const Op& op) {
    if (const int d = iotaSources_ ? batchSourceDim(op) : -1; d >= 0) {
      m_.batchSources.insert(&op);
      m_.dims[op.result()] = d;
      return;
    }
    std::vector<int> in;
    for (const Value* v : op.operands) in.push_back(dim(v));
    if (op.kind == OpKind::While) return loop(op, in);
    if (op.kind == OpKind::Conditional) return conditional(op, in);
    for (const auto& r : op.regions) closedScalarRegion(op, *r);
    OpRule rule = m_.groupReductions.count(&op) ? groupReductionRule(in) : ruleFor(op, in, chains_);
    if (!rule.error.empty()) mixes(op, rule.error);
    for (size_t i = 0; i < op.results.size(); ++i)
      m_.dims[op.result(static_cast<int>(i))] = rule.result;
  }

  // Reducer, comparator and combiner regions are scalar code on their arguments: they may read
  // only shared values from outside.
  void closedScalarRegion(const Op& parent, const Region& r) {
    for (const auto& a : r.args) m_.dims[a.get()] = -1;
    for (const auto& op : r.ops) {
      for (const Value* v : op->operands) {
        if (!m_.dims.count(v)) continue;
        if (m_.dims.at(v) >= 0) mixes(parent, "reads a batched value inside its scalar region");
      }
      for (const auto& res : op->results) m_.dims[res.get()] = -1;
    }
  }

  // Loop state: a state value is batched when its initial value or its next value is. Iterate
  // until no state changes (each can change once, from shared to batched).
  void loop(const Op& op, const std::vector<int>& in) {
    std::vector<int> state = in;
    const Region& cond = *op.regions[0];
    const Region& body = *op.regions[1];
    // A predicate per chain (jax.vmap of a loop whose chains stop at different times): the any()
    // over them is the group's, provided the body freezes finished chains (checked below).
    const Op* any = batchedPredicateReduce(op);
    if (any != nullptr) m_.groupReductions.insert(any);
    for (size_t round = 0; round <= state.size(); ++round) {
      bind(cond, state);
      bind(body, state);
      region(cond);
      region(body);
      bool changed = false;
      for (size_t k = 0; k < state.size(); ++k) {
        int next = dim(body.yields[k]);
        if (next == state[k] || next < 0) continue;
        if (state[k] >= 0) mixes(op, "moves the batch dimension of state " + std::to_string(k));
        state[k] = next;
        changed = true;
      }
      if (!changed) break;
    }
    if (any != nullptr && dim(any->operands[0]) < 0) {
      m_.groupReductions.erase(any);  // every chain's predicate is the same: an ordinary loop
    } else if (any != nullptr && !bodyFreezesFinishedChains(op, *any, state)) {
      mixes(op,
            "runs while any chain's predicate holds, and its body changes the state of "
            "chains whose predicate fails");
    }
    setResults(op, state);
  }

  void conditional(const Op& op, const std::vector<int>& in) {
    if (in[0] >= 0) mixes(op, "has a batched selector");
    const auto& counts = op.attr<ir::ConditionalAttrs>().branchOperandCounts;
    std::vector<int> results(op.results.size(), -1);
    size_t next = 1;
    for (size_t b = 0; b < op.regions.size(); ++b) {
      const Region& branch = *op.regions[b];
      std::vector<int> args(in.begin() + next, in.begin() + next + counts[b]);
      next += counts[b];
      bind(branch, args);
      region(branch);
      for (size_t k = 0; k < results.size(); ++k) {
        int d = dim(branch.yields[k]);
        if (d < 0) continue;
        if (results[k] >= 0 && results[k] != d)
          mixes(op, "yields result " + std::to_string(k) + " batched at different dimensions");
        results[k] = d;
      }
    }
    setResults(op, results);
  }

  void bind(const Region& r, const std::vector<int>& dims) {
    for (size_t k = 0; k < r.args.size(); ++k) m_.dims[r.args[k].get()] = dims[k];
  }

  void setResults(const Op& op, const std::vector<int>& dims) {
    for (size_t k = 0; k < op.results.size(); ++k)
      m_.dims[op.result(static_cast<int>(k))] = dims[k];
  }

  // An iota along a dimension of the batch size, or what constant folding made of one (the
  // counters that split hashes are folded before the analysis sees them): a constant whose leading
  // dimension has the batch size.
  int batchSourceDim(const Op& op) const {
    const auto& dims = op.result()->type.dims;
    if (op.kind == OpKind::Iota) {
      const int64_t d = op.attr<ir::IotaAttrs>().dimension;
      return dims[d] == chains_ ? static_cast<int>(d) : -1;
    }
    if (op.kind == OpKind::Constant && !dims.empty() && dims[0] == chains_) {
      return isSplat(op) ? -1 : 0;  // a broadcast constant is every chain's alike: shared
    }
    return -1;
  }

  static bool isSplat(const Op& op) {
    const std::vector<uint8_t>& bytes = op.attr<ir::ConstantAttrs>().bytes;
    const size_t element = static_cast<size_t>(byteSize(op.result()->type.dtype));
    for (size_t at = element; at + element <= bytes.size(); at += element) {
      if (!std::equal(bytes.begin(), bytes.begin() + element, bytes.begin() + at)) return false;
    }
    return true;
  }

  Mapping& m_;
  int64_t chains_;
  bool iotaSources_;
};

// The batch starts at the inputs whose leading dimension is `chains` (batchInputs), at the iotas
// and constants of that size (iotaSources), or at both.
Mapping tryChains(const ir::Program& program, int64_t chains, bool batchInputs, bool iotaSources) {
  Mapping m;
  for (const auto& arg : program.body.args) {
    const auto& dims = arg->type.dims;
    int d = batchInputs && !dims.empty() && dims[0] == chains ? 0 : -1;
    m.inputDims.push_back(d);
    m.dims[arg.get()] = d;
  }
  try {
    Analyzer a(m, chains, iotaSources);
    a.region(program.body);
    bool any = false;
    for (const Value* y : program.body.yields) {
      int d = a.dim(y);
      m.outputDims.push_back(d);
      any = any || d >= 0;
    }
    if (!any) {
      throw Unmappable{!batchInputs ? "no output depends on an iota or constant of that size"
                                    : "no output depends on a batched input"};
    }
  } catch (const Unmappable& u) {
    Mapping failed;
    failed.reason = "over " + std::to_string(chains) + " chains: " + u.reason;
    return failed;
  }
  m.chains = chains;
  return m;
}

}  // namespace

Mapping analyze(const ir::Program& program) {
  std::vector<int64_t> candidates;
  for (const Value* y : program.body.yields) {
    if (y->type.dims.empty() || y->type.dims[0] < 2) continue;
    if (std::find(candidates.begin(), candidates.end(), y->type.dims[0]) == candidates.end()) {
      candidates.push_back(y->type.dims[0]);
    }
  }
  // The first candidate's failure is the one reported: it is the batch of the first output.
  Mapping first;
  first.reason = "no output has a leading dimension of 2 or more";
  for (size_t c = 0; c < candidates.size(); ++c) {
    // Batched inputs and, where the chains' ops allow it, the iotas of the batch size too: the
    // noise `jax.random.normal(key, x.shape)` that a vmapped sampler adds to its batched state
    // is threefry over an iota of x's shape with one key for all chains. Shared, every group
    // would hash the whole batch's counters and read its own slice of the result; as a batch
    // source each group hashes only its own (half the work of conv_sampler's step on two
    // threads). An iota that the chains read as a shared table, or that a reduction sums over,
    // makes the analysis fail, and the inputs alone start the batch.
    Mapping m = tryChains(program, candidates[c], true, true);
    if (m.mapped()) return m;
    m = tryChains(program, candidates[c], true, false);
    if (m.mapped()) return m;
    if (c == 0) first.reason = m.reason;
  }
  // The batch made inside the program, from an iota or a constant, where the inputs give none.
  for (int64_t chains : candidates) {
    Mapping m = tryChains(program, chains, false, true);
    if (m.mapped()) return m;
  }
  return first;
}

ir::Type withGroup(const ir::Type& t, int d, int64_t group) {
  ir::Type out = t;
  if (d >= 0) out.dims[d] = group;
  return out;
}

}  // namespace lf::batch
