// HLO shapes to IR types: tuples flatten to their leaves, tokens to nothing.
#include "frontend/importer.h"

namespace lf::frontend {

std::string unsupportedTypeIn(const hlo::Shape& shape) {
  if (shape.isTuple) {
    for (const hlo::Shape& e : shape.tupleElements) {
      if (std::string why = unsupportedTypeIn(e); !why.empty()) return why;
    }
    return "";
  }
  if (shape.elementType == "token") return "";
  if (!parseDType(shape.elementType)) {
    return "unsupported element type '" + shape.elementType +
           "' (loopfuse supports pred, s8-s64, u8-u64, f16, bf16, f32, f64)";
  }
  for (bool dyn : shape.dynamic) {
    if (dyn)
      return "unsupported dynamic shape " + shape.toString() + " (loopfuse needs static shapes)";
  }
  return "";
}

ir::Type toIrType(const hlo::Shape& shape) {
  if (shape.isTuple)
    throw CompileError(shape.loc, "expected an array shape, got " + shape.toString());
  if (shape.elementType == "token")
    throw CompileError(shape.loc, "expected an array shape, got token[]");
  if (std::string why = unsupportedTypeIn(shape); !why.empty()) throw CompileError(shape.loc, why);
  ir::Type t;
  t.dtype = *parseDType(shape.elementType);
  t.dims = shape.dims;
  for (int64_t d : t.dims) {
    if (d < 0) throw CompileError(shape.loc, "negative dimension in " + shape.toString());
  }
  return t;
}

std::vector<ir::Type> flattenShape(const hlo::Shape& shape) {
  std::vector<ir::Type> out;
  if (shape.isTuple) {
    for (const hlo::Shape& e : shape.tupleElements) {
      std::vector<ir::Type> sub = flattenShape(e);
      out.insert(out.end(), sub.begin(), sub.end());
    }
  } else if (shape.elementType != "token") {
    out.push_back(toIrType(shape));
  }
  return out;
}

size_t leafCount(const hlo::Shape& shape) {
  if (!shape.isTuple) return shape.elementType == "token" ? 0 : 1;
  size_t n = 0;
  for (const hlo::Shape& e : shape.tupleElements) n += leafCount(e);
  return n;
}

bool containsToken(const hlo::Shape& shape) {
  if (!shape.isTuple) return shape.elementType == "token";
  for (const hlo::Shape& e : shape.tupleElements) {
    if (containsToken(e)) return true;
  }
  return false;
}

}  // namespace lf::frontend
