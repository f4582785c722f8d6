// Control flow and value plumbing: while, conditional, call (inlined), tuple and
// get-tuple-element (list reorganisation), copy / optimization-barrier / after-all (forwarding),
// and the known custom calls.
#include <iterator>

#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {

// "Sharding" is an annotation, not a computation: JAX wraps values in it where it records their
// sharding (a jax.random.key argument, with_sharding_constraint); on one device it is the value.
const char* const kKnownCustomCallTargets[] = {
    "cu_threefry2x32", "cu_threefry2x32_ffi", "Sharding",
    // Linear algebra (import_linalg.cc).
    "lapack_spotrf_ffi", "lapack_dpotrf_ffi", "cusolver_potrf_ffi", "lapack_strsm_ffi",
    "lapack_dtrsm_ffi", "lapack_sgetrf_ffi", "lapack_dgetrf_ffi", "cusolver_getrf_ffi",
    "cu_lu_pivots_to_permutation", "lapack_sgeqrf_ffi", "lapack_dgeqrf_ffi", "cusolver_geqrf_ffi",
    "lapack_sorgqr_ffi", "lapack_dorgqr_ffi", "cusolver_orgqr_ffi", "lapack_ssyevd_ffi",
    "lapack_dsyevd_ffi", "cusolver_syevd_ffi", "lapack_sgesdd_ffi", "lapack_dgesdd_ffi",
    "cusolver_gesvdj_ffi", "lapack_sormqr_ffi", "lapack_dormqr_ffi", "cusolver_ormqr_ffi",
    "lapack_sgtsv_ffi", "lapack_dgtsv_ffi", "cusparse_gtsv2_ffi", "tridiagonal_solve_perturbed_ffi",
    "cu_tridiagonal_solve_perturbed",
    // The eigenvalues of a general real matrix (its outputs are complex: import_linalg.cc).
    "lapack_sgeev_ffi", "lapack_dgeev_ffi", "cuhybrid_eig_real",
    // Complex linear algebra (import_linalg.cc; cuSOLVER's targets above take complex too).
    "lapack_cpotrf_ffi", "lapack_zpotrf_ffi", "lapack_ctrsm_ffi", "lapack_ztrsm_ffi",
    "lapack_cgetrf_ffi", "lapack_zgetrf_ffi", "lapack_cheevd_ffi", "lapack_zheevd_ffi",
    "lapack_cgeqrf_ffi", "lapack_zgeqrf_ffi", "lapack_cungqr_ffi", "lapack_zungqr_ffi",
    "lapack_cgesdd_ffi", "lapack_zgesdd_ffi", "lapack_cgtsv_ffi", "lapack_zgtsv_ffi"};
const size_t kNumKnownCustomCallTargets = std::size(kKnownCustomCallTargets);

bool isKnownCustomCallTarget(std::string_view target) {
  for (const char* t : kKnownCustomCallTargets) {
    if (target == t) return true;
  }
  return isHostCallbackTarget(target);
}

namespace {

using ir::OpKind;

std::vector<ir::Type> typesOf(const Values& vs) {
  std::vector<ir::Type> out;
  for (const ir::Value* v : vs) out.push_back(v->type);
  return out;
}

std::string operandText(const std::vector<ir::Type>& types) {
  std::string out;
  for (const ir::Type& t : types) out += (out.empty() ? "" : ", ") + t.toString();
  return types.size() == 1 ? out : "(" + out + ")";
}

// The while state is the single (usually tuple) operand, flattened.
Values whileLoop(InstrContext& c) {
  c.expectOperands(1);
  const Values& state = c.operands[0];
  std::vector<ir::Type> types = typesOf(state);
  ir::Op* op = c.emit(OpKind::While, state, c.resultTypes());
  c.addRegion(op, "condition", {types});
  c.addRegion(op, "body", {types});
  c.check(op);
  return resultsOf(op);
}

// Pred form: operands (pred, true_operand, false_operand); index form: (index, operand_0, ...).
Values conditional(InstrContext& c) {
  c.expectOperandsAtLeast(2);
  ir::Value* selector = c.array(0);
  std::vector<std::string> branches;
  ir::ConditionalAttrs attrs;
  if (const hlo::Attribute* list = c.optAttr("branch_computations")) {
    branches = hlo::readComputationList(*list);
  } else {
    branches = {hlo::readComputationName(c.attr("true_computation")),
                hlo::readComputationName(c.attr("false_computation"))};
    attrs.predicateSelector = true;
  }
  c.expectOperands(1 + branches.size());
  Values operands{selector};
  for (size_t k = 0; k < branches.size(); ++k) {
    const Values& leaves = c.operands[1 + k];
    attrs.branchOperandCounts.push_back(static_cast<int>(leaves.size()));
    operands.insert(operands.end(), leaves.begin(), leaves.end());
  }
  ir::Op* op = c.emit(OpKind::Conditional, operands, c.resultTypes(), attrs);
  for (size_t k = 0; k < branches.size(); ++k) {
    c.addRegionFor(op, branches[k], {typesOf(c.operands[1 + k])});
  }
  c.check(op);
  return resultsOf(op);
}

// A call is inlined, except one of jax's threefry2x32 hash (threefry_call.cc).
Values call(InstrContext& c) {
  const std::string callee = hlo::readComputationName(c.attr("to_apply"));
  if (std::optional<Values> hash = importThreefryCall(c, c.importer.computation(callee, c)))
    return *hash;
  return c.inlineCall(callee, c.operands);
}

Values tuple(InstrContext& c) {
  Values out;
  for (const Values& leaves : c.operands) out.insert(out.end(), leaves.begin(), leaves.end());
  return out;
}

Values getTupleElement(InstrContext& c) {
  c.expectOperands(1);
  const hlo::Shape& shape = c.operandShape(0);
  int64_t index = hlo::readInt(c.attr("index"));
  if (!shape.isTuple || index < 0 || index >= static_cast<int64_t>(shape.tupleElements.size())) {
    c.fail("get-tuple-element index " + std::to_string(index) + " out of range for " +
           shape.toString());
  }
  size_t first = 0;
  for (int64_t i = 0; i < index; ++i) first += leafCount(shape.tupleElements[i]);
  size_t count = leafCount(shape.tupleElements[index]);
  const Values& leaves = c.operands[0];
  if (first + count > leaves.size())
    c.fail("get-tuple-element operand has fewer leaves than its shape");
  return Values(leaves.begin() + first, leaves.begin() + first + count);
}

// copy, optimization-barrier: the value itself (loopfuse never aliases, so a copy is free).
Values forward(InstrContext& c) {
  c.expectOperands(1);
  return c.operands[0];
}

Values afterAll(InstrContext&) { return {}; }

// add-dependency(value, token): the value.
Values addDependency(InstrContext& c) {
  c.expectOperands(2);
  return c.operands[0];
}

// threefry2x32, typed FFI (k0, k1, x0, x1) or legacy (k0, k1, x0, x1[, n]): a tuple of two u32
// arrays; Sharding: its operand; LAPACK / cuSOLVER: import_linalg.cc; host callbacks:
// import_host_callback.cc.
Values customCall(InstrContext& c) {
  std::string target = hlo::readString(c.attr("custom_call_target"));
  if (!isKnownCustomCallTarget(target)) c.fail("unsupported custom-call target '" + target + "'");
  if (isLinalgCustomCallTarget(target)) return importLinalgCustomCall(c, target);
  if (isHostCallbackTarget(target)) return importHostCallback(c, target);
  if (target == "Sharding") {
    c.expectOperands(1);
    const std::vector<ir::Type> operand = typesOf(c.operands[0]);
    const std::vector<ir::Type> result = c.resultTypes();
    if (operand != result) {
      c.fail("custom-call 'Sharding' changes the type: operand " + operandText(operand) +
             ", result " + operandText(result));
    }
    return c.operands[0];
  }
  if (target == "cu_threefry2x32") {
    if (c.operands.size() != 4 && c.operands.size() != 5)
      c.fail("cu_threefry2x32 takes 4 or 5 operands");
  } else {
    c.expectOperands(4);
  }
  Values operands;
  for (size_t i = 0; i < 4; ++i) operands.push_back(c.array(i));
  ir::Op* op = c.emit(OpKind::Threefry2x32, operands, c.resultTypes());
  return resultsOf(op);
}

}  // namespace

void addControlFlowHandlers(HandlerTable& t) {
  t["while"] = whileLoop;
  t["conditional"] = conditional;
  t["call"] = call;
  t["tuple"] = tuple;
  t["get-tuple-element"] = getTupleElement;
  t["copy"] = forward;
  t["optimization-barrier"] = forward;
  t["opt-barrier"] = forward;  // the spelling XLA prints
  t["after-all"] = afterAll;
  t["add-dependency"] = addDependency;
  t["custom-call"] = customCall;
}

}  // namespace lf::frontend
