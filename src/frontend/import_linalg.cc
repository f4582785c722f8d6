// cholesky and triangular-solve: XLA's HLO ops of those names, and the LAPACK (CPU) and cuSOLVER
// (CUDA) custom calls JAX lowers jnp.linalg.cholesky, jax.scipy.linalg.solve_triangular and the LU
// factorization behind jnp.linalg.solve / inv / slogdet to (getrf, and on CUDA the pivots-to-
// permutation kernel), and the QR and symmetric eigen-decompositions behind jnp.linalg.qr and eigh
// (geqrf, orgqr, syevd), the singular-value decomposition behind jnp.linalg.svd (gesdd), and the
// tridiagonal solve of lax.linalg.tridiagonal_solve (gtsv, cuSPARSE's gtsv2).
// The custom calls' operands and results are column-major ({0,1} layouts); loopfuse reads every
// array by its logical index, so LAPACK's 'L' (the lower triangle of the column-major buffer) is
// the lower triangle of the logical matrix too.
#include <cstring>
#include <limits>

#include "frontend/complex_parts.h"
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

// The largest eigh, as for the SVD's values (ir::kSvdValuesMaxRank): one thread decomposes each
// matrix (O(n^3) steps), in a workspace of about 3 n^2 elements (plan::eighWorkElements).
constexpr int64_t kEighMaxRows = 1024;

// One LAPACK character flag of a backend_config (`uplo = 76 : ui8` is 'L'), checked against the
// letters it may be.
char lapackFlag(InstrContext& c, const std::map<std::string, std::string>& config,
                const std::string& key, const std::string& allowed) {
  auto it = config.find(key);
  if (it == config.end()) c.fail("custom-call backend_config lacks '" + key + "'");
  int code = -1;
  try {
    code = std::stoi(it->second);
  } catch (const std::exception&) {
  }
  if (code <= 0 || code > 127 || allowed.find(static_cast<char>(code)) == std::string::npos) {
    c.fail("custom-call backend_config " + key + " = " + it->second + " is not one of '" + allowed +
           "'");
  }
  return static_cast<char>(code);
}

std::map<std::string, std::string> backendConfig(InstrContext& c) {
  const hlo::Attribute* a = c.optAttr("backend_config");
  return a == nullptr ? std::map<std::string, std::string>{} : hlo::readDictionary(*a);
}

// (factor, info) of a matrix given as its parts (one real, or the real and imaginary parts of a
// complex one), the factor in as many parts; info is s32 over the batch dimensions.
ir::Op* emitCholesky(InstrContext& c, Values parts, bool lower) {
  const ir::Type& a = parts[0]->type;
  std::vector<int64_t> batch(a.dims.begin(), a.dims.end() - std::min<int64_t>(a.rank(), 2));
  std::vector<ir::Type> types(parts.size(), a);
  types.push_back(ir::Type{DType::S32, batch});
  return c.emit(OpKind::Cholesky, std::move(parts), types, ir::CholeskyAttrs{lower});
}

// HLO cholesky(a), lower=true: the factor only (XLA leaves a failed factorization's values
// unspecified; here they are what the algorithm reached).
Values cholesky(InstrContext& c) {
  c.expectOperands(1);
  ir::Op* op = emitCholesky(c, {c.array(0)}, optBool(c, "lower", false));
  if (c.resultType() != op->result(0)->type) {
    c.fail("cholesky of " + op->operands[0]->type.toString() + " gives " +
           op->result(0)->type.toString() + ", not " + c.resultType().toString());
  }
  return {op->result(0)};
}

// The attributes of HLO triangular-solve(a, b), left_side=..., lower=..., unit_diagonal=...,
// transpose_a=...; ADJOINT conjugates complex matrices (for real ones it is the transpose).
ir::TriangularSolveAttrs triangularSolveAttrs(InstrContext& c, bool complex) {
  ir::TriangularSolveAttrs attrs;
  attrs.leftSide = optBool(c, "left_side", false);
  attrs.lower = optBool(c, "lower", false);
  attrs.unitDiagonal = optBool(c, "unit_diagonal", false);
  const hlo::Attribute* t = c.optAttr("transpose_a");
  const std::string transpose = t ? t->value : "NO_TRANSPOSE";
  if (transpose != "NO_TRANSPOSE" && transpose != "TRANSPOSE" && transpose != "ADJOINT") {
    c.fail("triangular-solve transpose_a=" + transpose +
           " is not NO_TRANSPOSE, TRANSPOSE or ADJOINT");
  }
  attrs.transposeA = transpose != "NO_TRANSPOSE";
  attrs.conjugateA = complex && transpose == "ADJOINT";
  return attrs;
}

Values triangularSolve(InstrContext& c) {
  c.expectOperands(2);
  return {
      c.emit1(OpKind::TriangularSolve, {c.array(0), c.array(1)}, triangularSolveAttrs(c, false))};
}

// The attributes of LAPACK's trsm (side, uplo, trans_x, diag); 'C' conjugates complex matrices.
ir::TriangularSolveAttrs trsmAttrs(InstrContext& c,
                                   const std::map<std::string, std::string>& config, bool complex) {
  ir::TriangularSolveAttrs attrs;
  attrs.leftSide = lapackFlag(c, config, "side", "LR") == 'L';
  attrs.lower = lapackFlag(c, config, "uplo", "LU") == 'L';
  const char trans = lapackFlag(c, config, "trans_x", "NTC");
  attrs.transposeA = trans != 'N';
  attrs.conjugateA = complex && trans == 'C';
  attrs.unitDiagonal = lapackFlag(c, config, "diag", "NU") == 'U';
  return attrs;
}

// potrf's triangle: cuSOLVER's `lower` flag or LAPACK's uplo.
bool potrfLower(InstrContext& c, const std::string& target,
                const std::map<std::string, std::string>& config) {
  if (target == "cusolver_potrf_ffi") {
    auto it = config.find("lower");
    return it == config.end() || it->second == "true";
  }
  return lapackFlag(c, config, "uplo", "LU") == 'L';
}

// getrf's results: (lu parts..., pivots s32[..., min(m, n)], info s32[...]), `a` one of the parts.
std::vector<ir::Type> luTypes(InstrContext& c, const std::string& target, ir::Value* a,
                              size_t parts) {
  if (a->type.rank() < 2) c.fail(target + " needs matrices, got " + a->type.toString());
  std::vector<int64_t> batch(a->type.dims.begin(), a->type.dims.end() - 2);
  std::vector<int64_t> pivots = batch;
  pivots.push_back(std::min(a->type.dims[a->type.rank() - 2], a->type.dims.back()));
  std::vector<ir::Type> types(parts, a->type);
  types.push_back(ir::Type{DType::S32, pivots});
  types.push_back(ir::Type{DType::S32, batch});
  return types;
}

// The results the custom call declares, checked against the op's.
Values declaredResults(InstrContext& c, const std::string& target, ir::Op* op) {
  std::vector<ir::Type> types;
  for (const auto& r : op->results) types.push_back(r->type);
  if (c.resultTypes() != types) {
    std::string want;
    for (const ir::Type& t : types) want += (want.empty() ? "" : ", ") + t.toString();
    c.fail("custom-call '" + target + "' of " + op->operands[0]->type.toString() + " gives (" +
           want + ")");
  }
  return resultsOf(op);
}

// geqrf(a) -> (a with R and the reflectors, taus); `parts` is a (or its real and imaginary parts),
// and so are both results.
Values qr(InstrContext& c, const std::string& target, Values parts) {
  c.expectOperands(1);
  ir::Value* a = parts[0];
  if (a->type.rank() < 2) c.fail(target + " needs matrices, got " + a->type.toString());
  std::vector<int64_t> taus(a->type.dims.begin(), a->type.dims.end() - 2);
  taus.push_back(std::min(a->type.dims[a->type.rank() - 2], a->type.dims.back()));
  std::vector<ir::Type> types(parts.size(), a->type);
  types.insert(types.end(), parts.size(), ir::Type{a->type.dtype, taus});
  return declaredResults(c, target, c.emit(OpKind::Qr, std::move(parts), types));
}

// orgqr(a, taus) -> q; `parts` is (a, taus) (or (a_re, a_im, taus_re, taus_im)).
Values householderProduct(InstrContext& c, const std::string& target, Values parts) {
  c.expectOperands(2);
  std::vector<ir::Type> types(parts.size() / 2, parts[0]->type);
  return declaredResults(c, target, c.emit(OpKind::HouseholderProduct, std::move(parts), types));
}

// ormqr(a, taus, c) -> Q c, Q^T c, c Q or c Q^T (backend_config left / transpose). The kernel
// copies the reflectors to a local array: at most kOrmqrMaxReflectorElements of them.
constexpr int64_t kOrmqrMaxReflectorElements = 16384;

Values ormqr(InstrContext& c, const std::string& target,
             const std::map<std::string, std::string>& config) {
  c.expectOperands(3);
  auto flag = [&](const char* name) {
    auto it = config.find(name);
    if (it == config.end()) c.fail(target + " needs '" + name + "' in its backend_config");
    return it->second == "true";
  };
  ir::OrmqrAttrs attrs{flag("left"), flag("transpose")};
  ir::Value* a = c.array(0);
  ir::Value* taus = c.array(1);
  if (a->type.rank() >= 2 && taus->type.rank() >= 1 &&
      a->type.dims[a->type.rank() - 2] * taus->type.dims.back() > kOrmqrMaxReflectorElements) {
    c.fail("unsupported " + target + " of " + a->type.toString() + " with " +
           std::to_string(taus->type.dims.back()) + " reflectors: loopfuse applies at most " +
           std::to_string(kOrmqrMaxReflectorElements) + " reflector elements; jax.jit runs it");
  }
  return declaredResults(c, target,
                         c.emit(OpKind::Ormqr, {a, taus, c.array(2)}, {c.array(2)->type}, attrs));
}

// syevd(a) -> (vectors, values, info), or for a complex a heevd's (the vectors complex, the values
// real). LAPACK solves the tridiagonal problem by QL/QR iteration up to 25 rows and by divide and
// conquer above; the eigenvectors' signs (phases) are that algorithm's choice, and both are
// ported step for step (lf_linalg.h, lf_stedc.h). Only the lower triangle (jax's default) is
// taken. `parts` is a (or its real and imaginary parts).
Values eigh(InstrContext& c, const std::string& target,
            const std::map<std::string, std::string>& config, Values parts) {
  c.expectOperands(1);
  ir::Value* a = parts[0];
  if (target == "cusolver_syevd_ffi") {
    auto it = config.find("lower");
    if (it != config.end() && it->second != "true") {
      c.fail("unsupported " + target + " of the upper triangle (lower=false); jax.jit runs it");
    }
  } else {
    if (lapackFlag(c, config, "uplo", "LU") != 'L') {
      c.fail("unsupported " + target + " of the upper triangle (uplo 'U'); jax.jit runs it");
    }
    lapackFlag(c, config, "mode", "NV");  // the vectors are computed either way
  }
  const int64_t n = a->type.rank() >= 1 ? a->type.dims.back() : 0;
  if (n > kEighMaxRows) {
    c.fail("unsupported " + target + " of " + std::to_string(n) + " x " + std::to_string(n) +
           " matrices (loopfuse's eigh runs one matrix per thread, up to " +
           std::to_string(kEighMaxRows) + " rows)");
  }
  std::vector<int64_t> batch(a->type.dims.begin(),
                             a->type.dims.end() - std::min(a->type.rank(), 2));
  std::vector<int64_t> values = batch;
  values.push_back(n);
  std::vector<ir::Type> types(parts.size(), a->type);
  types.push_back(ir::Type{a->type.dtype, values});
  types.push_back(ir::Type{DType::S32, batch});
  return declaredResults(c, target, c.emit(OpKind::Eigh, std::move(parts), types));
}

// gesdd(a) -> (a, values, u, vt, info), backend_config mode 'N' (values only), 'S' (the first
// min(m, n) vectors) or 'A' (all of them). With 'N' jax declares u and vt as m x m and n x n and
// never reads them: they are zeros here, and the op makes neither. cuSOLVER's gesvdj (jax's CUDA
// SVD of small matrices) gives (a, values, u, v, info), v not transposed, its mode in two flags;
// loopfuse computes it with LAPACK's gesdd too (cuSOLVER's Jacobi method picks other signs).
// gesdd's mode, 'N' (values only), 'S' or 'A'; gesvdj's from its two flags.
char svdMode(InstrContext& c, const std::string& target,
             const std::map<std::string, std::string>& config) {
  if (target != "cusolver_gesvdj_ffi") return lapackFlag(c, config, "mode", "NSA");
  auto flag = [&](const std::string& key) {
    auto it = config.find(key);
    if (it == config.end()) c.fail("custom-call backend_config lacks '" + key + "'");
    return it->second == "true";
  };
  const bool full = flag("full_matrices");
  return flag("compute_uv") ? (full ? 'A' : 'S') : 'N';
}

// An array of zeros of type t (gesdd's u and vt in mode 'N', which jax never reads).
ir::Value* zeros(InstrContext& c, const ir::Type& t) {
  std::vector<uint8_t> zero(static_cast<size_t>(byteSize(t.dtype)), 0);
  ir::Value* z =
      c.emit(OpKind::Constant, {}, {ir::Type{t.dtype, {}}}, ir::ConstantAttrs{zero})->result();
  return c.emit(OpKind::Broadcast, {z}, {t}, ir::BroadcastAttrs{})->result();
}

// geev(a) -> (wr, wi, vl, vr, info) of a real a (jnp.linalg.eig, eigvals), vl and vr complex;
// on a GPU jax's cuhybrid_eig_real, which runs LAPACK's geev on the host. Only the eigenvalues
// (jnp.linalg.eigvals: compute_left = compute_right = 'N'): vl and vr are then zeros, which jax
// never reads. LAPACK's own steps (lf_geev.h) give its order of the eigenvalues.
Values eigValues(InstrContext& c, const std::string& target,
                 const std::map<std::string, std::string>& config) {
  c.expectOperands(1);
  ir::Value* a = c.array(0);
  bool vectors = false;
  if (target == "cuhybrid_eig_real") {
    for (const char* key : {"left", "right"}) {
      auto it = config.find(key);
      if (it == config.end()) c.fail("custom-call backend_config lacks '" + std::string(key) + "'");
      vectors = vectors || it->second == "true";
    }
  } else {
    vectors = lapackFlag(c, config, "compute_left", "NV") == 'V';
    vectors = lapackFlag(c, config, "compute_right", "NV") == 'V' || vectors;
  }
  if (vectors) {
    c.fail("unsupported " + target + " with eigenvectors (jnp.linalg.eig): loopfuse computes " +
           "the eigenvalues alone (jnp.linalg.eigvals); jax.jit runs it");
  }
  if (a->type.rank() < 2) c.fail(target + " needs matrices, got " + a->type.toString());
  const int64_t n = a->type.dims.back();
  if (n > ir::kGeevMaxRows) {
    c.fail("unsupported " + target + " of " + std::to_string(n) + " x " + std::to_string(n) +
           " matrices (loopfuse's eigvals runs LAPACK's small-matrix QR iteration, up to " +
           std::to_string(ir::kGeevMaxRows) + " rows)");
  }
  std::vector<ir::Type> declared = c.resultTypes();
  if (declared.size() != 7) c.fail(target + " gives (wr, wi, vl, vr, info)");
  Values r =
      resultsOf(c.emit(OpKind::EigValues, {a}, {a->type, declared[0], declared[1], declared[6]}));
  Values out{r[1], r[2]};
  for (int i = 2; i < 6; ++i) out.push_back(zeros(c, declared[static_cast<size_t>(i)]));
  out.push_back(r[3]);
  return out;
}

Values svd(InstrContext& c, const std::string& target,
           const std::map<std::string, std::string>& config) {
  c.expectOperands(1);
  ir::Value* a = c.array(0);
  if (a->type.rank() < 2) c.fail(target + " needs matrices, got " + a->type.toString());
  const bool jacobi = target == "cusolver_gesvdj_ffi";
  const char mode = svdMode(c, target, config);
  const int64_t m = a->type.dims[a->type.rank() - 2], n = a->type.dims.back();
  // One thread decomposes each matrix (LAPACK's gesdd, lf_svd.h), up to min(m, n) = 1,024.
  if (std::min(m, n) > ir::kSvdValuesMaxRank) {
    c.fail("unsupported " + target + " of " + std::to_string(m) + " x " + std::to_string(n) +
           " matrices (loopfuse's svd decomposes each matrix on one thread, up to min(m, n) = " +
           std::to_string(ir::kSvdValuesMaxRank) + ")");
  }
  std::vector<ir::Type> declared = c.resultTypes();
  if (declared.size() != 5) c.fail(target + " gives (a, values, u, vt, info)");
  const int rank = a->type.rank();
  std::vector<int64_t> swapLast(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) swapLast[static_cast<size_t>(i)] = i;
  std::swap(swapLast[rank - 2], swapLast[rank - 1]);
  ir::Type declaredV = declared[3];
  if (jacobi && declaredV.rank() == rank) {
    std::swap(declared[3].dims[rank - 2], declared[3].dims[rank - 1]);
  }
  const ir::SvdAttrs attrs{mode != 'N', mode == 'A'};
  std::vector<ir::Type> types{declared[0], declared[1]};
  if (attrs.computeUv) types.insert(types.end(), {declared[2], declared[3]});
  types.push_back(declared[4]);
  Values r = resultsOf(c.emit(OpKind::Svd, {a}, types, attrs));
  if (jacobi && attrs.computeUv) {
    r[3] = c.emit(OpKind::Transpose, {r[3]}, {declaredV}, ir::TransposeAttrs{swapLast})->result();
  }
  if (!attrs.computeUv) {
    for (int i : {2, 3}) r.insert(r.begin() + i, zeros(c, declared[i]));
  }
  return r;
}

// gesdd / gesvdj of a complex matrix, mode 'N': (a, values, u, vt, info) as declared, a, u and vt
// complex (two leaves each; u and vt zeros, as for a real 'N').
Values complexSvdValues(InstrContext& c, const std::string& target,
                        const std::map<std::string, std::string>& config, ir::Value* re,
                        ir::Value* im) {
  c.expectOperands(1);
  if (re->type.rank() < 2) c.fail(target + " needs matrices, got " + re->type.toString());
  if (svdMode(c, target, config) != 'N') {
    c.fail("unsupported " + target + " of complex matrices with their singular vectors: " +
           "loopfuse computes a complex SVD's values only (compute_uv=False); jax.jit runs it");
  }
  const int64_t m = re->type.dims[re->type.rank() - 2], n = re->type.dims.back();
  if (std::min(m, n) > ir::kSvdValuesMaxRank) {
    c.fail("unsupported " + target + " of " + std::to_string(m) + " x " + std::to_string(n) +
           " complex matrices (up to min(m, n) = " + std::to_string(ir::kSvdValuesMaxRank) + ")");
  }
  const std::vector<ir::Type> declared = c.resultTypes();
  if (declared.size() != 8) c.fail(target + " gives (a, values, u, vt, info)");
  Values r = resultsOf(c.emit(OpKind::Svd, {re, im}, {re->type, re->type, declared[2], declared[7]},
                              ir::SvdAttrs{false, false}));
  Values out{r[0], r[1], r[2]};
  for (int i = 3; i < 7; ++i) out.push_back(zeros(c, declared[i]));
  out.push_back(r[3]);
  return out;
}

// A scalar constant of type t with the bytes of `value` (t's own width).
template <typename V>
ir::Value* scalarConstant(InstrContext& c, DType t, V value) {
  std::vector<uint8_t> bytes(sizeof(V));
  std::memcpy(bytes.data(), &value, sizeof(V));
  return c.emit(OpKind::Constant, {}, {ir::Type{t, {}}}, ir::ConstantAttrs{bytes})->result();
}

// x [..., n, k] where info [...] is 0, else NaN.
ir::Value* nanUnless(InstrContext& c, ir::Value* info, ir::Value* x) {
  const ir::Type& t = x->type;
  ir::Value* zero = c.emit(OpKind::Broadcast, {scalarConstant(c, DType::S32, int32_t{0})},
                           {info->type}, ir::BroadcastAttrs{})
                        ->result();
  ir::Value* ok = c.emit(OpKind::Compare, {info, zero}, {ir::Type{DType::Pred, info->type.dims}},
                         ir::CompareAttrs{ir::CompareDirection::EQ, ir::CompareType::Signed})
                      ->result();
  std::vector<int64_t> leading(info->type.dims.size());
  for (size_t i = 0; i < leading.size(); ++i) leading[i] = static_cast<int64_t>(i);
  ir::Value* okAll =
      c.emit(OpKind::Broadcast, {ok}, {ir::Type{DType::Pred, t.dims}}, ir::BroadcastAttrs{leading})
          ->result();
  ir::Value* nan = t.dtype == DType::F32
                       ? scalarConstant(c, t.dtype, std::numeric_limits<float>::quiet_NaN())
                       : scalarConstant(c, t.dtype, std::numeric_limits<double>::quiet_NaN());
  ir::Value* nans = c.emit(OpKind::Broadcast, {nan}, {t}, ir::BroadcastAttrs{})->result();
  return c.emit(OpKind::Select, {okAll, x, nans}, {t})->result();
}

// The diagonals [..., n] and b [..., n, k] of a tridiagonal solve, or a failure naming `target`.
void checkTridiagonalRanks(InstrContext& c, const std::string& target, const ir::Type& d,
                           const ir::Type& b) {
  if (d.rank() < 1 || b.rank() != d.rank() + 1) {
    c.fail(target + " needs diagonals [..., n] and b [..., n, k], got " + d.toString() + " and " +
           b.toString());
  }
}

// gtsv(dl, d, du, b) -> (dl, d, du, x, info) on the CPU; cuSPARSE's gtsv2(dl, d, du, b) -> x on
// CUDA (jax's tridiagonal_solve for more than 2 rows; loopfuse solves it with LAPACK's gtsv as
// well, whose pivoting cuSPARSE's gtsv2 shares). The diagonals are [..., n], b [..., n, k]:
// a factorization of the diagonals (tridiagonal-factor), and the solve of b with it. `operands`
// are (dl, d, du, b), each one real array or a complex one's (real, imaginary) parts.
Values tridiagonalSolve(InstrContext& c, const std::string& target,
                        const std::vector<Values>& operands) {
  const size_t parts = operands[0].size();
  const ir::Type& t = operands[1][0]->type;
  const ir::Type& b = operands[3][0]->type;
  checkTridiagonalRanks(c, target, t, b);
  const std::vector<int64_t> batch(t.dims.begin(), t.dims.end() - 1);
  Values diagonals;
  for (int i = 0; i < 3; ++i) {
    diagonals.insert(diagonals.end(), operands[i].begin(), operands[i].end());
  }
  std::vector<ir::Type> types(4 * parts, t);
  types.push_back(ir::Type{DType::U8, t.dims});
  types.push_back(ir::Type{DType::S32, batch});
  Values f = resultsOf(c.emit(OpKind::TridiagonalFactor, diagonals, types));
  Values solveOperands = f;
  solveOperands.insert(solveOperands.end(), operands[3].begin(), operands[3].end());
  Values x =
      resultsOf(c.emit(OpKind::TridiagonalSolve, solveOperands, std::vector<ir::Type>(parts, b)));
  ir::Value* info = f.back();
  if (target.starts_with("cusparse_")) {
    // gtsv2 reports no zero pivot; the systems gtsv finds singular give NaN, as jax's CPU
    // lowering makes them.
    if (c.resultTypes() != std::vector<ir::Type>(parts, b)) {
      c.fail("custom-call '" + target + "' of " + b.toString() + " gives " + b.toString());
    }
    for (ir::Value*& v : x) v = nanUnless(c, info, v);
    return x;
  }
  // (dl, d, du, x, info), the complex ones as their parts.
  Values r(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(3 * parts));
  r.insert(r.end(), x.begin(), x.end());
  r.push_back(info);
  std::vector<ir::Type> declared;
  for (const ir::Value* v : r) declared.push_back(v->type);
  if (c.resultTypes() != declared) {
    c.fail("custom-call '" + target + "' of " + t.toString() + " diagonals gives (" + t.toString() +
           " x 3, " + b.toString() + ", " + info->type.toString() + ")" +
           (parts == 2 ? " as complex parts" : ""));
  }
  return r;
}

// jax's tridiagonal_solve(..., perturb_singular=True): its own kernel, (dl, d, du, b) -> x, on the
// CPU and on CUDA alike. One thread solves each system with U's three diagonals and a row of the
// right-hand sides in its own arrays: 3 n + k elements at most kTridiagonalPerturbedMaxElements.
Values tridiagonalSolvePerturbed(InstrContext& c, const std::string& target) {
  c.expectOperands(4);
  ir::Value* d = c.array(1);
  ir::Value* b = c.array(3);
  checkTridiagonalRanks(c, target, d->type, b->type);
  const int64_t work = 3 * d->type.dims.back() + b->type.dims.back();
  if (work > ir::kTridiagonalPerturbedMaxElements) {
    c.fail("unsupported " + target + " of " + b->type.toString() +
           ": loopfuse's perturbed tridiagonal solve keeps 3 n + k <= " +
           std::to_string(ir::kTridiagonalPerturbedMaxElements) + " elements per thread");
  }
  return {c.emit1(OpKind::TridiagonalSolvePerturbed, {c.array(0), d, c.array(2), b})};
}

}  // namespace

// The known targets (kKnownCustomCallTargets) that are LAPACK's, cuSOLVER's or jax's LU helper.
bool isLinalgCustomCallTarget(std::string_view target) {
  return isKnownCustomCallTarget(target) &&
         (target.starts_with("lapack_") || target.starts_with("cusolver_") ||
          target == "cusparse_gtsv2_ffi" || target == "cu_lu_pivots_to_permutation" ||
          target.find("tridiagonal_solve_perturbed") != std::string::npos);
}

Values importLinalgCustomCall(InstrContext& c, const std::string& target) {
  const std::map<std::string, std::string> config = backendConfig(c);
  if (target.find("geqrf") != std::string::npos) return qr(c, target, {c.array(0)});
  if (target.find("orgqr") != std::string::npos) {
    return householderProduct(c, target, {c.array(0), c.array(1)});
  }
  if (target.find("syevd") != std::string::npos) return eigh(c, target, config, {c.array(0)});
  if (target.find("ormqr") != std::string::npos) return ormqr(c, target, config);
  if (target.find("gtsv") != std::string::npos) {
    c.expectOperands(4);
    return tridiagonalSolve(c, target, {{c.array(0)}, {c.array(1)}, {c.array(2)}, {c.array(3)}});
  }
  if (target.find("tridiagonal_solve_perturbed") != std::string::npos) {
    return tridiagonalSolvePerturbed(c, target);
  }
  if (target.find("gesdd") != std::string::npos || target == "cusolver_gesvdj_ffi") {
    return svd(c, target, config);
  }
  if (target.find("getrf") != std::string::npos) {
    c.expectOperands(1);
    ir::Value* a = c.array(0);
    return declaredResults(c, target, c.emit(OpKind::Lu, {a}, luTypes(c, target, a, 1)));
  }
  if (target == "cu_lu_pivots_to_permutation") {
    c.expectOperands(1);
    return {c.emit1(OpKind::LuPivotsToPermutation, {c.array(0)})};
  }
  if (target.find("potrf") != std::string::npos) {
    c.expectOperands(1);
    return declaredResults(c, target, emitCholesky(c, {c.array(0)}, potrfLower(c, target, config)));
  }
  c.expectOperands(2);
  return {c.emit1(OpKind::TriangularSolve, {c.array(0), c.array(1)}, trsmAttrs(c, config, false))};
}

bool takesComplexCustomCall(std::string_view target) {
  for (const char* t :
       {"Sharding",           "cusolver_getrf_ffi", "cusolver_potrf_ffi",  "lapack_cgetrf_ffi",
        "lapack_zgetrf_ffi",  "lapack_cpotrf_ffi",  "lapack_zpotrf_ffi",   "lapack_ctrsm_ffi",
        "lapack_ztrsm_ffi",   "cusolver_syevd_ffi", "lapack_cheevd_ffi",   "lapack_zheevd_ffi",
        "cusolver_geqrf_ffi", "cusolver_orgqr_ffi", "lapack_cgeqrf_ffi",   "lapack_zgeqrf_ffi",
        "lapack_cungqr_ffi",  "lapack_zungqr_ffi",  "cusolver_gesvdj_ffi", "lapack_cgesdd_ffi",
        "lapack_zgesdd_ffi",  "lapack_cgtsv_ffi",   "lapack_zgtsv_ffi",    "cusparse_gtsv2_ffi",
        "lapack_sgeev_ffi",   "lapack_dgeev_ffi",   "cuhybrid_eig_real"}) {
    if (target == t) return true;
  }
  return false;
}

// A custom call on complex values: each complex operand is its (real, imaginary) leaves.
Values importComplexCustomCall(InstrContext& c) {
  const std::string target = hlo::readString(c.attr("custom_call_target"));
  if (!takesComplexCustomCall(target)) {
    c.fail("unsupported custom-call target '" + target + "' on complex numbers (" +
           c.inst.shape.toString() + ")");
  }
  if (target == "Sharding") {
    c.expectOperands(1);
    std::vector<ir::Type> operand;
    for (const ir::Value* v : c.operands[0]) operand.push_back(v->type);
    if (operand != c.resultTypes()) c.fail("custom-call 'Sharding' changes the type");
    return c.operands[0];
  }
  const std::map<std::string, std::string> config = backendConfig(c);
  if (target.find("geev") != std::string::npos || target == "cuhybrid_eig_real") {
    return eigValues(c, target, config);
  }
  auto [aRe, aIm] = parts(c, 0);
  if (aIm == nullptr) c.fail("custom-call '" + target + "' of a real matrix gives complex ones");
  if (target.find("getrf") != std::string::npos) {
    c.expectOperands(1);
    return declaredResults(c, target, c.emit(OpKind::Lu, {aRe, aIm}, luTypes(c, target, aRe, 2)));
  }
  if (target.find("potrf") != std::string::npos) {
    c.expectOperands(1);
    return declaredResults(c, target, emitCholesky(c, {aRe, aIm}, potrfLower(c, target, config)));
  }
  if (target.find("heevd") != std::string::npos || target == "cusolver_syevd_ffi") {
    return eigh(c, target, config, {aRe, aIm});
  }
  if (target.find("geqrf") != std::string::npos) return qr(c, target, {aRe, aIm});
  if (target.find("gtsv") != std::string::npos) {
    c.expectOperands(4);
    std::vector<Values> operands{{aRe, aIm}};
    for (size_t i = 1; i < 4; ++i) {
      auto [re, im] = parts(c, i);
      if (im == nullptr) c.fail("custom-call '" + target + "' of real and complex arrays");
      operands.push_back({re, im});
    }
    return tridiagonalSolve(c, target, operands);
  }
  if (target.find("gesdd") != std::string::npos || target == "cusolver_gesvdj_ffi") {
    return complexSvdValues(c, target, config, aRe, aIm);
  }
  if (target.find("ungqr") != std::string::npos || target == "cusolver_orgqr_ffi") {
    auto [tRe, tIm] = parts(c, 1);
    if (tIm == nullptr) c.fail("custom-call '" + target + "' of real taus");
    return householderProduct(c, target, {aRe, aIm, tRe, tIm});
  }
  c.expectOperands(2);
  auto [bRe, bIm] = parts(c, 1);
  if (bIm == nullptr) c.fail("custom-call '" + target + "' of a real right-hand side");
  return resultsOf(c.emit(OpKind::TriangularSolve, {aRe, aIm, bRe, bIm}, {bRe->type, bRe->type},
                          trsmAttrs(c, config, true)));
}

void addLinalgHandlers(HandlerTable& t) {
  t["cholesky"] = cholesky;
  t["triangular-solve"] = triangularSolve;
}

void addComplexLinalgHandlers(HandlerTable& t) {
  t["custom-call"] = importComplexCustomCall;
  // HLO cholesky(a) and triangular-solve(a, b) on complex matrices (jax on CUDA emits the latter).
  t["cholesky"] = [](InstrContext& c) -> Values {
    c.expectOperands(1);
    auto [re, im] = parts(c, 0);
    if (im == nullptr) c.fail("cholesky of a real matrix gives a complex one");
    Values r = resultsOf(emitCholesky(c, {re, im}, optBool(c, "lower", false)));
    return {r[0], r[1]};
  };
  t["triangular-solve"] = [](InstrContext& c) -> Values {
    c.expectOperands(2);
    auto [aRe, aIm] = parts(c, 0);
    auto [bRe, bIm] = parts(c, 1);
    if (aIm == nullptr || bIm == nullptr) c.fail("triangular-solve of real and complex matrices");
    return resultsOf(c.emit(OpKind::TriangularSolve, {aRe, aIm, bRe, bIm}, {bRe->type, bRe->type},
                            triangularSolveAttrs(c, true)));
  };
}

}  // namespace lf::frontend
