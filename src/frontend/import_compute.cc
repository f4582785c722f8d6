// dot, reduce, reduce-window, gather, scatter, select-and-scatter, sort and topk. Variadic forms (a
// tuple result) become ops with N results; reducer, combiner and comparator computations become
// regions with scalar arguments.
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

std::vector<int64_t> optIntList(InstrContext& c, std::string_view name) {
  const hlo::Attribute* a = c.optAttr(name);
  return a ? hlo::readIntList(*a) : std::vector<int64_t>{};
}

Values dot(InstrContext& c) {
  c.expectOperands(2);
  ir::DotAttrs attrs{optIntList(c, "lhs_batch_dims"), optIntList(c, "rhs_batch_dims"),
                     optIntList(c, "lhs_contracting_dims"), optIntList(c, "rhs_contracting_dims")};
  return {c.emit1(OpKind::Dot, {c.array(0), c.array(1)}, attrs)};
}

// The parameters of a reducer (reduce / reduce-window): N accumulators and N elements, scalars of
// the N init values' types; a complex one is two leaves (real, imaginary), as the reducer's
// computation sees it, so the IR op reduces the parts as a variadic reduce.
// The leaves of a scalar of operand i's element type (two for a complex one).
std::vector<ir::Type> scalarLeaves(InstrContext& c, size_t i) {
  hlo::Shape scalar = c.operandShape(i);
  if (scalar.isTuple) c.fail(c.inst.opcode + " operand " + std::to_string(i) + " must be an array");
  scalar.dims.clear();
  scalar.dynamic.clear();
  return flattenShape(scalar);
}

std::vector<std::vector<ir::Type>> reducerParams(InstrContext& c) {
  if (c.operands.size() % 2 != 0) c.fail(c.inst.opcode + " takes N inputs and N init values");
  size_t n = c.operands.size() / 2;
  std::vector<std::vector<ir::Type>> params;
  for (size_t p = 0; p < 2 * n; ++p) params.push_back(scalarLeaves(c, n + p % n));
  return params;
}

// Every operand's leaves: one array each, or a complex array's two parts.
Values allLeaves(InstrContext& c) {
  Values out;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    if (complexPartType(c.operandShape(i).elementType) && c.operands[i].size() == 2) {
      out.insert(out.end(), c.operands[i].begin(), c.operands[i].end());
    } else {
      out.push_back(c.array(i));
    }
  }
  return out;
}

Values reduce(InstrContext& c) {
  c.expectOperandsAtLeast(2);
  Values operands = allLeaves(c);
  std::vector<std::vector<ir::Type>> params = reducerParams(c);
  ir::Op* op = c.emit(OpKind::Reduce, operands, c.resultTypes(),
                      ir::ReduceAttrs{hlo::readIntList(c.attr("dimensions"))});
  c.addRegion(op, "to_apply", params);
  c.check(op);
  return resultsOf(op);
}

// The `window` attribute of reduce-window / select-and-scatter (none: a 1x..x1 window).
std::vector<hlo::WindowDim> windowOf(InstrContext& c, int rank) {
  const hlo::Attribute* window = c.optAttr("window");
  std::vector<hlo::WindowDim> dims(static_cast<size_t>(rank));
  if (window) dims = hlo::readWindow(*window);
  for (const hlo::WindowDim& d : dims) {
    if (d.reversal) c.fail(c.inst.opcode + " with window_reversal is not supported");
  }
  return dims;
}

Values reduceWindow(InstrContext& c) {
  c.expectOperandsAtLeast(2);
  Values operands = allLeaves(c);
  std::vector<std::vector<ir::Type>> params = reducerParams(c);
  ir::ReduceWindowAttrs attrs;
  for (const hlo::WindowDim& d : windowOf(c, operands[0]->type.rank())) {
    attrs.sizes.push_back(d.size);
    attrs.strides.push_back(d.stride);
    attrs.padLow.push_back(d.padLow);
    attrs.padHigh.push_back(d.padHigh);
    attrs.baseDilation.push_back(d.baseDilation);
    attrs.windowDilation.push_back(d.windowDilation);
  }
  ir::Op* op = c.emit(OpKind::ReduceWindow, operands, c.resultTypes(), attrs);
  c.addRegion(op, "to_apply", params);
  c.check(op);
  return resultsOf(op);
}

Values gather(InstrContext& c) {
  c.expectOperands(2);
  ir::GatherAttrs a;
  a.offsetDims = optIntList(c, "offset_dims");
  a.collapsedSliceDims = optIntList(c, "collapsed_slice_dims");
  a.startIndexMap = optIntList(c, "start_index_map");
  a.operandBatchingDims = optIntList(c, "operand_batching_dims");
  a.startIndicesBatchingDims = optIntList(c, "start_indices_batching_dims");
  a.sliceSizes = hlo::readIntList(c.attr("slice_sizes"));
  a.indexVectorDim = hlo::readInt(c.attr("index_vector_dim"));
  a.indicesAreSorted = optBool(c, "indices_are_sorted");
  return {c.emit1(OpKind::Gather, {c.array(0), c.array(1)}, a)};
}

Values scatter(InstrContext& c) {
  c.expectOperandsAtLeast(3);
  if (c.operands.size() % 2 == 0) c.fail("scatter takes N operands, the indices and N updates");
  Values operands = allLeaves(c);  // a complex operand or update: its two parts
  size_t n = (c.operands.size() - 1) / 2;
  ir::ScatterAttrs a;
  a.updateWindowDims = optIntList(c, "update_window_dims");
  a.insertedWindowDims = optIntList(c, "inserted_window_dims");
  a.scatterDimsToOperandDims = optIntList(c, "scatter_dims_to_operand_dims");
  a.inputBatchingDims = optIntList(c, "input_batching_dims");
  a.scatterIndicesBatchingDims = optIntList(c, "scatter_indices_batching_dims");
  a.indexVectorDim = hlo::readInt(c.attr("index_vector_dim"));
  a.indicesAreSorted = optBool(c, "indices_are_sorted");
  a.uniqueIndices = optBool(c, "unique_indices");
  std::vector<std::vector<ir::Type>> params;
  for (size_t p = 0; p < 2 * n; ++p) params.push_back(scalarLeaves(c, p % n));
  ir::Op* op = c.emit(OpKind::Scatter, operands, c.resultTypes(), a);
  c.addRegion(op, "to_apply", params);
  c.check(op);
  return resultsOf(op);
}

Values selectAndScatter(InstrContext& c) {
  c.expectOperands(3);
  ir::Value* operand = c.array(0);
  ir::SelectAndScatterAttrs attrs;
  for (const hlo::WindowDim& d : windowOf(c, operand->type.rank())) {
    if (d.baseDilation != 1 || d.windowDilation != 1) {
      c.fail("select-and-scatter with a dilated window is not supported (XLA has none)");
    }
    attrs.sizes.push_back(d.size);
    attrs.strides.push_back(d.stride);
    attrs.padLow.push_back(d.padLow);
    attrs.padHigh.push_back(d.padHigh);
  }
  ir::Op* op =
      c.emit(OpKind::SelectAndScatter, {operand, c.array(1), c.array(2)}, c.resultTypes(), attrs);
  // Both regions take operand elements: a source of another type is the checker's named error.
  const ir::Type element{operand->type.dtype, {}};
  c.addRegion(op, "select", {{element}, {element}});
  c.addRegion(op, "scatter", {{element}, {element}});
  c.check(op);
  return resultsOf(op);
}

// A complex operand sorts as two IR operands, its parts, which the comparator reads as one complex
// scalar (jnp.sort compares real parts, then imaginary parts). HLO's comparator takes (a_i, b_i)
// per operand, so (a_re, a_im, b_re, b_im) for a complex one; the IR's takes (a, b) per IR operand:
// (a_re, b_re, a_im, b_im). The region's arguments are put in the IR's order.
Values sort(InstrContext& c) {
  c.expectOperandsAtLeast(1);
  Values operands = allLeaves(c);
  std::vector<int64_t> dims = hlo::readIntList(c.attr("dimensions"));
  if (dims.size() != 1) c.fail("sort needs exactly one dimension");
  std::vector<std::vector<ir::Type>> params;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    params.push_back(scalarLeaves(c, i));
    params.push_back(scalarLeaves(c, i));
  }
  ir::Op* op = c.emit(OpKind::Sort, operands, c.resultTypes(),
                      ir::SortAttrs{dims[0], optBool(c, "is_stable")});
  ir::Region* comparator = c.addRegion(op, "to_apply", params);
  std::vector<std::unique_ptr<ir::Value>> hloOrder = std::move(comparator->args);
  comparator->args.clear();
  size_t first = 0;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    const size_t leaves = params[2 * i].size();
    for (size_t p = 0; p < leaves; ++p) {
      comparator->args.push_back(std::move(hloOrder[first + p]));
      comparator->args.push_back(std::move(hloOrder[first + leaves + p]));
    }
    first += 2 * leaves;
  }
  for (size_t k = 0; k < comparator->args.size(); ++k) {
    comparator->args[k]->index = static_cast<int>(k);
  }
  c.check(op);
  return resultsOf(op);
}

// topk(x), k=K, largest=true: the K largest elements along the last dimension and their s32
// indices, as jax.lax.top_k gives them: in XLA's total order (+NaN first, then +inf ... +0, -0 ...
// -inf, -NaN), ties in index order. Built as what XLA's TopkDecomposer makes: a stable sort of
// (x, iota) with a greater-than comparator (less-than for largest=false), sliced to K.
Values topk(InstrContext& c) {
  c.expectOperands(1);
  ir::Value* x = c.array(0);
  const int rank = x->type.rank();
  if (rank == 0) c.fail("topk needs an array of rank >= 1, got " + x->type.toString());
  const int64_t k = hlo::readInt(c.attr("k"));
  const int64_t n = x->type.dims.back();
  if (k < 0 || k > n) {
    c.fail("topk k=" + std::to_string(k) + " is out of range for " + x->type.toString());
  }
  const hlo::Attribute* largestAttr = c.optAttr("largest");
  const bool largest = largestAttr == nullptr || hlo::readBool(*largestAttr);
  const DType t = x->type.dtype;
  ir::CompareType order = ir::CompareType::TotalOrder;
  if (isSignedInt(t)) {
    order = ir::CompareType::Signed;
  } else if (isInteger(t)) {
    order = ir::CompareType::Unsigned;
  } else if (!isFloat(t)) {
    c.fail("topk of " + x->type.toString() + ": the values must be numbers");
  }

  const ir::Type indexType{DType::S32, x->type.dims};
  ir::Value* iota = c.emit(OpKind::Iota, {}, {indexType}, ir::IotaAttrs{rank - 1})->result();
  ir::Op* sorted = c.emit(OpKind::Sort, {x, iota}, {x->type, indexType},
                          ir::SortAttrs{rank - 1, /*isStable=*/true});
  ir::Region* comparator = sorted->addRegion();
  ir::Value* a = comparator->addArg(ir::Type{t, {}}, "a");
  ir::Value* b = comparator->addArg(ir::Type{t, {}}, "b");
  comparator->addArg(ir::Type{DType::S32, {}}, "ia");
  comparator->addArg(ir::Type{DType::S32, {}}, "ib");
  ir::CompareAttrs goesFirst{largest ? ir::CompareDirection::GT : ir::CompareDirection::LT, order};
  ir::Op* cmp = comparator->append(OpKind::Compare, {a, b}, {ir::Type{DType::Pred, {}}}, goesFirst,
                                   c.inst.loc, c.inst.name + ".compare");
  comparator->yields.push_back(cmp->result());
  c.check(sorted);

  std::vector<int64_t> starts(rank, 0), limits = x->type.dims, strides(rank, 1);
  limits.back() = k;
  const std::vector<ir::Type> types = c.resultTypes();
  if (types.size() != 2 || types[0].dims != limits || types[1] != ir::Type{DType::S32, limits}) {
    c.fail("topk of " + x->type.toString() + " with k=" + std::to_string(k) +
           " gives (values, s32 indices) with last dimension " + std::to_string(k));
  }
  ir::SliceAttrs slice{starts, limits, strides};
  return {c.emit(OpKind::Slice, {sorted->result(0)}, {types[0]}, slice)->result(),
          c.emit(OpKind::Slice, {sorted->result(1)}, {types[1]}, slice)->result()};
}

}  // namespace

void addComputeHandlers(HandlerTable& t) {
  t["dot"] = dot;
  t["reduce"] = reduce;
  t["reduce-window"] = reduceWindow;
  t["gather"] = gather;
  t["scatter"] = scatter;
  t["select-and-scatter"] = selectAndScatter;
  t["sort"] = sort;
  t["topk"] = topk;
}

}  // namespace lf::frontend
