#include "passes/pipeline.h"

#include <cstdlib>
#include <cstring>
#include <iostream>

#include "passes/contract.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/divide.h"
#include "passes/dot_layout.h"
#include "passes/excess_precision.h"
#include "passes/host_callbacks.h"
#include "passes/licm.h"
#include "passes/multiply.h"
#include "passes/simplify.h"
#include "passes/unroll.h"

namespace lf::passes {
namespace {

bool dumpAfterAll() {
  const char* dump = std::getenv("LOOPFUSE_DUMP");
  return dump != nullptr && std::strcmp(dump, "after-all") == 0;
}

}  // namespace

void runPasses(ir::Program& program, const AfterPass& afterEach) {
  const bool dump = dumpAfterAll();
  auto run = [&](const char* passName, void (*pass)(ir::Program&)) {
    pass(program);
    if (dump) std::cerr << "// ----- IR after " << passName << " -----\n" << ir::print(program);
    if (afterEach) afterEach(passName, program);
  };
  // Then simplify, so that CSE sees canonical ops; LICM then moves invariant work (and the
  // constants CSE could not merge across sibling regions) out of loops; unrolling copies the
  // hoisted-from bodies, and its straight-line copies give the second simplify and CSE constant
  // loop counters and repeated subexpressions to fold; DCE removes everything left unused.
  // Multiply-add contraction comes last, when every use count is final, and a last DCE drops the
  // multiplies it absorbed. Then matrix-vector products in loops read a transposed copy of their
  // loop-invariant matrix (after LICM and unrolling, which decide what is invariant and in a loop).
  // Host callbacks go first: no other pass knows them. XLA's multiply and division rewrites come
  // next, on the program as JAX wrote it (after a DCE): the division rewrites depend on use counts
  // that simplify and CSE would change (passes/divide.h); the multiplies by reciprocals they make
  // then have their constants reassociated with the others (passes/multiply.h). bf16's
  // excess precision, too, reads the program as XLA sees it: it applies where a convert reads a
  // bf16 op, loops not unrolled (passes/excess_precision.h). All three run once per program
  // (Program::importedFormPassesRun).
  run("host-callbacks", lowerHostCallbacks);
  run("dce", eliminateDeadCode);
  if (!program.importedFormPassesRun) {
    run("divide", rewriteDivides);
    run("multiply", reassociateConstantMultiplies);
    run("excess-precision", keepExcessPrecision);
    program.importedFormPassesRun = true;
  }
  run("simplify", simplify);
  run("cse", eliminateCommonSubexpressions);
  run("licm", hoistLoopInvariants);
  run("unroll", unrollSmallLoops);
  run("simplify", simplify);
  run("cse", eliminateCommonSubexpressions);
  run("dce", eliminateDeadCode);
  run("contract", contractMultiplyAdd);
  run("dce", eliminateDeadCode);
  run("dot-layout", transposeInvariantMatrixVectorProducts);
}

}  // namespace lf::passes
