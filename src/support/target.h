// The code generation targets. Lives below every stage because the planner already decides
// per target (execution mode, storage) before the emitter runs.
#pragma once

namespace lf {

enum class Target { Cpu, Cuda };

inline const char* targetName(Target t) { return t == Target::Cpu ? "cpu" : "cuda"; }

}  // namespace lf
