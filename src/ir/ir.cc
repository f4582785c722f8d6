// The IR's data-structure methods: type helpers, op names, and region/op construction.
#include "ir/ir.h"

#include <utility>

namespace lf::ir {

int64_t Type::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string Type::toString() const {
  std::string s(dtypeName(dtype));
  s += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  s += ']';
  return s;
}

const char* opKindName(OpKind k) {
  switch (k) {
    case OpKind::Constant:
      return "constant";
    case OpKind::Iota:
      return "iota";
    case OpKind::Abs:
      return "abs";
    case OpKind::Negate:
      return "negate";
    case OpKind::Sign:
      return "sign";
    case OpKind::Floor:
      return "floor";
    case OpKind::Ceil:
      return "ceil";
    case OpKind::RoundNearestAfz:
      return "round-nearest-afz";
    case OpKind::RoundNearestEven:
      return "round-nearest-even";
    case OpKind::Exp:
      return "exponential";
    case OpKind::Expm1:
      return "exponential-minus-one";
    case OpKind::Log:
      return "log";
    case OpKind::Log1p:
      return "log-plus-one";
    case OpKind::Sqrt:
      return "sqrt";
    case OpKind::Rsqrt:
      return "rsqrt";
    case OpKind::Cbrt:
      return "cbrt";
    case OpKind::Tanh:
      return "tanh";
    case OpKind::Logistic:
      return "logistic";
    case OpKind::Sin:
      return "sine";
    case OpKind::Cos:
      return "cosine";
    case OpKind::Tan:
      return "tan";
    case OpKind::Erf:
      return "erf";
    case OpKind::ReducePrecision:
      return "reduce-precision";
    case OpKind::IsFinite:
      return "is-finite";
    case OpKind::Not:
      return "not";
    case OpKind::Popcnt:
      return "popcnt";
    case OpKind::Clz:
      return "count-leading-zeros";
    case OpKind::Convert:
      return "convert";
    case OpKind::BitcastConvert:
      return "bitcast-convert";
    case OpKind::Add:
      return "add";
    case OpKind::Subtract:
      return "subtract";
    case OpKind::Multiply:
      return "multiply";
    case OpKind::Divide:
      return "divide";
    case OpKind::Remainder:
      return "remainder";
    case OpKind::Power:
      return "power";
    case OpKind::Maximum:
      return "maximum";
    case OpKind::Minimum:
      return "minimum";
    case OpKind::And:
      return "and";
    case OpKind::Or:
      return "or";
    case OpKind::Xor:
      return "xor";
    case OpKind::ShiftLeft:
      return "shift-left";
    case OpKind::ShiftRightLogical:
      return "shift-right-logical";
    case OpKind::ShiftRightArithmetic:
      return "shift-right-arithmetic";
    case OpKind::Atan2:
      return "atan2";
    case OpKind::Compare:
      return "compare";
    case OpKind::Select:
      return "select";
    case OpKind::Clamp:
      return "clamp";
    case OpKind::Fma:
      return "fma";
    case OpKind::Broadcast:
      return "broadcast";
    case OpKind::Reshape:
      return "reshape";
    case OpKind::Transpose:
      return "transpose";
    case OpKind::Slice:
      return "slice";
    case OpKind::DynamicSlice:
      return "dynamic-slice";
    case OpKind::DynamicUpdateSlice:
      return "dynamic-update-slice";
    case OpKind::Concatenate:
      return "concatenate";
    case OpKind::Pad:
      return "pad";
    case OpKind::Reverse:
      return "reverse";
    case OpKind::Dot:
      return "dot";
    case OpKind::Reduce:
      return "reduce";
    case OpKind::ReduceWindow:
      return "reduce-window";
    case OpKind::Gather:
      return "gather";
    case OpKind::Scatter:
      return "scatter";
    case OpKind::SelectAndScatter:
      return "select-and-scatter";
    case OpKind::Sort:
      return "sort";
    case OpKind::While:
      return "while";
    case OpKind::Conditional:
      return "conditional";
    case OpKind::Threefry2x32:
      return "threefry2x32";
    case OpKind::Cholesky:
      return "cholesky";
    case OpKind::TriangularSolve:
      return "triangular-solve";
    case OpKind::Lu:
      return "lu";
    case OpKind::LuPivotsToPermutation:
      return "lu-pivots-to-permutation";
    case OpKind::Qr:
      return "qr";
    case OpKind::HouseholderProduct:
      return "householder-product";
    case OpKind::Ormqr:
      return "ormqr";
    case OpKind::Eigh:
      return "eigh";
    case OpKind::TridiagonalFactor:
      return "tridiagonal-factor";
    case OpKind::TridiagonalSolve:
      return "tridiagonal-solve";
    case OpKind::TridiagonalSolvePerturbed:
      return "tridiagonal-solve-perturbed";
    case OpKind::Svd:
      return "svd";
    case OpKind::EigValues:
      return "eig-values";
    case OpKind::Convolution:
      return "convolution";
    case OpKind::Fft:
      return "fft";
    case OpKind::HostCallback:
      return "host-callback";
  }
  return "unknown";
}

bool isElementwise(OpKind k) {
  // The enum groups unary, binary and ternary elementwise ops between Abs and Fma. A
  // BitcastConvert is elementwise only when the widths match, which needs the types: callers that
  // care check that separately; here it counts as elementwise by kind.
  return k >= OpKind::Abs && k <= OpKind::Fma;
}

Value* Region::addArg(Type type, std::string name) {
  auto v = std::make_unique<Value>();
  v->type = std::move(type);
  v->argOf = this;
  v->index = static_cast<int>(args.size());
  v->name = std::move(name);
  args.push_back(std::move(v));
  return args.back().get();
}

Region* definingRegion(const Value* v) { return v->def != nullptr ? v->def->parent : v->argOf; }

bool definedInside(const Value* v, const Op& op) {
  for (const Region* r = definingRegion(v); r != nullptr && r->parent != nullptr;
       r = r->parent->parent) {
    if (r->parent == &op) return true;
  }
  return false;
}

std::unique_ptr<Op> makeOp(OpKind kind, std::vector<Value*> operands, std::vector<Type> resultTypes,
                           Attrs attrs, SourceLoc loc, std::string name) {
  auto op = std::make_unique<Op>();
  op->kind = kind;
  op->operands = std::move(operands);
  op->attrs = std::move(attrs);
  op->loc = loc;
  op->name = std::move(name);
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    auto v = std::make_unique<Value>();
    v->type = std::move(resultTypes[i]);
    v->def = op.get();
    v->index = static_cast<int>(i);
    v->name = op->name;
    op->results.push_back(std::move(v));
  }
  return op;
}

Op* Region::append(OpKind kind, std::vector<Value*> operands, std::vector<Type> resultTypes,
                   Attrs attrs, SourceLoc loc, std::string name) {
  ops.push_back(makeOp(kind, std::move(operands), std::move(resultTypes), std::move(attrs), loc,
                       std::move(name)));
  ops.back()->parent = this;
  return ops.back().get();
}

Region* Op::addRegion() {
  auto r = std::make_unique<Region>();
  r->parent = this;
  regions.push_back(std::move(r));
  return regions.back().get();
}

}  // namespace lf::ir
