// dot, reduce, reduce-window, gather, scatter and sort. Variadic forms (a tuple result) become
// ops with N results; reducer, combiner and comparator computations become regions with scalar
// arguments.
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

std::vector<int64_t> optIntList(InstrContext& c, std::string_view name) {
  const hlo::Attribute* a = c.optAttr(name);
  return a ? hlo::readIntList(*a) : std::vector<int64_t>{};
}

bool optBool(InstrContext& c, std::string_view name) {
  const hlo::Attribute* a = c.optAttr(name);
  return a ? hlo::readBool(*a) : false;
}

Values resultsOf(const ir::Op* op) {
  Values out;
  for (const auto& r : op->results) out.push_back(r.get());
  return out;
}

// Scalar region parameters: one per entry, each a single scalar of that dtype.
std::vector<std::vector<ir::Type>> scalarParams(const std::vector<DType>& dtypes) {
  std::vector<std::vector<ir::Type>> out;
  for (DType t : dtypes) out.push_back({ir::Type{t, {}}});
  return out;
}

Values dot(InstrContext& c) {
  c.expectOperands(2);
  ir::DotAttrs attrs{optIntList(c, "lhs_batch_dims"), optIntList(c, "rhs_batch_dims"),
                     optIntList(c, "lhs_contracting_dims"), optIntList(c, "rhs_contracting_dims")};
  return {c.emit1(OpKind::Dot, {c.array(0), c.array(1)}, attrs)};
}

// The accumulator dtypes of a reducer (reduce / reduce-window): those of the N init values.
std::vector<DType> reducerParams(InstrContext& c, const Values& operands) {
  if (operands.size() % 2 != 0) c.fail(c.inst.opcode + " takes N inputs and N init values");
  size_t n = operands.size() / 2;
  std::vector<DType> dtypes;
  for (size_t i = 0; i < n; ++i) dtypes.push_back(operands[n + i]->type.dtype);
  std::vector<DType> params = dtypes;
  params.insert(params.end(), dtypes.begin(), dtypes.end());
  return params;
}

Values allArrays(InstrContext& c) {
  Values out;
  for (size_t i = 0; i < c.operands.size(); ++i) out.push_back(c.array(i));
  return out;
}

Values reduce(InstrContext& c) {
  c.expectOperandsAtLeast(2);
  Values operands = allArrays(c);
  std::vector<DType> params = reducerParams(c, operands);
  ir::Op* op = c.emit(OpKind::Reduce, operands, c.resultTypes(),
                      ir::ReduceAttrs{hlo::readIntList(c.attr("dimensions"))});
  c.addRegion(op, "to_apply", scalarParams(params));
  c.check(op);
  return resultsOf(op);
}

Values reduceWindow(InstrContext& c) {
  c.expectOperandsAtLeast(2);
  Values operands = allArrays(c);
  std::vector<DType> params = reducerParams(c, operands);
  ir::ReduceWindowAttrs attrs;
  const hlo::Attribute* window = c.optAttr("window");
  std::vector<hlo::WindowDim> dims;
  if (window) {
    dims = hlo::readWindow(*window);
  } else {
    dims.resize(operands[0]->type.rank());  // no window attribute: a 1x..x1 window
  }
  for (const hlo::WindowDim& d : dims) {
    if (d.reversal) c.fail("reduce-window with window_reversal is not supported");
    attrs.sizes.push_back(d.size);
    attrs.strides.push_back(d.stride);
    attrs.padLow.push_back(d.padLow);
    attrs.padHigh.push_back(d.padHigh);
    attrs.baseDilation.push_back(d.baseDilation);
    attrs.windowDilation.push_back(d.windowDilation);
  }
  ir::Op* op = c.emit(OpKind::ReduceWindow, operands, c.resultTypes(), attrs);
  c.addRegion(op, "to_apply", scalarParams(params));
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
  Values operands = allArrays(c);
  if (operands.size() % 2 == 0) c.fail("scatter takes N operands, the indices and N updates");
  size_t n = (operands.size() - 1) / 2;
  ir::ScatterAttrs a;
  a.updateWindowDims = optIntList(c, "update_window_dims");
  a.insertedWindowDims = optIntList(c, "inserted_window_dims");
  a.scatterDimsToOperandDims = optIntList(c, "scatter_dims_to_operand_dims");
  a.inputBatchingDims = optIntList(c, "input_batching_dims");
  a.scatterIndicesBatchingDims = optIntList(c, "scatter_indices_batching_dims");
  a.indexVectorDim = hlo::readInt(c.attr("index_vector_dim"));
  a.indicesAreSorted = optBool(c, "indices_are_sorted");
  a.uniqueIndices = optBool(c, "unique_indices");
  std::vector<DType> dtypes;
  for (size_t i = 0; i < n; ++i) dtypes.push_back(operands[i]->type.dtype);
  std::vector<DType> params = dtypes;
  params.insert(params.end(), dtypes.begin(), dtypes.end());
  ir::Op* op = c.emit(OpKind::Scatter, operands, c.resultTypes(), a);
  c.addRegion(op, "to_apply", scalarParams(params));
  c.check(op);
  return resultsOf(op);
}

Values sort(InstrContext& c) {
  c.expectOperandsAtLeast(1);
  Values operands = allArrays(c);
  std::vector<int64_t> dims = hlo::readIntList(c.attr("dimensions"));
  if (dims.size() != 1) c.fail("sort needs exactly one dimension");
  std::vector<DType> params;
  for (const ir::Value* v : operands) {
    params.push_back(v->type.dtype);
    params.push_back(v->type.dtype);
  }
  ir::Op* op = c.emit(OpKind::Sort, operands, c.resultTypes(),
                      ir::SortAttrs{dims[0], optBool(c, "is_stable")});
  c.addRegion(op, "to_apply", scalarParams(params));
  c.check(op);
  return resultsOf(op);
}

}  // namespace

void addComputeHandlers(HandlerTable& t) {
  t["dot"] = dot;
  t["reduce"] = reduce;
  t["reduce-window"] = reduceWindow;
  t["gather"] = gather;
  t["scatter"] = scatter;
  t["sort"] = sort;
}

}  // namespace lf::frontend
