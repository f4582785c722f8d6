// HLO shapes to IR types: tuples flatten to their leaves, tokens to nothing, and a complex array
// to two leaves, its real and imaginary parts (c64: two f32 arrays, c128: two f64).
#include "frontend/importer.h"

namespace lf::frontend {

std::optional<DType> complexPartType(std::string_view elementType) {
  if (elementType == "c64") return DType::F32;
  if (elementType == "c128") return DType::F64;
  return std::nullopt;
}

bool containsComplex(const hlo::Shape& shape) {
  if (!shape.isTuple) return complexPartType(shape.elementType).has_value();
  for (const hlo::Shape& e : shape.tupleElements) {
    if (containsComplex(e)) return true;
  }
  return false;
}

hlo::Shape realView(const hlo::Shape& shape) {
  hlo::Shape out = shape;
  if (shape.isTuple) {
    for (hlo::Shape& e : out.tupleElements) e = realView(e);
  } else if (auto part = complexPartType(shape.elementType)) {
    out.elementType = std::string(dtypeName(*part));
  }
  return out;
}

std::string unsupportedTypeIn(const hlo::Shape& shape) {
  if (shape.isTuple) {
    for (const hlo::Shape& e : shape.tupleElements) {
      if (std::string why = unsupportedTypeIn(e); !why.empty()) return why;
    }
    return "";
  }
  if (shape.elementType == "token") return "";
  if (!parseDType(shape.elementType) && !complexPartType(shape.elementType)) {
    return "unsupported element type '" + shape.elementType +
           "' (loopfuse supports pred, s8-s64, u8-u64, f16, bf16, f32, f64, c64, c128)";
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
  if (complexPartType(shape.elementType)) {
    throw CompileError(shape.loc, "expected a real array shape, got " + shape.toString());
  }
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
  } else if (complexPartType(shape.elementType)) {
    ir::Type part = toIrType(realView(shape));
    out.push_back(part);
    out.push_back(part);
  } else if (shape.elementType != "token") {
    out.push_back(toIrType(shape));
  }
  return out;
}

size_t leafCount(const hlo::Shape& shape) {
  if (!shape.isTuple) {
    if (complexPartType(shape.elementType)) return 2;
    return shape.elementType == "token" ? 0 : 1;
  }
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
