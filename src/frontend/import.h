// HLO syntax tree to program IR: one mapping per HLO opcode, calls inlined, tuples flattened.
#pragma once

#include "hlo/ast.h"
#include "ir/ir.h"

namespace lf::frontend {

// Imports the entry computation. Throws lf::CompileError listing EVERY instruction that cannot be
// imported (unsupported opcode or dtype, bad shapes, bad attributes), each at its location and
// naming the instruction, so that the user sees them all at once.
ir::Program importModule(const hlo::Module& module);

// The HLO opcodes (and custom-call targets, as "custom-call:<target>") the importer supports; the
// source of docs/SUPPORTED_OPS.md.
const std::vector<std::string>& supportedOpcodes();
// The opcodes that take complex (c64 / c128) operands or results.
const std::vector<std::string>& complexOpcodes();

}  // namespace lf::frontend
