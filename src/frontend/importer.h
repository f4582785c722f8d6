// Internal to src/frontend: the driver that walks HLO computations and the context each per-opcode
// mapping function sees. An HLO value maps to a list of ir::Value* (its flattened tuple leaves; a
// token is the empty list), so tuple, get-tuple-element and call only reorganise lists.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hlo/ast.h"
#include "ir/ir.h"

namespace lf::frontend {

using Values = std::vector<ir::Value*>;

// Thrown when an instruction cannot be imported because an operand already failed (and was
// reported): the dependent instruction is skipped silently.
struct Poisoned {};

class Importer;

// The computations `inst` runs (to_apply, condition, body, branches), by name (side_effects.cc).
std::vector<std::string> calledComputations(const hlo::Instruction& inst);

// Whether an instruction has an effect besides its result (side_effects.cc): a custom call with
// custom_call_has_side_effect=true (jax.debug.callback), or one whose computations contain one.
class SideEffects {
 public:
  explicit SideEffects(const hlo::Module& module) : module_(module) {}
  bool of(const hlo::Instruction& inst);
  bool of(const hlo::Computation& comp);

 private:
  const hlo::Module& module_;
  std::unordered_map<const hlo::Computation*, bool> memo_;
};

// One HLO instruction being imported into `region`.
class InstrContext {
 public:
  InstrContext(Importer& importer, const hlo::Computation& comp, const hlo::Instruction& inst,
               ir::Region& region, std::vector<Values> operands)
      : importer(importer), comp(comp), inst(inst), region(region), operands(std::move(operands)) {}

  Importer& importer;
  const hlo::Computation& comp;
  const hlo::Instruction& inst;
  ir::Region& region;
  std::vector<Values> operands;  // flattened leaves, one list per HLO operand

  void expectOperands(size_t n) const;
  void expectOperandsAtLeast(size_t n) const;
  ir::Value* array(size_t i) const;  // operand i, which must be one array
  const hlo::Shape& operandShape(size_t i) const;
  ir::Type resultType() const;                // the instruction's shape, which must be one array
  std::vector<ir::Type> resultTypes() const;  // the flattened leaves of the instruction's shape

  const hlo::Attribute& attr(std::string_view name) const;  // required: fails when absent
  const hlo::Attribute* optAttr(std::string_view name) const { return inst.attr(name); }

  // Appends an op, then checks it with XLA's shape rules; a mismatch is reported at the
  // instruction ("type mismatch: add operands f32[2] and f32[3]").
  ir::Op* emit(ir::OpKind kind, Values operands, std::vector<ir::Type> types,
               ir::Attrs attrs = ir::NoAttrs{});
  // Runs the shape rules on an op whose regions are now complete (emit skips ops with regions).
  void check(const ir::Op* op) const;
  // One result whose type is the instruction's declared shape.
  ir::Value* emit1(ir::OpKind kind, Values operands, ir::Attrs attrs = ir::NoAttrs{});

  // Adds a region to `op` holding the named computation; its parameter i becomes region
  // arguments of paramTypes[i] (several for a tuple parameter); it yields the root's leaves.
  ir::Region* addRegion(ir::Op* op, std::string_view attrName,
                        const std::vector<std::vector<ir::Type>>& paramTypes);
  ir::Region* addRegionFor(ir::Op* op, const std::string& compName,
                           const std::vector<std::vector<ir::Type>>& paramTypes);
  // Imports the named computation into the current region with the given parameter values.
  Values inlineCall(const std::string& compName, const std::vector<Values>& args);

  [[noreturn]] void fail(const std::string& message) const;
  std::string where() const;  // "(instruction x in computation y)"
};

// Helpers the handlers share: an op's results as the instruction's leaves, and optional boolean
// and integer attributes with their defaults.
Values resultsOf(const ir::Op* op);
bool optBool(InstrContext& c, std::string_view name, bool byDefault = false);
int64_t optInt(InstrContext& c, std::string_view name, int64_t byDefault);

using Handler = Values (*)(InstrContext&);
using HandlerTable = std::unordered_map<std::string, Handler>;

class Importer {
 public:
  explicit Importer(const hlo::Module& module) : module_(module) {}
  ir::Program run();

  // Imports `comp` into `region` with parameter(i) bound to args[i]; returns the root's leaves.
  // Failures inside are recorded; throws Poisoned when the root could not be imported.
  Values importComputation(const hlo::Computation& comp, ir::Region& region,
                           const std::vector<Values>& args);
  const hlo::Computation& computation(const std::string& name, const InstrContext& at) const;
  // Whether `callee` computes jax's threefry2x32 hash (threefry_call.cc), remembered per callee.
  bool computesThreefry(const hlo::Computation& callee);

 private:
  Values importInstruction(const hlo::Computation& comp, const hlo::Instruction& inst,
                           ir::Region& region, const std::vector<Values>& args,
                           std::vector<Values> operands);

  const hlo::Module& module_;
  SideEffects effects_{module_};
  std::vector<Diagnostic> diags_;
  std::vector<const hlo::Computation*> callStack_;  // to reject recursion
  std::unordered_map<const hlo::Computation*, bool> threefryCallees_;
};

// A call of a computation that computes jax's threefry2x32 hash (how jax lowers jax.random's hash
// on the CPU) as the Threefry2x32 op; nullopt for any other call (threefry_call.cc).
std::optional<Values> importThreefryCall(InstrContext& c, const hlo::Computation& callee);

// Complex numbers (import_complex.cc): an instruction whose operands or result are complex is
// imported by this table's handler for its opcode, on the (real, imaginary) leaves of each
// complex value; an opcode it lacks is reported as not taking complex numbers.
const HandlerTable& complexHandlers();
// Opcodes that only move leaf lists (tuple, call, while, ...) or handle complex leaves themselves
// (reduce): the ordinary handler imports them whatever their types.
bool importsComplexLeaves(std::string_view opcode);
// Whether `inst` takes or gives complex values and is not one of those: the table decides.
bool needsComplexRule(const hlo::Computation& comp, const hlo::Instruction& inst);
// An entry parameter's complex array arrives as one array of its part type with a trailing
// dimension of 2, (real, imaginary) interleaved as c64/c128 are in memory; these split one into
// its leaves, and join an output's leaves back.
Values splitComplexArgument(InstrContext& c, ir::Value* interleaved);
ir::Value* joinComplexOutput(InstrContext& c, ir::Value* re, ir::Value* im);
// The fft op (import_fft.cc), which always involves complex values.
Values importFft(InstrContext& c);

// The per-family mapping tables (import_*.cc) and their union.
void addElementwiseHandlers(HandlerTable& table);
void addShapeHandlers(HandlerTable& table);
void addComputeHandlers(HandlerTable& table);
void addControlFlowHandlers(HandlerTable& table);
void addLinalgHandlers(HandlerTable& table);
void addConvolutionHandlers(HandlerTable& table);
void addScanHandler(HandlerTable& table);
void addRngBitGeneratorHandler(HandlerTable& table);
const HandlerTable& handlers();
// The custom-call targets import_control_flow.cc recognises.
bool isKnownCustomCallTarget(std::string_view target);
// The LAPACK / cuSOLVER targets import_linalg.cc handles (potrf, trsm), and their import.
bool isLinalgCustomCallTarget(std::string_view target);
Values importLinalgCustomCall(InstrContext& c, const std::string& target);
// The known targets that take complex operands (LU, Cholesky and triangular solve, and Sharding),
// and the complex table's handlers for them and for HLO's cholesky and triangular-solve
// (import_linalg.cc).
bool takesComplexCustomCall(std::string_view target);
Values importComplexCustomCall(InstrContext& c);
void addComplexLinalgHandlers(HandlerTable& table);
// The custom calls of jax.pure_callback / jax.debug.callback (import_host_callback.cc), which
// isKnownCustomCallTarget knows too.
bool isHostCallbackTarget(std::string_view target);
extern const char* const kHostCallbackTargets[];
extern const size_t kNumHostCallbackTargets;
Values importHostCallback(InstrContext& c, const std::string& target);
extern const char* const kKnownCustomCallTargets[];
extern const size_t kNumKnownCustomCallTargets;

// Shapes (shapes.cc). toIrType throws CompileError for tuples, tokens, complex and unsupported
// element types and dynamic dimensions. A complex array flattens to two leaves, (real, imaginary).
ir::Type toIrType(const hlo::Shape& shape);
std::optional<DType> complexPartType(std::string_view elementType);  // c64: f32, c128: f64
bool containsComplex(const hlo::Shape& shape);
hlo::Shape realView(const hlo::Shape& shape);  // complex element types replaced by their parts'
std::vector<ir::Type> flattenShape(const hlo::Shape& shape);  // tokens contribute nothing
size_t leafCount(const hlo::Shape& shape);
bool containsToken(const hlo::Shape& shape);
// "" when every element type in `shape` is supported; else the diagnostic text for the first bad
// one.
std::string unsupportedTypeIn(const hlo::Shape& shape);

// Constants (constants.cc): the literal's elements as little-endian bytes of `type`.
std::vector<uint8_t> literalBytes(const hlo::Literal& literal, const ir::Type& type);

// Instructions of `comp` that its root needs, and those with side effects and what they need,
// operands first (HLO text need not be ordered).
std::vector<int> reachableInOrder(const hlo::Computation& comp, SideEffects& effects);

// Every unsupported opcode, custom-call target, element type and dynamic shape reachable from the
// entry computation (unsupported.cc), one diagnostic each.
std::vector<Diagnostic> findUnsupported(const hlo::Module& module);

}  // namespace lf::frontend
