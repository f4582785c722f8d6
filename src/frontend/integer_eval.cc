#include "frontend/integer_eval.h"

#include <charconv>
#include <string>
#include <unordered_map>

#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

// Thrown to end an evaluation: the computation is not one this evaluator can run.
struct NotEvaluable {};

[[noreturn]] void stop() { throw NotEvaluable{}; }

uint64_t widthMask(DType t) {
  const int w = t == DType::Pred ? 1 : bitWidth(t);
  return w == 64 ? ~uint64_t{0} : (uint64_t{1} << w) - 1;
}

int64_t signExtend(uint64_t bits, DType t) {
  const int w = bitWidth(t);
  if (w == 64) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (w - 1);
  return static_cast<int64_t>((bits ^ sign) - sign);
}

class Evaluator {
 public:
  Evaluator(const hlo::Module& module, const EvalOptions& options)
      : module_(module), options_(options) {}

  EvalValue run(const hlo::Computation& comp, const std::vector<EvalValue>& args) {
    if (++depth_ > 32) stop();  // calls nest this deep only in a recursion
    // Instructions are evaluated by recursion on their operands: a bound on its depth. Each run
    // also counts against the budget, so a loop whose state is only passed along ends too.
    if (comp.instructions.size() > 4096 || ++spent_ > options_.maxElements) stop();
    std::unordered_map<std::string_view, int> index;
    for (size_t i = 0; i < comp.instructions.size(); ++i) index[comp.instructions[i].name] = i;
    std::vector<std::optional<EvalValue>> values(comp.instructions.size());
    std::vector<char> busy(comp.instructions.size(), 0);
    EvalValue out = value(comp, comp.rootIndex, index, values, busy, args);
    --depth_;
    return out;
  }

 private:
  // Instruction i's value, evaluating its operands first (HLO text need not be in order).
  const EvalValue& value(const hlo::Computation& comp, int i,
                         const std::unordered_map<std::string_view, int>& index,
                         std::vector<std::optional<EvalValue>>& values, std::vector<char>& busy,
                         const std::vector<EvalValue>& args) {
    if (i < 0) stop();
    if (values[i]) return *values[i];
    if (busy[i]) stop();  // a cycle
    busy[i] = 1;
    const hlo::Instruction& inst = comp.instructions[i];
    std::vector<const EvalValue*> operands;
    for (const hlo::Operand& o : inst.operands) {
      auto it = index.find(o.name);
      if (it == index.end()) stop();
      operands.push_back(&value(comp, it->second, index, values, busy, args));
    }
    values[i] = instruction(inst, operands, args);
    return *values[i];
  }

  // An array of the instruction's declared shape (its dims resized where the options say).
  EvalValue arrayOf(const hlo::Shape& shape) {
    if (shape.isTuple) stop();
    std::optional<DType> t = parseDType(shape.elementType);
    if (!t || isFloat(*t)) stop();
    for (bool d : shape.dynamic)
      if (d) stop();
    EvalValue v;
    v.dtype = *t;
    v.dims = shape.dims;
    for (int64_t& d : v.dims) {
      auto it = options_.resizedDims.find(d);
      if (it == options_.resizedDims.end()) continue;
      d = it->second;
      v.resized = true;
    }
    int64_t n = 1;
    for (int64_t d : v.dims) {  // checked before multiplying: a malformed shape may be huge
      if (d < 0 || (d > 0 && n > (options_.maxElements - spent_) / d)) stop();
      n *= d;
    }
    spent_ += n;
    if (spent_ > options_.maxElements) stop();
    v.bits.assign(n, 0);
    return v;
  }

  static const EvalValue& array(const EvalValue* v) {
    if (v->isTuple) stop();
    return *v;
  }

  EvalValue instruction(const hlo::Instruction& inst, const std::vector<const EvalValue*>& ops,
                        const std::vector<EvalValue>& args) {
    const std::string& op = inst.opcode;
    if (op == "parameter") {
      if (inst.parameterNumber < 0 || inst.parameterNumber >= static_cast<int64_t>(args.size()))
        stop();
      return args[inst.parameterNumber];
    }
    if (op == "tuple") {
      EvalValue t;
      t.isTuple = true;
      for (const EvalValue* v : ops) t.elements.push_back(*v);
      return t;
    }
    if (op == "get-tuple-element") {
      if (ops.size() != 1 || !ops[0]->isTuple) stop();
      const int64_t k = hlo::readInt(attr(inst, "index"));
      if (k < 0 || k >= static_cast<int64_t>(ops[0]->elements.size())) stop();
      return ops[0]->elements[k];
    }
    if (op == "copy") {
      if (ops.size() != 1) stop();
      return *ops[0];
    }
    if (op == "call") return run(computation(inst, "to_apply"), values(ops));
    if (op == "while") return whileLoop(inst, ops);
    EvalValue out = arrayOf(inst.shape);
    if (op == "constant") return constant(inst, std::move(out));
    if (op == "broadcast") return broadcast(inst, ops, std::move(out));
    if (op == "reshape") {
      if (ops.size() != 1 || array(ops[0]).bits.size() != out.bits.size() ||
          ops[0]->dtype != out.dtype)
        stop();
      if ((out.resized || ops[0]->resized) && withoutOnes(out.dims) != withoutOnes(ops[0]->dims))
        stop();
      out.bits = ops[0]->bits;
      return out;
    }
    if (op == "slice") return slice(inst, ops, std::move(out));
    return elementwise(inst, ops, std::move(out));
  }

  static std::vector<int64_t> withoutOnes(const std::vector<int64_t>& dims) {
    std::vector<int64_t> out;
    for (int64_t d : dims)
      if (d != 1) out.push_back(d);
    return out;
  }

  static const hlo::Attribute& attr(const hlo::Instruction& inst, std::string_view name) {
    const hlo::Attribute* a = inst.attr(name);
    if (a == nullptr) stop();
    return *a;
  }

  const hlo::Computation& computation(const hlo::Instruction& inst, std::string_view name) {
    const hlo::Computation* c = module_.find(hlo::readComputationName(attr(inst, name)));
    if (c == nullptr) stop();
    return *c;
  }

  static std::vector<EvalValue> values(const std::vector<const EvalValue*>& ops) {
    std::vector<EvalValue> out;
    for (const EvalValue* v : ops) out.push_back(*v);
    return out;
  }

  EvalValue whileLoop(const hlo::Instruction& inst, const std::vector<const EvalValue*>& ops) {
    if (ops.size() != 1) stop();
    const hlo::Computation& cond = computation(inst, "condition");
    const hlo::Computation& body = computation(inst, "body");
    EvalValue state = *ops[0];
    for (;;) {
      EvalValue go = run(cond, {state});
      if (go.isTuple || go.dtype != DType::Pred || go.bits.size() != 1) stop();
      if (go.bits[0] == 0) return state;
      state = run(body, {state});
    }
  }

  static EvalValue constant(const hlo::Instruction& inst, EvalValue out) {
    if (out.resized || !inst.literal || inst.literal->elements.size() != out.bits.size()) stop();
    for (size_t i = 0; i < out.bits.size(); ++i) {
      const std::string& text = inst.literal->elements[i];
      uint64_t bits = 0;
      if (out.dtype == DType::Pred) {
        if (text != "true" && text != "false") stop();
        bits = text == "true";
      } else if (isSignedInt(out.dtype)) {
        int64_t v = 0;
        auto r = std::from_chars(text.data(), text.data() + text.size(), v);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size()) stop();
        bits = static_cast<uint64_t>(v);
      } else {
        auto r = std::from_chars(text.data(), text.data() + text.size(), bits);
        if (r.ec != std::errc() || r.ptr != text.data() + text.size()) stop();
      }
      out.bits[i] = bits & widthMask(out.dtype);
    }
    return out;
  }

  static EvalValue broadcast(const hlo::Instruction& inst, const std::vector<const EvalValue*>& ops,
                             EvalValue out) {
    if (ops.size() != 1) stop();
    const EvalValue& in = array(ops[0]);
    const std::vector<int64_t> map = hlo::readIntList(attr(inst, "dimensions"));
    if (in.dtype != out.dtype || map.size() != in.dims.size()) stop();
    for (size_t d = 0; d < map.size(); ++d) {
      if (map[d] < 0 || map[d] >= static_cast<int64_t>(out.dims.size()) ||
          out.dims[map[d]] != in.dims[d])
        stop();
    }
    std::vector<int64_t> outIndex(out.dims.size(), 0);
    for (size_t i = 0; i < out.bits.size(); ++i) {
      int64_t at = 0;
      for (size_t d = 0; d < map.size(); ++d) at = at * in.dims[d] + outIndex[map[d]];
      out.bits[i] = in.bits[at];
      for (int64_t d = static_cast<int64_t>(out.dims.size()) - 1; d >= 0; --d) {
        if (++outIndex[d] < out.dims[d]) break;
        outIndex[d] = 0;
      }
    }
    return out;
  }

  static EvalValue slice(const hlo::Instruction& inst, const std::vector<const EvalValue*>& ops,
                         EvalValue out) {
    if (ops.size() != 1) stop();
    const EvalValue& in = array(ops[0]);
    const std::vector<hlo::SliceRange> ranges = hlo::readSliceRanges(attr(inst, "slice"));
    if (in.resized || out.resized || in.dtype != out.dtype || ranges.size() != in.dims.size())
      stop();
    for (size_t d = 0; d < ranges.size(); ++d) {
      const hlo::SliceRange& r = ranges[d];
      if (r.start < 0 || r.stride < 1 || r.limit > in.dims[d] || r.start > r.limit ||
          (r.limit - r.start + r.stride - 1) / r.stride != out.dims[d])
        stop();
    }
    std::vector<int64_t> outIndex(out.dims.size(), 0);
    for (size_t i = 0; i < out.bits.size(); ++i) {
      int64_t at = 0;
      for (size_t d = 0; d < ranges.size(); ++d)
        at = at * in.dims[d] + ranges[d].start + outIndex[d] * ranges[d].stride;
      out.bits[i] = in.bits[at];
      for (int64_t d = static_cast<int64_t>(out.dims.size()) - 1; d >= 0; --d) {
        if (++outIndex[d] < out.dims[d]) break;
        outIndex[d] = 0;
      }
    }
    return out;
  }

  static EvalValue elementwise(const hlo::Instruction& inst,
                               const std::vector<const EvalValue*>& ops, EvalValue out) {
    const std::string& op = inst.opcode;
    for (const EvalValue* v : ops) {
      if (array(v).dims != out.dims) stop();
    }
    const size_t arity = ops.size();
    if (arity == 0 || arity > 3) stop();
    const DType t = ops[arity == 3 ? 1 : 0]->dtype;  // select's branches give the type
    for (size_t i = 0; i < out.bits.size(); ++i) {
      uint64_t a = ops[0]->bits[i], b = arity > 1 ? ops[1]->bits[i] : 0;
      uint64_t r = 0;
      if (arity == 3) {
        if (op != "select" || ops[0]->dtype != DType::Pred || ops[2]->dtype != t) stop();
        r = a != 0 ? b : ops[2]->bits[i];
      } else if (arity == 2 && op == "compare") {
        if (ops[1]->dtype != t || out.dtype != DType::Pred) stop();
        r = compare(inst, t, a, b);
      } else if (arity == 1) {
        r = unary(op, t, out.dtype, a);
      } else {
        if (ops[1]->dtype != t || out.dtype != t) stop();
        r = binary(op, t, a, b);
      }
      out.bits[i] = r & widthMask(out.dtype);
    }
    return out;
  }

  static uint64_t unary(const std::string& op, DType from, DType to, uint64_t a) {
    if (op == "convert") {
      if (to == DType::Pred) return a != 0;
      return isSignedInt(from) ? static_cast<uint64_t>(signExtend(a, from)) : a;
    }
    if (from != to) stop();
    if (op == "not") return from == DType::Pred ? !a : ~a;
    if (from == DType::Pred) stop();
    if (op == "negate") return ~a + 1;
    stop();
  }

  static uint64_t binary(const std::string& op, DType t, uint64_t a, uint64_t b) {
    if (op == "and") return a & b;
    if (op == "or") return a | b;
    if (op == "xor") return a ^ b;
    if (t == DType::Pred) stop();
    const uint64_t w = static_cast<uint64_t>(bitWidth(t));
    if (op == "add") return a + b;
    if (op == "subtract") return a - b;
    if (op == "multiply") return a * b;
    // Shifts by the width or more (a negative amount included): 0, or the sign for an
    // arithmetic right shift (XLA's rule, xla-op-semantics.md).
    if (op == "shift-left") return b >= w ? 0 : a << b;
    if (op == "shift-right-logical") return b >= w ? 0 : a >> b;
    if (op == "shift-right-arithmetic") {
      const int64_t s = signExtend(a, t);
      return static_cast<uint64_t>(b >= w ? (s < 0 ? -1 : 0) : s >> b);
    }
    const bool less = isSignedInt(t) ? signExtend(a, t) < signExtend(b, t) : a < b;
    if (op == "maximum") return less ? b : a;
    if (op == "minimum") return less ? a : b;
    stop();
  }

  static uint64_t compare(const hlo::Instruction& inst, DType t, uint64_t a, uint64_t b) {
    const std::string dir = hlo::readComparisonDirection(attr(inst, "direction"));
    if (const hlo::Attribute* type = inst.attr("type")) {
      const std::string ty = hlo::readComparisonType(*type);
      if (ty != (isSignedInt(t) ? "SIGNED" : "UNSIGNED")) stop();
    }
    const bool signedLess = isSignedInt(t) && signExtend(a, t) < signExtend(b, t);
    const bool lt = isSignedInt(t) ? signedLess : a < b;
    const bool eq = a == b;
    if (dir == "EQ") return eq;
    if (dir == "NE") return !eq;
    if (dir == "LT") return lt;
    if (dir == "LE") return lt || eq;
    if (dir == "GT") return !lt && !eq;
    if (dir == "GE") return !lt;
    stop();
  }

  const hlo::Module& module_;
  const EvalOptions& options_;
  int64_t spent_ = 0;
  int depth_ = 0;
};

}  // namespace

std::optional<EvalValue> evaluateIntegerComputation(const hlo::Module& module,
                                                    const hlo::Computation& comp,
                                                    const std::vector<EvalValue>& args,
                                                    const EvalOptions& options) {
  try {
    return Evaluator(module, options).run(comp, args);
  } catch (const NotEvaluable&) {
    return std::nullopt;
  } catch (const std::exception&) {  // a malformed attribute (CompileError) or a bad index
    return std::nullopt;
  }
}

}  // namespace lf::frontend
