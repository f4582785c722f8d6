// The CPU's register-tiled dot: a GEMM micro-kernel written out by the emitter. Each SPMD
// iteration computes a tile of rows x columns of the result in vector registers, for the whole
// contraction: per contraction step it loads the tile's rhs row once (one or two vectors) and
// broadcasts each row's lhs element into a lane-wise fma with it. This is what makes a dot run at
// the core's fma rate (2 fmas a cycle, on 32 or 64 bytes) instead of the scalar forms' latency-
// bound chains: a 16x160x128 f32 product went from 26 to 113 GFLOP/s on one Zen 4 core.
//
// The tile shape depends on the vector width, which only the C++ compiler of the kernel knows
// (-march=native), so the dot is written twice: for 64-byte vectors (AVX-512: 32 registers, tiles
// of 8 rows x 2 vectors, 16 accumulators) and for 32-byte ones (AVX2: 16 registers, 6 rows x 2
// vectors), and LF_CPU_VECTOR_BYTES (lf_cpu_vector.h) picks one. Rows and columns that do not fill
// a tile get tiles of their own: fewer rows, and vectors of which only the first lanes are loaded
// and stored.
//
// The tiles read the rhs in place when its columns are consecutive in memory; a transposed rhs
// (x @ w.T: in backward passes, in a vmapped equinox Linear, V diag(w) V^T after an eigh) is first
// copied, transposed, into a local array of at most 64 KB: the whole rhs, or with batch dims one
// batch's rhs at a time.
//
// Each result is still one chain of fmas in increasing contraction order, from zero: the same bits
// as every other form of the dot, whichever variant the compiler picks.
#include <algorithm>
#include <string>

#include "codegen/dot_form.h"

namespace lf::codegen {

// One loop nest of tiles, all of the same shape, over every batch of the dot.
struct DotTileNest {
  int vectorBytes;        // 32 or 64
  int64_t lanes;          // elements per vector
  int64_t rows;           // rows per tile
  int64_t rowBase;        // the first row (within a batch) of the nest's first tile
  int64_t rowTiles;       // tiles along the rows of one batch
  int64_t cols;           // columns per tile: all lanes of its vectors but the last one's
  int64_t colStride;      // columns from one tile to the next
  int64_t colBase;        // the nest's first column
  int64_t colTiles;       // tiles along the columns
  std::string packedRhs;  // the local array [k][column] the rhs was copied into; empty: none
  std::string batch;      // the batch the nest covers (a loop variable); empty: every batch
};

namespace {

using dot::contains;
using dot::DotForm;
using dot::dotForm;
using dot::dotOperandIndex;
using dot::forEachTileNest;
using dot::product;
using dot::TileShape;
using dot::tileShape;
using dot::vectorType;

std::string num(int64_t n) { return std::to_string(n); }

// Scalar tiles: at most this many columns, and 16 accumulators (as many rows as fit, up to 8).
constexpr int64_t kMaxScalarTileCols = 8;
constexpr int64_t kScalarTileAccumulators = 16;

int64_t rowsPerBatch(const DotForm& f) {
  return product({f.rowDims.begin() + f.batch, f.rowDims.end()});
}

}  // namespace

bool Emitter::isAddressable(const ir::Value* v) const {
  const plan::Storage& s = kernel_.storageOf(v);
  switch (s.kind) {
    case plan::StorageKind::Alias:
      return s.root->type.dtype != v->type.dtype || isAddressable(s.root);
    case plan::StorageKind::Input:
    case plan::StorageKind::Scratch:
    case plan::StorageKind::Constant:
    case plan::StorageKind::NextState:
      return true;
    case plan::StorageKind::Local:
      return v->type.numElements() > 1;
    default:
      return false;
  }
}

// f32 or f64 throughout, the result in memory, and at least 32 bytes of columns. The tiles read
// the rhs in place when its free dims are its minor dims in order (a tile's columns are then
// consecutive in memory at each contraction step); otherwise (x @ w.T, a vmapped equinox Linear)
// from a copy transposed into a local array, when one batch's rhs fits in 64 KB and there are
// enough rows per batch (4) for the copy to pay.
DotTiling Emitter::dotTiling(const ir::Op& op, int64_t lhsFree) const {
  if (target_ != Target::Cpu) return DotTiling::None;
  const DotForm f = dotForm(op, lhsFree);
  const DType t = f.out->type.dtype;
  if (t != DType::F32 && t != DType::F64) return DotTiling::None;
  if (f.lhs->type.dtype != t || f.rhs->type.dtype != t) return DotTiling::None;
  if (isLocal(f.out) || !isAddressable(f.out)) return DotTiling::None;
  if (f.out->type.numElements() == 0) return DotTiling::None;
  const int64_t cols = product(f.colDims);
  if (cols * byteSize(t) < 32)
    return cols <= kMaxScalarTileCols ? DotTiling::Scalar : DotTiling::None;
  bool minorColumns = isAddressable(f.rhs);
  const int rank = f.rhs->type.rank();
  for (int d = rank - static_cast<int>(f.colDims.size()); d < rank; ++d) {
    if (contains(f.attrs.rhsBatch, d) || contains(f.attrs.rhsContracting, d)) minorColumns = false;
  }
  if (minorColumns) return DotTiling::InPlace;
  constexpr int64_t kMaxPackedBytes = 64 * 1024;
  if (product(f.contractDims) * cols * byteSize(t) <= kMaxPackedBytes && rowsPerBatch(f) >= 4) {
    return DotTiling::Packed;
  }
  return DotTiling::None;
}

void Emitter::emitDotRegisterTiles(const ir::Op& op, int64_t lhsFree, DotTiling tiling) {
  const DotForm f = dotForm(op, lhsFree);
  const int64_t elementBytes = byteSize(f.out->type.dtype);
  const int64_t cols = product(f.colDims);
  const int64_t rows = rowsPerBatch(f);
  const int64_t batches = product({f.rowDims.begin(), f.rowDims.begin() + f.batch});
  std::string packed, batch;
  if (tiling == DotTiling::Packed) {
    // Every thread copies the whole rhs of a batch (no barrier, and it is at most 64 KB); reading
    // it in its own order (columns outer) keeps the reads of a transposed rhs contiguous. With
    // batch dims, the batches run one after the other, each copied, then its tiles shared out.
    packed = "pack_" + name(f.out);
    const ir::DotAttrs& a = f.attrs;
    if (f.batch > 0) {
      batch = "pack_batch";
      open("for (int64_t " + batch + " = 0; " + batch + " < " + num(batches) + "; ++" + batch +
           ")");
      // The copy's batch indices are pb0, pb1, ...: the tiles inside declare their own b0, b1.
      line("const int64_t pbrow = " + batch + " * " + num(rows) + ";");
      declareMultiIndex(f.rowDims, "pbrow", "pb");
    } else {
      open("");
    }
    line("alignas(64) " + cType(f.out->type.dtype) + " " + packed + "[" +
         num(product(f.contractDims) * cols) + "];");
    open("for (int64_t j = 0; j < " + num(cols) + "; ++j)");
    declareMultiIndex(f.colDims, "j", "n");
    open("for (int64_t k = 0; k < " + num(product(f.contractDims)) + "; ++k)");
    declareMultiIndex(f.contractDims, "k", "c");
    line(packed + "[k * " + num(cols) + " + j] = " +
         at(f.rhs,
            ElementIndex{"", dotOperandIndex(f.rhs, a.rhsBatch, a.rhsContracting, "n", 0, "pb")}) +
         ";");
    close();
    close();
  }
  auto variant = [&](int widest) {
    const TileShape t = tileShape(cols, rows, elementBytes, widest);
    forEachTileNest(t, rows, cols,
                    [&](int64_t tileRows, int64_t rowBase, int64_t rowTiles, int64_t tileCols,
                        int64_t colBase, int64_t colTiles) {
                      emitDotTileNest(
                          op, lhsFree,
                          {t.vectorBytes, t.lanes, tileRows, rowBase, rowTiles, tileCols,
                           t.vectors * t.lanes, colBase, colTiles, packed, batch});
                    });
  };
  auto shapeOf = [&](int widest) {
    const TileShape t = tileShape(cols, rows, elementBytes, widest);
    return num(t.rows) + (t.rows > 1 ? " rows x " : " row x ") + num(t.vectors) + " vector" +
           (t.vectors > 1 ? "s" : "") + " of " + num(t.lanes);
  };
  noteDotForm(op, "register tiles of " + shapeOf(64) + " (AVX-512) or " + shapeOf(32) +
                      " (AVX2), the rhs " +
                      (tiling == DotTiling::Packed ? "from a transposed copy" : "read in place"));
  line("#if LF_CPU_VECTOR_BYTES == 64");
  variant(64);
  line("#else");
  variant(32);
  line("#endif");
  if (!packed.empty()) close();
  endStage(op);
}

void Emitter::emitDotTileNest(const ir::Op& op, int64_t lhsFree, const DotTileNest& nest) {
  const DotForm f = dotForm(op, lhsFree);
  const ir::DotAttrs& a = f.attrs;
  const int64_t batches =
      nest.batch.empty() ? product({f.rowDims.begin(), f.rowDims.begin() + f.batch}) : 1;
  const int64_t tilesPerBatch = nest.rowTiles * nest.colTiles;
  if (batches * tilesPerBatch == 0) return;
  const std::string elem = cType(f.out->type.dtype),
                    vec = vectorType(f.out->type.dtype, nest.vectorBytes);
  const int64_t vectors = (nest.cols + nest.lanes - 1) / nest.lanes;
  const int64_t lastLanes = nest.cols - (vectors - 1) * nest.lanes;
  auto acc = [](int64_t r, int64_t v) { return "acc" + num(r) + "_" + num(v); };

  line("// tiles of " + num(nest.rows) + " x " + num(nest.cols) + " from row " + num(nest.rowBase) +
       ", column " + num(nest.colBase));
  openParallelLoop(batches * tilesPerBatch, "tile");
  const std::string batchOfTile =
      nest.batch.empty() ? "(tile / " + num(tilesPerBatch) + ")" : nest.batch;
  line("const int64_t row0 = " + batchOfTile + " * " + num(rowsPerBatch(f)) + " + " +
       num(nest.rowBase) + " + ((tile / " + num(nest.colTiles) + ") % " + num(nest.rowTiles) +
       ") * " + num(nest.rows) + ";");
  line("const int64_t col0 = " + num(nest.colBase) + " + (tile % " + num(nest.colTiles) + ") * " +
       num(nest.colStride) + ";");
  // The tile's rows share their batch indices b0, b1, ... (tiles never cross a batch).
  line("[[maybe_unused]] const int64_t brow = row0;");
  declareMultiIndex(f.rowDims, "brow", "b");
  line("[[maybe_unused]] const int64_t j = col0;");
  declareMultiIndex(f.colDims, "j", "n");
  for (int64_t r = 0; r < nest.rows; ++r) {
    std::string decl = vec + " ";
    for (int64_t v = 0; v < vectors; ++v) decl += (v ? ", " : "") + acc(r, v) + " = {}";
    line(decl + ";");
  }
  open("for (int64_t k = 0; k < " + num(product(f.contractDims)) + "; ++k)");
  declareMultiIndex(f.contractDims, "k", "c");
  const ElementIndex rhsAt{"", dotOperandIndex(f.rhs, a.rhsBatch, a.rhsContracting, "n", 0, "b")};
  line("const " + elem + "* rp = " +
       (nest.packedRhs.empty() ? "&" + at(f.rhs, rhsAt)
                               : nest.packedRhs + " + k * " + num(product(f.colDims)) + " + col0") +
       ";");
  for (int64_t v = 0; v < vectors; ++v) {
    const std::string p = "rp + " + num(v * nest.lanes);
    line("const " + vec + " r" + num(v) + " = " +
         (v + 1 < vectors || lastLanes == nest.lanes
              ? "lf_vload<" + vec + ">(" + p + ")"
              : "lf_vload_first<" + vec + ">(" + p + ", " + num(lastLanes) + ")") +
         ";");
  }
  const ElementIndex lhsAt{"", dotOperandIndex(f.lhs, a.lhsBatch, a.lhsContracting, "o", f.batch)};
  for (int64_t r = 0; r < nest.rows; ++r) {
    open("");
    line("[[maybe_unused]] const int64_t row = row0 + " + num(r) + ";");
    declareMultiIndex(f.rowDims, "row", "o");
    line("const " + elem + " l = " + at(f.lhs, lhsAt) + ";");
    for (int64_t v = 0; v < vectors; ++v)
      line(acc(r, v) + " = lf_vfma(l, r" + num(v) + ", " + acc(r, v) + ");");
    close();
  }
  close();
  for (int64_t r = 0; r < nest.rows; ++r) {
    for (int64_t v = 0; v < vectors; ++v) {
      const std::string p = "&" + at(f.out, "(row0 + " + num(r) + ") * " + num(product(f.colDims)) +
                                                " + col0 + " + num(v * nest.lanes));
      line(v + 1 < vectors || lastLanes == nest.lanes
               ? "lf_vstore(" + p + ", " + acc(r, v) + ");"
               : "lf_vstore_first(" + p + ", " + acc(r, v) + ", " + num(lastLanes) + ");");
    }
  }
  close();
}

// Narrow products (a matrix times a vector, x @ w with a few columns): each SPMD iteration takes
// a few rows and keeps all their results in scalar accumulators, so the fma chains of different
// rows overlap instead of each waiting on its own previous fma (a 96x32 matrix-vector product: a
// chain of 32 fmas per row, one row at a time, was latency-bound).
void Emitter::emitDotScalarTiles(const ir::Op& op, int64_t lhsFree) {
  const DotForm f = dotForm(op, lhsFree);
  const ir::DotAttrs& a = f.attrs;
  const int64_t cols = product(f.colDims), rows = rowsPerBatch(f);
  const int64_t batches = product({f.rowDims.begin(), f.rowDims.begin() + f.batch});
  const int64_t tileRows =
      std::min(rows, std::clamp<int64_t>(kScalarTileAccumulators / cols, 1, 8));
  const std::string elem = cType(f.out->type.dtype);
  auto acc = [](int64_t r, int64_t j) { return "acc" + num(r) + "_" + num(j); };
  noteDotForm(op, "scalar register tiles of " + num(tileRows) +
                      (tileRows > 1 ? " rows x " : " row x ") + num(cols) + " column" +
                      (cols > 1 ? "s" : ""));
  auto nest = [&](int64_t tileRowCount, int64_t rowBase, int64_t rowTiles) {
    if (batches * rowTiles == 0) return;
    line("// tiles of " + num(tileRowCount) + " rows from row " + num(rowBase));
    openParallelLoop(batches * rowTiles, "tile");
    line("const int64_t row0 = (tile / " + num(rowTiles) + ") * " + num(rows) + " + " +
         num(rowBase) + " + (tile % " + num(rowTiles) + ") * " + num(tileRowCount) + ";");
    line("[[maybe_unused]] const int64_t brow = row0;");
    declareMultiIndex(f.rowDims, "brow", "b");
    for (int64_t r = 0; r < tileRowCount; ++r) {
      std::string decl = elem + " ";
      for (int64_t j = 0; j < cols; ++j) decl += (j ? ", " : "") + acc(r, j) + " = 0";
      line(decl + ";");
    }
    open("for (int64_t k = 0; k < " + num(product(f.contractDims)) + "; ++k)");
    declareMultiIndex(f.contractDims, "k", "c");
    line(elem + " r[" + num(cols) + "];");
    const ElementIndex rhsAt{"", dotOperandIndex(f.rhs, a.rhsBatch, a.rhsContracting, "n", 0, "b")};
    for (int64_t j = 0; j < cols; ++j) {
      open("");
      line("[[maybe_unused]] const int64_t j = " + num(j) + ";");
      declareMultiIndex(f.colDims, "j", "n");
      line("r[" + num(j) + "] = " + at(f.rhs, rhsAt) + ";");
      close();
    }
    const ElementIndex lhsAt{"",
                             dotOperandIndex(f.lhs, a.lhsBatch, a.lhsContracting, "o", f.batch)};
    for (int64_t r = 0; r < tileRowCount; ++r) {
      open("");
      line("[[maybe_unused]] const int64_t row = row0 + " + num(r) + ";");
      declareMultiIndex(f.rowDims, "row", "o");
      line("const " + elem + " l = " + at(f.lhs, lhsAt) + ";");
      for (int64_t j = 0; j < cols; ++j)
        line(acc(r, j) + " = lf_fma(l, r[" + num(j) + "], " + acc(r, j) + ");");
      close();
    }
    close();
    for (int64_t r = 0; r < tileRowCount; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        line(at(f.out, "(row0 + " + num(r) + ") * " + num(cols) + " + " + num(j)) + " = " +
             acc(r, j) + ";");
      }
    }
    close();
  };
  nest(tileRows, 0, rows / tileRows);
  if (rows % tileRows != 0) nest(rows % tileRows, rows / tileRows * tileRows, 1);
  endStage(op);
}

}  // namespace lf::codegen
