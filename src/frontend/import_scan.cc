// XLA's `scan` op (emitted for cumulative reductions in CUDA lowerings), expanded into a While the
// way XLA's ScanExpander does it: operands are N inputs then C carry inits; to_apply takes
// (input slices..., carries...) and returns (output elements..., new carries...); the result is
// (outputs..., final carries...). The loop state is (index, carries..., inputs..., outputs...).
#include "frontend/region_builder.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

// Index vector for an op over `rank` dims: zero except `scanDim`.
Values indices(RegionBuilder& b, int rank, int64_t scanDim, ir::Value* at) {
  Values out(rank, b.s32(0));
  out[scanDim] = at;
  return out;
}

Values scan(InstrContext& c) {
  int64_t numCarries = hlo::readInt(c.attr("num_carries"));
  std::vector<int64_t> dims = hlo::readIntList(c.attr("dimensions"));
  bool reverse = c.optAttr("is_reverse") ? hlo::readBool(*c.optAttr("is_reverse")) : false;
  if (dims.size() != 1) c.fail("scan needs exactly one dimension");
  if (numCarries < 0 || numCarries > static_cast<int64_t>(c.operands.size())) {
    c.fail("scan num_carries out of range");
  }
  const int64_t dim = dims[0];
  Values inputs, inits;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    (static_cast<int64_t>(i) < static_cast<int64_t>(c.operands.size()) - numCarries ? inputs
                                                                                    : inits)
        .push_back(c.array(i));
  }
  if (inputs.empty()) c.fail("scan needs at least one input");
  const ir::Type& first = inputs[0]->type;
  if (dim < 0 || dim >= first.rank()) c.fail("scan dimension out of range for " + first.toString());
  const int64_t length = first.dims[dim];
  std::vector<ir::Type> resultTypes = c.resultTypes();
  if (static_cast<int64_t>(resultTypes.size()) < numCarries)
    c.fail("scan has fewer results than carries");
  const size_t numOutputs = resultTypes.size() - numCarries;

  RegionBuilder b(c, c.region);
  // Initial state: index 0, carries, inputs, zero-filled outputs.
  Values state{b.s32(0)};
  state.insert(state.end(), inits.begin(), inits.end());
  state.insert(state.end(), inputs.begin(), inputs.end());
  for (size_t i = 0; i < numOutputs; ++i) {
    const ir::Type& t = resultTypes[i];
    state.push_back(b.splat(b.scalar(t.dtype, 0), t.dims));
  }
  std::vector<ir::Type> stateTypes;
  for (const ir::Value* v : state) stateTypes.push_back(v->type);

  ir::Op* loop = c.emit(OpKind::While, state, stateTypes);
  ir::Region& cond = *loop->addRegion();
  for (const ir::Type& t : stateTypes) cond.addArg(t);
  RegionBuilder inCond(c, cond);
  cond.yields = {inCond.op(OpKind::Compare,
                           {cond.args[0].get(), inCond.s32(static_cast<int32_t>(length))},
                           ir::Type{DType::Pred, {}},
                           ir::CompareAttrs{ir::CompareDirection::LT, ir::CompareType::Signed})};

  ir::Region& body = *loop->addRegion();
  for (const ir::Type& t : stateTypes) body.addArg(t);
  RegionBuilder inBody(c, body);
  ir::Value* index = body.args[0].get();
  ir::Value* at = index;
  if (reverse)
    at = inBody.op(OpKind::Subtract, {inBody.s32(static_cast<int32_t>(length - 1)), index},
                   index->type);
  std::vector<Values> args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    ir::Value* whole = body.args[1 + numCarries + i].get();
    std::vector<int64_t> sizes = whole->type.dims;
    sizes[dim] = 1;
    Values ops{whole};
    Values idx = indices(inBody, whole->type.rank(), dim, at);
    ops.insert(ops.end(), idx.begin(), idx.end());
    ir::Value* slice = inBody.op(OpKind::DynamicSlice, ops, ir::Type{whole->type.dtype, sizes},
                                 ir::DynamicSliceAttrs{sizes});
    std::vector<int64_t> squeezed = whole->type.dims;
    squeezed.erase(squeezed.begin() + dim);
    args.push_back({inBody.op(OpKind::Reshape, {slice}, ir::Type{whole->type.dtype, squeezed})});
  }
  for (int64_t k = 0; k < numCarries; ++k) args.push_back({body.args[1 + k].get()});
  const hlo::Computation& fn =
      c.importer.computation(hlo::readComputationName(c.attr("to_apply")), c);
  Values produced = c.importer.importComputation(fn, body, args);
  if (produced.size() != numOutputs + numCarries)
    c.fail("scan to_apply returns the wrong number of values");

  Values next{inBody.op(OpKind::Add, {index, inBody.s32(1)}, index->type)};
  for (int64_t k = 0; k < numCarries; ++k) next.push_back(produced[numOutputs + k]);
  for (size_t i = 0; i < inputs.size(); ++i) next.push_back(body.args[1 + numCarries + i].get());
  for (size_t i = 0; i < numOutputs; ++i) {
    ir::Value* array = body.args[1 + numCarries + inputs.size() + i].get();
    std::vector<int64_t> expanded = array->type.dims;
    expanded[dim] = 1;
    ir::Value* elem =
        inBody.op(OpKind::Reshape, {produced[i]}, ir::Type{array->type.dtype, expanded});
    Values ops{array, elem};
    Values idx = indices(inBody, array->type.rank(), dim, at);
    ops.insert(ops.end(), idx.begin(), idx.end());
    next.push_back(inBody.op(OpKind::DynamicUpdateSlice, ops, array->type));
  }
  body.yields = next;
  c.check(loop);

  Values out;
  for (size_t i = 0; i < numOutputs; ++i)
    out.push_back(loop->result(static_cast<int>(1 + numCarries + inputs.size() + i)));
  for (int64_t k = 0; k < numCarries; ++k) out.push_back(loop->result(static_cast<int>(1 + k)));
  return out;
}

}  // namespace

void addScanHandler(HandlerTable& t) { t["scan"] = scan; }

}  // namespace lf::frontend
