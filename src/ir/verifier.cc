// Placeholder until the full verifier lands: accepts every program.
#include "ir/ir.h"

namespace lf::ir {

std::vector<Diagnostic> verify(const Program&) { return {}; }

}  // namespace lf::ir
