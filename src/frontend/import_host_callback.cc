// Host callbacks: the custom calls JAX lowers jax.pure_callback, jax.debug.callback and
// jax.debug.print to. The kernel cannot run Python, so only a callback inside a conditional branch
// imports (equinox's error_if, diffrax's throw=True checks: a branch taken only on failure); one
// that every call reaches is reported unsupported. passes/host_callbacks.h then turns reaching one
// into the program's host-callback status, so that the caller can run the call with XLA instead.
#include <iterator>

#include "frontend/importer.h"

namespace lf::frontend {

const char* const kHostCallbackTargets[] = {"xla_ffi_python_cpu_callback",
                                            "xla_ffi_python_gpu_callback",
                                            "xla_python_cpu_callback", "xla_python_gpu_callback"};
const size_t kNumHostCallbackTargets = std::size(kHostCallbackTargets);

bool isHostCallbackTarget(std::string_view target) {
  for (const char* t : kHostCallbackTargets) {
    if (target == t) return true;
  }
  return false;
}

Values importHostCallback(InstrContext& c, const std::string& target) {
  const std::string what = "host callback '" + c.inst.name + "' (" + target + ")";
  bool inBranch = false;
  for (const ir::Region* r = &c.region; r->parent != nullptr; r = r->parent->parent) {
    const ir::Op* owner = r->parent;
    if (owner->kind == ir::OpKind::Conditional) {
      inBranch = true;
    } else if (owner->kind != ir::OpKind::While || r != owner->regions.back().get() ||
               owner->regions.size() != 2) {
      // A while's condition is imported first, so while it is imported it is the only region.
      c.fail(what + " inside a " + ir::opKindName(owner->kind) +
             (owner->kind == ir::OpKind::While ? " loop's condition" : "'s computation") +
             " is not supported; run this function with jax.jit");
    }
  }
  if (!inBranch) {
    c.fail(what +
           " runs on every call (it is not inside a conditional branch), and loopfuse cannot run "
           "Python inside the kernel; run this function with jax.jit");
  }
  Values operands;
  for (const Values& leaves : c.operands)
    operands.insert(operands.end(), leaves.begin(), leaves.end());
  ir::HostCallbackAttrs attrs{target, optBool(c, "custom_call_has_side_effect")};
  return resultsOf(c.emit(ir::OpKind::HostCallback, operands, c.resultTypes(), attrs));
}

}  // namespace lf::frontend
