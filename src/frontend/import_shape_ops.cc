// Leaves and data movement: constant, iota, broadcast, reshape, bitcast, transpose, slice,
// dynamic-slice, dynamic-update-slice, concatenate, pad, reverse.
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

Values constant(InstrContext& c) {
  c.expectOperands(0);
  if (!c.inst.literal) c.fail("constant without a value");
  ir::Type t = c.resultType();
  ir::ConstantAttrs attrs{literalBytes(*c.inst.literal, t)};
  return {c.emit1(OpKind::Constant, {}, std::move(attrs))};
}

Values iota(InstrContext& c) {
  c.expectOperands(0);
  return {c.emit1(OpKind::Iota, {}, ir::IotaAttrs{hlo::readInt(c.attr("iota_dimension"))})};
}

// XLA lets a broadcast map a size-1 operand dimension onto a larger one; the IR does not, so such
// dimensions are first reshaped away.
Values broadcast(InstrContext& c) {
  c.expectOperands(1);
  ir::Value* in = c.array(0);
  ir::Type out = c.resultType();
  std::vector<int64_t> dims = hlo::readIntList(c.attr("dimensions"));
  if (dims.size() == in->type.dims.size()) {
    std::vector<int64_t> keptDims, keptSizes;
    for (size_t i = 0; i < dims.size(); ++i) {
      bool expands =
          in->type.dims[i] == 1 && dims[i] >= 0 && dims[i] < out.rank() && out.dims[dims[i]] != 1;
      if (!expands) {
        keptDims.push_back(dims[i]);
        keptSizes.push_back(in->type.dims[i]);
      }
    }
    if (keptDims.size() != dims.size()) {
      in = c.emit(OpKind::Reshape, {in}, {ir::Type{in->type.dtype, keptSizes}})->result();
      dims = keptDims;
    }
  }
  return {c.emit1(OpKind::Broadcast, {in}, ir::BroadcastAttrs{dims})};
}

Values reshape(InstrContext& c) {
  c.expectOperands(1);
  return {c.emit1(OpKind::Reshape, {c.array(0)})};
}

// A bitcast that keeps the element type and count is a reshape (or nothing); one that reinterprets
// the layout has no meaning in loopfuse's row-major world.
Values bitcast(InstrContext& c) {
  c.expectOperands(1);
  ir::Value* in = c.array(0);
  ir::Type out = c.resultType();
  if (in->type.dtype != out.dtype || in->type.numElements() != out.numElements()) {
    c.fail("unsupported bitcast from " + in->type.toString() + " to " + out.toString() +
           " (only element-preserving reshapes are supported)");
  }
  if (in->type == out) return {in};
  return {c.emit1(OpKind::Reshape, {in})};
}

Values transpose(InstrContext& c) {
  c.expectOperands(1);
  return {c.emit1(OpKind::Transpose, {c.array(0)},
                  ir::TransposeAttrs{hlo::readIntList(c.attr("dimensions"))})};
}

Values slice(InstrContext& c) {
  c.expectOperands(1);
  ir::SliceAttrs attrs;
  for (const hlo::SliceRange& r : hlo::readSliceRanges(c.attr("slice"))) {
    attrs.starts.push_back(r.start);
    attrs.limits.push_back(r.limit);
    attrs.strides.push_back(r.stride);
  }
  return {c.emit1(OpKind::Slice, {c.array(0)}, attrs)};
}

Values allArrays(InstrContext& c) {
  Values out;
  for (size_t i = 0; i < c.operands.size(); ++i) out.push_back(c.array(i));
  return out;
}

Values dynamicSlice(InstrContext& c) {
  c.expectOperandsAtLeast(1);
  ir::DynamicSliceAttrs attrs{hlo::readIntList(c.attr("dynamic_slice_sizes"))};
  return {c.emit1(OpKind::DynamicSlice, allArrays(c), attrs)};
}

Values dynamicUpdateSlice(InstrContext& c) {
  c.expectOperandsAtLeast(2);
  return {c.emit1(OpKind::DynamicUpdateSlice, allArrays(c))};
}

Values concatenate(InstrContext& c) {
  c.expectOperandsAtLeast(1);
  std::vector<int64_t> dims = hlo::readIntList(c.attr("dimensions"));
  if (dims.size() != 1)
    c.fail("concatenate needs exactly one dimension, got dimensions=" + c.attr("dimensions").value);
  return {c.emit1(OpKind::Concatenate, allArrays(c), ir::ConcatenateAttrs{dims[0]})};
}

Values pad(InstrContext& c) {
  c.expectOperands(2);
  ir::PadAttrs attrs;
  for (const hlo::PaddingDim& d : hlo::readPaddingConfig(c.attr("padding"))) {
    attrs.low.push_back(d.low);
    attrs.high.push_back(d.high);
    attrs.interior.push_back(d.interior);
  }
  return {c.emit1(OpKind::Pad, {c.array(0), c.array(1)}, attrs)};
}

Values reverse(InstrContext& c) {
  c.expectOperands(1);
  return {c.emit1(OpKind::Reverse, {c.array(0)},
                  ir::ReverseAttrs{hlo::readIntList(c.attr("dimensions"))})};
}

}  // namespace

void addShapeHandlers(HandlerTable& t) {
  t["constant"] = constant;
  t["iota"] = iota;
  t["broadcast"] = broadcast;
  t["reshape"] = reshape;
  t["bitcast"] = bitcast;
  t["transpose"] = transpose;
  t["slice"] = slice;
  t["dynamic-slice"] = dynamicSlice;
  t["dynamic-update-slice"] = dynamicUpdateSlice;
  t["concatenate"] = concatenate;
  t["pad"] = pad;
  t["reverse"] = reverse;
}

}  // namespace lf::frontend
