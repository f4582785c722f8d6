#include "hlo/ast.h"

namespace lf::hlo {

std::string Shape::toString() const {
  std::string s;
  if (isTuple) {
    s = "(";
    for (size_t i = 0; i < tupleElements.size(); ++i) {
      if (i > 0) s += ", ";
      s += tupleElements[i].toString();
    }
    return s + ")";
  }
  s = elementType + "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s += ",";
    if (i < dynamic.size() && dynamic[i]) s += "<=";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

const Attribute* Instruction::attr(std::string_view attrName) const {
  for (const Attribute& a : attributes)
    if (a.name == attrName) return &a;
  return nullptr;
}

const Instruction* Computation::find(std::string_view instrName) const {
  for (const Instruction& i : instructions)
    if (i.name == instrName) return &i;
  return nullptr;
}

const Computation* Module::find(std::string_view compName) const {
  for (const Computation& c : computations)
    if (c.name == compName) return &c;
  return nullptr;
}

}  // namespace lf::hlo
