// `loopfuse inspect FILE.hlo`: what is in an HLO program and whether loopfuse can take it. Works
// on the syntax tree, so that it still describes a program the importer rejects.
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include "cli_common.h"
#include "commands.h"
#include "frontend/import.h"
#include "frontend/loop_info.h"

namespace lf::tools {

namespace {

// The trip count XLA wrote down for a while loop (backend_config "known_trip_count"), if any.
std::optional<int64_t> recordedTripCount(const hlo::Instruction& instruction) {
  const hlo::Attribute* config = instruction.attr("backend_config");
  if (!config) return std::nullopt;
  const std::string key = "\"known_trip_count\":{\"n\":\"";
  size_t at = config->value.find(key);
  if (at == std::string::npos) return std::nullopt;
  at += key.size();
  size_t end = config->value.find('"', at);
  try {
    return std::stoll(config->value.substr(at, end - at));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void printSignature(const hlo::Module& module, std::ostream& out) {
  if (module.entryIndex < 0) return;  // no computation at all
  const hlo::Computation& entry = module.entry();
  out << "entry: " << entry.name << "\n";
  std::vector<const hlo::Instruction*> parameters;
  for (const hlo::Instruction& i : entry.instructions)
    if (i.opcode == "parameter") parameters.push_back(&i);
  std::sort(parameters.begin(), parameters.end(),
            [](auto* a, auto* b) { return a->parameterNumber < b->parameterNumber; });
  for (const hlo::Instruction* p : parameters)
    out << "  parameter " << p->parameterNumber << ": " << p->name << " " << p->shape.toString()
        << "\n";
  const hlo::Shape& result = entry.root().shape;
  if (!result.isTuple) {
    out << "  output 0: " << result.toString() << "\n";
    return;
  }
  for (size_t i = 0; i < result.tupleElements.size(); ++i)
    out << "  output " << i << ": " << result.tupleElements[i].toString() << "\n";
}

void printComputations(const hlo::Module& module, std::ostream& out) {
  out << "computations: " << module.computations.size() << "\n";
  for (const hlo::Computation& c : module.computations)
    out << "  " << c.name << (c.isEntry ? " (entry)" : "") << ": " << c.instructions.size()
        << " instructions\n";
}

// Opcodes by count, most frequent first; ties alphabetically.
void printOpHistogram(const hlo::Module& module, std::ostream& out) {
  std::map<std::string, int> counts;
  for (const hlo::Computation& c : module.computations)
    for (const hlo::Instruction& i : c.instructions) ++counts[i.opcode];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  out << "ops:\n";
  for (const auto& [opcode, count] : sorted) out << "  " << opcode << ": " << count << "\n";
}

// Each while loop, indented by nesting depth, with its trip count when it is a constant (found by
// the frontend's loop analysis, or recorded by XLA in an optimized dump's backend_config).
void printLoops(const hlo::Module& module, std::ostream& out) {
  std::vector<frontend::LoopInfo> loops = frontend::findLoops(module);
  out << "loops: " << loops.size() << "\n";
  for (const frontend::LoopInfo& loop : loops) {
    std::optional<int64_t> trips = loop.tripCount;
    if (const hlo::Computation* c = module.find(loop.computation); c && !trips)
      if (const hlo::Instruction* i = c->find(loop.instruction)) trips = recordedTripCount(*i);
    out << "  " << std::string(2 * loop.depth, ' ') << loop.instruction << " (line "
        << loop.loc.line << ", in " << loop.computation << "): depth " << loop.depth
        << ", trip count " << (trips ? std::to_string(*trips) : "unknown") << "\n";
  }
}

}  // namespace

int inspectCommand(const std::string& path) {
  LoadedHlo loaded = loadHlo(path);
  std::ostream& out = std::cout;
  out << "module: " << loaded.module.name << "\n";
  printSignature(loaded.module, out);
  printComputations(loaded.module, out);
  printOpHistogram(loaded.module, out);

  printLoops(loaded.module, out);
  std::vector<Diagnostic> unsupported;
  try {
    frontend::importModule(loaded.module);
  } catch (const CompileError& e) {
    unsupported = e.diagnostics();
  }
  if (unsupported.empty()) {
    out << "unsupported: none\n";
    return kExitOk;
  }
  out << "unsupported: " << unsupported.size() << " (listed on stderr)\n";
  std::cerr << loaded.file->format(unsupported);
  return kExitUnsupported;
}

}  // namespace lf::tools
