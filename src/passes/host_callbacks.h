// Host callbacks become the program's host-callback status.
#pragma once

#include "ir/ir.h"

namespace lf::passes {

// Replaces every host-callback op (only inside conditional branches: the frontend rejects the
// others) by zeros of its result types, records it in program.hostCallbacks (in program order),
// and adds the host-callback status as the program's last output: 0, or the 1-based site of the
// first callback the run reached. Reaching one ends the run early: each enclosing conditional
// gains a status result (0 from the branches that reach none), and each enclosing while a status
// state that its condition requires to be 0, so no loop runs on with the zeros. The caller then
// runs the call with XLA, which runs the Python callback (lf.jit does; `loopfuse run` reports it).
// A program without host callbacks is unchanged.
void lowerHostCallbacks(ir::Program& program);

}  // namespace lf::passes
