// Scalar code: the expression of one elementwise op (every op's semantics is a prelude function
// named after the HLO op), and inline scalar regions (reducers, comparators, combiners).
#include <bit>
#include <optional>

#include "codegen/emitter.h"
#include "passes/rewrite_support.h"

namespace lf::codegen {
namespace {

// The bits of the float constant under `v`'s broadcasts (all its elements equal), or of a quotient
// of two such constants (weibull_min's 1 / concentration), which XLA's constant folding computes
// before LLVM sees the fusion; nullopt for anything else.
std::optional<uint64_t> constantBitsBelow(const ir::Value* v) {
  // Through shape changes and slices: of a splat, the group program's slice of a shared
  // operand (batch/group_program.cc) included, each is the same splat.
  using K = ir::OpKind;
  while (v->def != nullptr &&
         (v->def->kind == K::Broadcast || v->def->kind == K::Reshape || v->def->kind == K::Slice ||
          v->def->kind == K::DynamicSlice || v->def->kind == K::Transpose)) {
    v = v->def->operands[0];
  }
  if (v->def != nullptr && v->def->kind == K::Constant) {  // a splat (small broadcasts fold so)
    return passes::splatBits(*v->def);
  }
  if (!passes::isKind(v, ir::OpKind::Divide) || v->type.numElements() != 1) return std::nullopt;
  const ir::Op* a = passes::scalarConstantBelow(v->def->operands[0]);
  const ir::Op* b = passes::scalarConstantBelow(v->def->operands[1]);
  if (a == nullptr || b == nullptr) return std::nullopt;
  const uint64_t x = passes::constantBits(a), y = passes::constantBits(b);
  if (v->type.dtype == DType::F32) {
    const float q = std::bit_cast<float>(static_cast<uint32_t>(x)) /
                    std::bit_cast<float>(static_cast<uint32_t>(y));
    return std::bit_cast<uint32_t>(q);
  }
  if (v->type.dtype == DType::F64) {
    return std::bit_cast<uint64_t>(std::bit_cast<double>(x) / std::bit_cast<double>(y));
  }
  return std::nullopt;
}

// A floating constant 0.5: LLVM sees it as one when it compiles XLA's fusion, and rewrites pow
// by it (lf_power_one_half).
bool isConstantOneHalf(const ir::Value* v) {
  const std::optional<uint64_t> bits = constantBitsBelow(v);
  if (!bits) return false;
  switch (v->type.dtype) {
    case DType::F16:
      return *bits == 0x3800;
    case DType::BF16:
      return *bits == 0x3f00;
    case DType::F32:
      return *bits == 0x3f000000;
    case DType::F64:
      return *bits == 0x3fe0000000000000;
    default:
      return false;
  }
}

const char* preludeFunction(ir::OpKind k) {
  using K = ir::OpKind;
  switch (k) {
    case K::Abs:
      return "lf_abs";
    case K::Negate:
      return "lf_negate";
    case K::Sign:
      return "lf_sign";
    case K::Floor:
      return "lf_floor";
    case K::Ceil:
      return "lf_ceil";
    case K::RoundNearestAfz:
      return "lf_round_nearest_afz";
    case K::RoundNearestEven:
      return "lf_round_nearest_even";
    case K::Exp:
      return "lf_exponential";
    case K::Expm1:
      return "lf_exponential_minus_one";
    case K::Log:
      return "lf_log";
    case K::Log1p:
      return "lf_log_plus_one";
    case K::Sqrt:
      return "lf_sqrt";
    case K::Rsqrt:
      return "lf_rsqrt";
    case K::Cbrt:
      return "lf_cbrt";
    case K::Tanh:
      return "lf_tanh";
    case K::Logistic:
      return "lf_logistic";
    case K::Sin:
      return "lf_sine";
    case K::Cos:
      return "lf_cosine";
    case K::Tan:
      return "lf_tan";
    case K::Erf:
      return "lf_erf";
    case K::IsFinite:
      return "lf_is_finite";
    case K::Not:
      return "lf_not";
    case K::Popcnt:
      return "lf_popcnt";
    case K::Clz:
      return "lf_count_leading_zeros";
    case K::Add:
      return "lf_add";
    case K::Subtract:
      return "lf_subtract";
    case K::Multiply:
      return "lf_multiply";
    case K::Divide:
      return "lf_divide";
    case K::Remainder:
      return "lf_remainder";
    case K::Power:
      return "lf_power";
    case K::Maximum:
      return "lf_maximum";
    case K::Minimum:
      return "lf_minimum";
    case K::And:
      return "lf_and";
    case K::Or:
      return "lf_or";
    case K::Xor:
      return "lf_xor";
    case K::ShiftLeft:
      return "lf_shift_left";
    case K::ShiftRightLogical:
      return "lf_shift_right_logical";
    case K::ShiftRightArithmetic:
      return "lf_shift_right_arithmetic";
    case K::Atan2:
      return "lf_atan2";
    case K::Select:
      return "lf_select";
    case K::Clamp:
      return "lf_clamp";
    case K::Fma:
      return "lf_fma";
    default:
      return nullptr;
  }
}

const char* directionName(ir::CompareDirection d) {
  switch (d) {
    case ir::CompareDirection::EQ:
      return "eq";
    case ir::CompareDirection::NE:
      return "ne";
    case ir::CompareDirection::LT:
      return "lt";
    case ir::CompareDirection::LE:
      return "le";
    case ir::CompareDirection::GT:
      return "gt";
    case ir::CompareDirection::GE:
      return "ge";
  }
  return "eq";
}

std::string joinArgs(const std::vector<std::string>& args) {
  std::string s;
  for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
  return s;
}

// A scalar constant as an exact literal of its bit pattern.
std::string scalarLiteral(const ir::Op& op) {
  const auto& bytes = op.attr<ir::ConstantAttrs>().bytes;
  DType t = op.result()->type.dtype;
  int width = byteSize(t);
  if (static_cast<int>(bytes.size()) != width) {
    throw CompileError(op.loc, "constant " + op.name + " in a scalar region must be one element");
  }
  uint64_t bits = 0;
  for (int b = width - 1; b >= 0; --b) bits = (bits << 8) | bytes[b];
  if (t == DType::Pred) return bits ? "true" : "false";
  std::string literal = std::to_string(bits) + (width == 8 ? "ull" : "u");
  std::string bitsType = "uint" + std::to_string(8 * width) + "_t";
  return "lf_bitcast<" + cType(t) + ">((" + bitsType + ")" + literal + ")";
}

}  // namespace

std::string Emitter::scalarExpr(const ir::Op& op, const std::vector<std::string>& args) {
  using K = ir::OpKind;
  switch (op.kind) {
    case K::Convert:
      return "lf_convert<" + cType(op.result()->type.dtype) + ">(" + args[0] + ")";
    case K::BitcastConvert:
      return "lf_bitcast<" + cType(op.result()->type.dtype) + ">(" + args[0] + ")";
    case K::ReducePrecision: {
      const auto& a = op.attr<ir::ReducePrecisionAttrs>();
      return "lf_reduce_precision<" + std::to_string(a.exponentBits) + ", " +
             std::to_string(a.mantissaBits) + ">(" + args[0] + ")";
    }
    case K::Power:
      if (target_ == Target::Cpu && isConstantOneHalf(op.operands[1])) {
        return "lf_power_one_half(" + args[0] + ")";
      }
      break;
    case K::Compare: {
      const auto& a = op.attr<ir::CompareAttrs>();
      std::string fn =
          a.type == ir::CompareType::TotalOrder ? "lf_compare_totalorder_" : "lf_compare_";
      return fn + directionName(a.direction) + "(" + joinArgs(args) + ")";
    }
    default:
      break;
  }
  const char* fn = preludeFunction(op.kind);
  if (fn == nullptr) {
    throw CompileError(op.loc, std::string(ir::opKindName(op.kind)) + " (" + op.name +
                                   ") is not an elementwise op");
  }
  return std::string(fn) + "(" + joinArgs(args) + ")";
}

std::vector<std::string> Emitter::emitScalarRegion(const ir::Region& region,
                                                   const std::vector<std::string>& args) {
  // Only the arguments the region reads get a local (NVRTC warns about unused variables).
  std::unordered_set<const ir::Value*> read(region.yields.begin(), region.yields.end());
  for (const auto& op : region.ops) read.insert(op->operands.begin(), op->operands.end());
  for (size_t k = 0; k < region.args.size(); ++k) {
    const ir::Value* a = region.args[k].get();
    if (!read.count(a)) continue;
    line("const " + cType(a->type.dtype) + " " + name(a) + " = " + args.at(k) + ";");
  }
  for (const auto& op : region.ops) {
    const ir::Value* r = op->result();
    std::string decl = "const " + cType(r->type.dtype) + " " + name(r) + " = ";
    if (op->results.size() != 1 || r->type.numElements() != 1) {
      throw CompileError(op->loc, std::string("a reducer/comparator region may only hold scalar "
                                              "ops; ") +
                                      ir::opKindName(op->kind) + " (" + op->name + ") is not");
    }
    if (op->kind == ir::OpKind::Constant) {
      line(decl + scalarLiteral(*op) + ";");
    } else if (op->kind == ir::OpKind::Reshape || op->kind == ir::OpKind::Broadcast) {
      line(decl + scalar(op->operands[0]) + ";");
    } else if (ir::isElementwise(op->kind)) {
      std::vector<std::string> operands;
      for (const ir::Value* v : op->operands) operands.push_back(scalar(v));
      line(decl + scalarExpr(*op, operands) + ";");
    } else {
      throw CompileError(op->loc, std::string(ir::opKindName(op->kind)) + " (" + op->name +
                                      ") is not supported inside a reducer/comparator region");
    }
  }
  std::vector<std::string> yields;
  for (const ir::Value* y : region.yields) yields.push_back(scalar(y));
  return yields;
}

}  // namespace lf::codegen
