// The import driver: entry parameters become program arguments, each computation's instructions
// are imported operands-first, failures are collected (dependents of a failed instruction are
// skipped, not reported twice), and the finished program must pass ir::verify.
#include "frontend/importer.h"

#include <algorithm>
#include <map>

#include "frontend/import.h"
#include "hlo/attributes.h"
#include "ir/op_rules.h"

namespace lf::frontend {

// ---- InstrContext -------------------------------------------------------------------------------

std::string InstrContext::where() const {
  return "(instruction " + inst.name + " in computation " + comp.name + ")";
}

void InstrContext::fail(const std::string& message) const {
  throw CompileError(inst.loc, message + " " + where());
}

void InstrContext::expectOperands(size_t n) const {
  if (inst.operands.size() != n) {
    fail(inst.opcode + " takes " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") + ", got " +
         std::to_string(inst.operands.size()));
  }
}

void InstrContext::expectOperandsAtLeast(size_t n) const {
  if (inst.operands.size() < n) {
    fail(inst.opcode + " takes at least " + std::to_string(n) + " operands, got " +
         std::to_string(inst.operands.size()));
  }
}

ir::Value* InstrContext::array(size_t i) const {
  if (i >= operands.size() || operands[i].size() != 1 || operandShape(i).isTuple) {
    fail(inst.opcode + " operand " + std::to_string(i) + " must be an array");
  }
  return operands[i][0];
}

const hlo::Shape& InstrContext::operandShape(size_t i) const {
  const hlo::Instruction* def = comp.find(inst.operands.at(i).name);
  if (def == nullptr) fail("unknown operand '" + inst.operands.at(i).name + "'");
  return def->shape;
}

ir::Type InstrContext::resultType() const {
  if (inst.shape.isTuple)
    fail(inst.opcode + " must have an array shape, not " + inst.shape.toString());
  return toIrType(inst.shape);
}

std::vector<ir::Type> InstrContext::resultTypes() const { return flattenShape(inst.shape); }

const hlo::Attribute& InstrContext::attr(std::string_view name) const {
  const hlo::Attribute* a = inst.attr(name);
  if (a == nullptr) fail(inst.opcode + " needs the attribute '" + std::string(name) + "'");
  return *a;
}

ir::Op* InstrContext::emit(ir::OpKind kind, Values ops, std::vector<ir::Type> types,
                           ir::Attrs attrs) {
  ir::Op* op =
      region.append(kind, std::move(ops), std::move(types), std::move(attrs), inst.loc, inst.name);
  // Region checks need the regions, which callers add after emit; they are re-checked by the
  // final verify. Here: everything that does not depend on regions.
  if (op->regions.empty() && kind != ir::OpKind::While && kind != ir::OpKind::Conditional &&
      kind != ir::OpKind::Reduce && kind != ir::OpKind::ReduceWindow &&
      kind != ir::OpKind::Scatter && kind != ir::OpKind::SelectAndScatter &&
      kind != ir::OpKind::Sort) {
    if (std::string e = ir::checkOp(*op); !e.empty()) fail(e);
  }
  return op;
}

void InstrContext::check(const ir::Op* op) const {
  if (std::string e = ir::checkOp(*op); !e.empty()) fail(e);
}

ir::Value* InstrContext::emit1(ir::OpKind kind, Values ops, ir::Attrs attrs) {
  return emit(kind, std::move(ops), {resultType()}, std::move(attrs))->result();
}

ir::Region* InstrContext::addRegion(ir::Op* op, std::string_view attrName,
                                    const std::vector<std::vector<ir::Type>>& paramTypes) {
  return addRegionFor(op, hlo::readComputationName(attr(attrName)), paramTypes);
}

ir::Region* InstrContext::addRegionFor(ir::Op* op, const std::string& compName,
                                       const std::vector<std::vector<ir::Type>>& paramTypes) {
  const hlo::Computation& callee = importer.computation(compName, *this);
  ir::Region* r = op->addRegion();
  std::vector<Values> args;
  for (size_t p = 0; p < paramTypes.size(); ++p) {
    Values leaves;
    for (const ir::Type& t : paramTypes[p]) {
      leaves.push_back(r->addArg(t, callee.name + ".arg" + std::to_string(p)));
    }
    args.push_back(std::move(leaves));
  }
  r->yields = importer.importComputation(callee, *r, args);
  return r;
}

Values InstrContext::inlineCall(const std::string& compName, const std::vector<Values>& args) {
  return importer.importComputation(importer.computation(compName, *this), region, args);
}

// ---- Importer -----------------------------------------------------------------------------------

const hlo::Computation& Importer::computation(const std::string& name,
                                              const InstrContext& at) const {
  const hlo::Computation* c = module_.find(name);
  if (c == nullptr) at.fail("unknown computation '" + name + "'");
  if (std::find(callStack_.begin(), callStack_.end(), c) != callStack_.end()) {
    at.fail("computation '" + name + "' calls itself");
  }
  return *c;
}

std::vector<int> reachableInOrder(const hlo::Computation& comp, SideEffects& effects) {
  std::unordered_map<std::string_view, int> index;
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    index[comp.instructions[i].name] = static_cast<int>(i);
  }
  auto operandsOf = [&](int node) {
    std::vector<int> out;
    for (const hlo::Operand& o : comp.instructions[node].operands) {
      auto it = index.find(o.name);
      if (it != index.end()) out.push_back(it->second);
    }
    return out;
  };
  std::vector<int> order;
  if (comp.rootIndex < 0) return order;
  // Which instructions the root and the side effects need.
  std::vector<char> needed(comp.instructions.size(), 0);
  std::vector<int> work{comp.rootIndex};
  needed[comp.rootIndex] = 1;
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    if (!needed[i] && effects.of(comp.instructions[i])) {
      needed[i] = 1;
      work.push_back(static_cast<int>(i));
    }
  }
  while (!work.empty()) {
    int node = work.back();
    work.pop_back();
    for (int o : operandsOf(node)) {
      if (!needed[o]) {
        needed[o] = 1;
        work.push_back(o);
      }
    }
  }
  // Text order, except that an operand written later is pulled in before its user (XLA allows
  // any order). Iterative post-order, so that a long chain cannot overflow the stack; the parser
  // has already rejected cycles.
  std::vector<char> done(comp.instructions.size(), 0);
  for (size_t start = 0; start < comp.instructions.size(); ++start) {
    if (!needed[start] || done[start]) continue;
    std::vector<std::pair<int, size_t>> stack{{static_cast<int>(start), 0}};
    done[start] = 1;
    while (!stack.empty()) {
      auto [node, next] = stack.back();
      std::vector<int> ops = operandsOf(node);
      if (next < ops.size()) {
        stack.back().second++;
        if (!done[ops[next]]) {
          done[ops[next]] = 1;
          stack.push_back({ops[next], 0});
        }
        continue;
      }
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

namespace {

// The program arguments of an entry parameter's leaves; a complex leaf is one argument of its part
// type with a trailing dimension of 2 (the interleaved bytes of c64 / c128), split here.
void addEntryLeaves(InstrContext& c, ir::Program& program, const hlo::Shape& shape, Values& out) {
  if (shape.isTuple) {
    for (const hlo::Shape& e : shape.tupleElements) addEntryLeaves(c, program, e, out);
  } else if (complexPartType(shape.elementType)) {
    ir::Type t = toIrType(realView(shape));
    t.dims.push_back(2);
    Values parts = splitComplexArgument(c, program.body.addArg(t, c.inst.name));
    out.insert(out.end(), parts.begin(), parts.end());
  } else if (shape.elementType != "token") {
    out.push_back(program.body.addArg(toIrType(shape), c.inst.name));
  }
}

// The entry root's leaves as program outputs: each complex leaf's two parts joined back into one
// interleaved array.
void addOutputs(InstrContext& c, const hlo::Shape& shape, const Values& leaves, size_t& next,
                Values& out) {
  if (shape.isTuple) {
    for (const hlo::Shape& e : shape.tupleElements) addOutputs(c, e, leaves, next, out);
  } else if (complexPartType(shape.elementType)) {
    out.push_back(joinComplexOutput(c, leaves.at(next), leaves.at(next + 1)));
    next += 2;
  } else if (shape.elementType != "token") {
    out.push_back(leaves.at(next++));
  }
}

}  // namespace

Values Importer::importInstruction(const hlo::Computation& comp, const hlo::Instruction& inst,
                                   ir::Region& region, const std::vector<Values>& args,
                                   std::vector<Values> operands) {
  InstrContext ctx(*this, comp, inst, region, std::move(operands));
  Values out;
  if (inst.opcode == "parameter") {
    if (inst.parameterNumber < 0 || inst.parameterNumber >= static_cast<int64_t>(args.size())) {
      ctx.fail("parameter(" + std::to_string(inst.parameterNumber) +
               ") but the computation is given " + std::to_string(args.size()) + " argument(s)");
    }
    out = args[inst.parameterNumber];
  } else if (needsComplexRule(comp, inst)) {
    auto it = complexHandlers().find(inst.opcode);
    if (it == complexHandlers().end()) {
      ctx.fail("unsupported op '" + inst.opcode + "' on complex numbers (" + inst.shape.toString() +
               ")");
    }
    out = it->second(ctx);
  } else {
    auto it = handlers().find(inst.opcode);
    if (it == handlers().end()) ctx.fail("unsupported op '" + inst.opcode + "'");
    out = it->second(ctx);
  }
  // Whatever the mapping produced must have the declared shape, leaf by leaf.
  std::vector<ir::Type> declared = flattenShape(inst.shape);
  bool ok = declared.size() == out.size();
  for (size_t i = 0; ok && i < out.size(); ++i) ok = out[i]->type == declared[i];
  if (!ok) {
    std::string got;
    for (size_t i = 0; i < out.size(); ++i) got += (i ? ", " : "") + out[i]->type.toString();
    ctx.fail("type mismatch: " + inst.opcode + " is declared " + inst.shape.toString() +
             " but its operands give (" + got + ")");
  }
  return out;
}

Values Importer::importComputation(const hlo::Computation& comp, ir::Region& region,
                                   const std::vector<Values>& args) {
  callStack_.push_back(&comp);
  std::unordered_map<std::string_view, Values> env;
  std::unordered_map<std::string_view, bool> failed;
  for (int idx : reachableInOrder(comp, effects_)) {
    const hlo::Instruction& inst = comp.instructions[idx];
    std::vector<Values> operands;
    bool poisoned = false;
    for (const hlo::Operand& o : inst.operands) {
      if (failed.count(o.name)) poisoned = true;
      auto it = env.find(o.name);
      operands.push_back(it == env.end() ? Values{} : it->second);
    }
    if (poisoned) {
      failed[inst.name] = true;
      continue;
    }
    try {
      env[inst.name] = importInstruction(comp, inst, region, args, std::move(operands));
    } catch (const CompileError& e) {
      diags_.insert(diags_.end(), e.diagnostics().begin(), e.diagnostics().end());
      failed[inst.name] = true;
    } catch (const Poisoned&) {
      failed[inst.name] = true;
    }
  }
  callStack_.pop_back();
  const std::string& root = comp.root().name;
  if (failed.count(root) || !env.count(root)) throw Poisoned{};
  return env[root];
}

ir::Program Importer::run() {
  if (module_.entryIndex < 0 || module_.computations.empty()) {
    throw CompileError(module_.loc, "module has no entry computation");
  }
  if (std::vector<Diagnostic> bad = findUnsupported(module_); !bad.empty()) throw CompileError(bad);
  const hlo::Computation& entry = module_.entry();
  ir::Program program;
  program.name = module_.name;

  // Entry parameters, by number, must be 0..n-1; tuple parameters become several arguments.
  std::map<int64_t, const hlo::Instruction*> params;
  for (const hlo::Instruction& inst : entry.instructions) {
    if (inst.opcode != "parameter") continue;
    if (!params.emplace(inst.parameterNumber, &inst).second) {
      diags_.push_back(
          {inst.loc, "duplicate parameter(" + std::to_string(inst.parameterNumber) + ")"});
    }
  }
  std::vector<Values> args;
  for (const auto& [number, inst] : params) {
    if (number != static_cast<int64_t>(args.size())) {
      diags_.push_back(
          {inst->loc, "entry parameters must be numbered 0.." + std::to_string(params.size() - 1)});
      break;
    }
    if (containsToken(inst->shape)) {
      diags_.push_back(
          {inst->loc, "unsupported token parameter '" + inst->name +
                          "' in the entry computation; run this function with jax.jit"});
    }
    Values leaves;
    InstrContext ctx(*this, entry, *inst, program.body, {});
    try {
      addEntryLeaves(ctx, program, inst->shape, leaves);
    } catch (const CompileError& e) {
      diags_.insert(diags_.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
    args.push_back(std::move(leaves));
  }
  if (containsToken(entry.root().shape)) {
    diags_.push_back({entry.root().loc,
                      "unsupported token in the entry computation's result; run "
                      "this function with jax.jit"});
  }
  if (!diags_.empty()) throw CompileError(diags_);

  try {
    Values leaves = importComputation(entry, program.body, args);
    if (containsComplex(entry.root().shape)) {
      InstrContext ctx(*this, entry, entry.root(), program.body, {});
      size_t next = 0;
      addOutputs(ctx, entry.root().shape, leaves, next, program.body.yields);
    } else {
      program.body.yields = std::move(leaves);
    }
  } catch (const Poisoned&) {
    // Already reported.
  }
  if (!diags_.empty()) throw CompileError(diags_);
  for (size_t i = 0; i < program.body.yields.size(); ++i) {
    program.outputNames.push_back("output_" + std::to_string(i));
  }
  std::vector<Diagnostic> internal = ir::verify(program);
  if (!internal.empty()) {
    for (Diagnostic& d : internal)
      d.message = "internal error: imported IR fails verification: " + d.message;
    throw CompileError(internal);
  }
  return program;
}

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    addElementwiseHandlers(t);
    addShapeHandlers(t);
    addComputeHandlers(t);
    addControlFlowHandlers(t);
    addLinalgHandlers(t);
    addConvolutionHandlers(t);
    addScanHandler(t);
    addRngBitGeneratorHandler(t);
    return t;
  }();
  return table;
}

Values resultsOf(const ir::Op* op) {
  Values out;
  for (const auto& r : op->results) out.push_back(r.get());
  return out;
}

bool optBool(InstrContext& c, std::string_view name, bool byDefault) {
  const hlo::Attribute* a = c.optAttr(name);
  return a ? hlo::readBool(*a) : byDefault;
}

int64_t optInt(InstrContext& c, std::string_view name, int64_t byDefault) {
  const hlo::Attribute* a = c.optAttr(name);
  return a ? hlo::readInt(*a) : byDefault;
}

ir::Program importModule(const hlo::Module& module) { return Importer(module).run(); }

const std::vector<std::string>& complexOpcodes() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    for (const auto& [name, handler] : complexHandlers()) out.push_back(name);
    for (const auto& [name, handler] : handlers()) {
      if (importsComplexLeaves(name)) out.push_back(name);
    }
    for (size_t i = 0; i < kNumKnownCustomCallTargets; ++i) {
      if (takesComplexCustomCall(kKnownCustomCallTargets[i])) {
        out.push_back(std::string("custom-call:") + kKnownCustomCallTargets[i]);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return list;
}

const std::vector<std::string>& supportedOpcodes() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out{"parameter"};
    for (const auto& [name, handler] : handlers()) out.push_back(name);
    for (const auto& [name, handler] : complexHandlers()) {
      if (!handlers().count(name)) out.push_back(name);  // fft, real, imag, complex
    }
    for (size_t i = 0; i < kNumKnownCustomCallTargets; ++i) {
      out.push_back(std::string("custom-call:") + kKnownCustomCallTargets[i]);
    }
    for (size_t i = 0; i < kNumHostCallbackTargets; ++i) {
      out.push_back(std::string("custom-call:") + kHostCallbackTargets[i]);
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return list;
}

}  // namespace lf::frontend
