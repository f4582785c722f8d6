// jax.random's threefry2x32 hash on the CPU. XLA:GPU gets it as a custom call (cu_threefry2x32_ffi,
// import_control_flow.cc); on the CPU jax lowers it as a call of a computation of 32-bit integer
// ops, in jax 0.11 a 5-trip while loop of four rounds each with the rotations carried as state.
// Imported as written, each call site becomes about 120 small stages once the loop is unrolled:
// a Gibbs sampler drawing gamma, beta and Dirichlet variates had 63% of its 11,600 kernel lines in
// ten such calls, and took GCC 42 s. A call whose computation evaluates to threefry2x32 on test
// inputs is imported as the Threefry2x32 op instead: one elementwise stage that fuses with its
// neighbours, as the custom call is. Recognition is by value, not by name or by the shape of jax's
// lowering, so a change in how jax writes the hash at worst loses the shortcut; a computation that
// only looks like it (another rotation, another key schedule) is imported as written.
#include <algorithm>
#include <set>

#include "frontend/importer.h"
#include "frontend/integer_eval.h"
#include "hlo/attributes.h"
#include "support/threefry.h"

namespace lf::frontend {
namespace {

bool isU32(const hlo::Shape& s) { return !s.isTuple && s.elementType == "u32"; }

// Whether an operand of `dims` broadcasts to the hash's shape `to` as jax's lowering allows: a
// scalar, or the same rank with each dim either `to`'s or 1 (a key per row of a vmapped draw).
bool broadcastsTo(const std::vector<int64_t>& dims, const std::vector<int64_t>& to) {
  if (dims.empty()) return true;
  if (dims.size() != to.size()) return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != to[d] && dims[d] != 1) return false;
  return true;
}

// Every dimension size of every array `comp` and the computations it calls declare.
void collectDimSizes(const hlo::Module& module, const hlo::Computation& comp,
                     std::set<const hlo::Computation*>& seen, std::set<int64_t>& sizes) {
  if (!seen.insert(&comp).second) return;
  std::vector<const hlo::Shape*> work;
  for (const hlo::Instruction& inst : comp.instructions) {
    work.push_back(&inst.shape);
    for (const std::string& callee : calledComputations(inst)) {
      if (const hlo::Computation* c = module.find(callee)) collectDimSizes(module, *c, seen, sizes);
    }
  }
  while (!work.empty()) {
    const hlo::Shape* s = work.back();
    work.pop_back();
    sizes.insert(s->dims.begin(), s->dims.end());
    for (const hlo::Shape& e : s->tupleElements) work.push_back(&e);
  }
}

// A test input: element j of parameter p in run r. Run 1 starts with Random123's all-zero and
// all-ones known-answer inputs; the rest are splitmix64 values.
uint32_t testValue(int run, int p, int64_t j) {
  if (run == 1 && j < 2) return j == 0 ? 0u : 0xffffffffu;
  uint64_t z = static_cast<uint64_t>(run) * 0x9E3779B97F4A7C15ull +
               static_cast<uint64_t>(p) * 7919 + static_cast<uint64_t>(j) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<uint32_t>(z ^ (z >> 31));
}

// The element of an operand of `dims` (broadcastsTo `to`) that element j of `to` reads.
int64_t broadcastIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& to,
                       int64_t j) {
  if (dims.empty()) return 0;
  int64_t at = 0, stride = 1;
  for (int64_t d = static_cast<int64_t>(to.size()) - 1; d >= 0; --d) {
    const int64_t i = j % to[d];
    j /= to[d];
    if (dims[d] != 1) at += i * stride;
    stride *= dims[d];
  }
  return at;
}

// Whether `callee`, given (k0, k1, x0, x1) (u32, each broadcasting to the result's shape), returns
// the tuple threefry2x32(k0, k1, x0, x1) for every input tried.
bool evaluatesToThreefry(const hlo::Module& module, const hlo::Computation& callee) {
  if (callee.rootIndex < 0) return false;
  const hlo::Shape& result = callee.root().shape;
  if (!result.isTuple || result.tupleElements.size() != 2 || !isU32(result.tupleElements[0]) ||
      result.tupleElements[0].toString() != result.tupleElements[1].toString())
    return false;
  const std::vector<int64_t>& dims = result.tupleElements[0].dims;
  std::vector<const hlo::Shape*> params(4, nullptr);
  for (const hlo::Instruction& inst : callee.instructions) {
    if (inst.opcode != "parameter") continue;
    if (inst.parameterNumber < 0 || inst.parameterNumber >= 4) return false;
    params[inst.parameterNumber] = &inst.shape;
  }
  for (const hlo::Shape* p : params) {
    if (p == nullptr || !isU32(*p) || !broadcastsTo(p->dims, dims)) return false;
  }

  // A large hash is tried on a few elements: each dim of more than kKeptDim elements is resized
  // to a small size that no array of the computation has, and the evaluator lets only ops that
  // treat every element alike touch the resized arrays, so what it computes per element is what
  // the full-size computation does.
  constexpr int64_t kKeptDim = 16;
  EvalOptions options;
  std::set<const hlo::Computation*> seen;
  std::set<int64_t> declared;
  collectDimSizes(module, callee, seen, declared);
  int64_t spare = 5;
  for (int64_t d : dims) {
    if (d <= kKeptDim || options.resizedDims.count(d)) continue;
    while (declared.count(spare)) ++spare;
    if (spare > kKeptDim) return false;
    options.resizedDims[d] = spare++;
  }
  auto resized = [&](std::vector<int64_t> ds) {
    for (int64_t& d : ds) {
      auto it = options.resizedDims.find(d);
      if (it != options.resizedDims.end()) d = it->second;
    }
    return ds;
  };
  const std::vector<int64_t> tried = resized(dims);
  constexpr int64_t kMaxTriedElements = 4096;  // many small dims (rank 8 of 16s) are not tried
  int64_t n = 1;
  for (int64_t d : tried) {
    if (d > kMaxTriedElements || n * d > kMaxTriedElements) return false;
    n *= d;
  }

  for (int run = 0; run < 2; ++run) {
    std::vector<EvalValue> args(4);
    for (int p = 0; p < 4; ++p) {
      args[p].dtype = DType::U32;
      args[p].dims = resized(params[p]->dims);
      args[p].resized = args[p].dims != params[p]->dims;
      int64_t count = 1;
      for (int64_t d : args[p].dims) count *= d;
      for (int64_t j = 0; j < count; ++j) args[p].bits.push_back(testValue(run, p, j));
    }
    std::optional<EvalValue> out = evaluateIntegerComputation(module, callee, args, options);
    if (!out || !out->isTuple || out->elements.size() != 2) return false;
    for (const EvalValue& half : out->elements) {
      if (half.isTuple || half.dtype != DType::U32 || half.dims != tried) return false;
    }
    for (int64_t j = 0; j < n; ++j) {
      auto in = [&](int p) {
        return static_cast<uint32_t>(args[p].bits[broadcastIndex(args[p].dims, tried, j)]);
      };
      const std::array<uint32_t, 2> expected = threefry2x32(in(0), in(1), in(2), in(3));
      if (out->elements[0].bits[j] != expected[0] || out->elements[1].bits[j] != expected[1])
        return false;
    }
  }
  return true;
}

}  // namespace

bool Importer::computesThreefry(const hlo::Computation& callee) {
  auto it = threefryCallees_.find(&callee);
  if (it == threefryCallees_.end())
    it = threefryCallees_.emplace(&callee, evaluatesToThreefry(module_, callee)).first;
  return it->second;
}

std::optional<Values> importThreefryCall(InstrContext& c, const hlo::Computation& callee) {
  if (c.operands.size() != 4 || c.inst.shape.tupleElements.size() != 2) return std::nullopt;
  for (const Values& leaves : c.operands) {
    if (leaves.size() != 1 || leaves[0]->type.dtype != DType::U32) return std::nullopt;
  }
  const std::vector<ir::Type> results = c.resultTypes();
  if (results.size() != 2) return std::nullopt;
  for (const Values& leaves : c.operands) {
    if (!broadcastsTo(leaves[0]->type.dims, results[0].dims)) return std::nullopt;
  }
  if (!c.importer.computesThreefry(callee)) return std::nullopt;
  // The op takes four arrays of the result's shape: a smaller key (a scalar, or one per row) is
  // reshaped to its dims that are the result's, then broadcast along the others.
  Values operands;
  for (const Values& leaves : c.operands) {
    ir::Value* v = leaves[0];
    if (v->type != results[0]) {
      ir::BroadcastAttrs kept;
      ir::Type t{DType::U32, {}};
      for (int d = 0; d < v->type.rank(); ++d) {
        if (v->type.dims[d] != results[0].dims[d]) continue;
        kept.dimensions.push_back(d);
        t.dims.push_back(v->type.dims[d]);
      }
      if (t != v->type) v = c.emit(ir::OpKind::Reshape, {v}, {t})->results[0].get();
      v = c.emit(ir::OpKind::Broadcast, {v}, {results[0]}, kept)->results[0].get();
    }
    operands.push_back(v);
  }
  return resultsOf(c.emit(ir::OpKind::Threefry2x32, operands, results));
}

}  // namespace lf::frontend
