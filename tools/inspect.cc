// `loopfuse inspect FILE.hlo`: what is in an HLO program and whether loopfuse can take it. Works
// on the syntax tree, so that it still describes a program the importer rejects.
#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "cli_common.h"
#include "commands.h"
#include "frontend/import.h"
#include "hlo/attributes.h"

namespace lf::tools {

namespace {

struct LoopEntry {
  const hlo::Instruction* instruction;
  std::string computation;
  int depth;               // 0 for a loop at the top level of the entry
  std::string parentLoop;  // empty at depth 0
};

// Every computation an instruction calls, by attribute: while (condition, body), call / map /
// reduce / sort / scatter (to_apply, calls), conditional (branches or true/false computations).
std::vector<std::string> calledComputations(const hlo::Instruction& instruction) {
  std::vector<std::string> names;
  for (const hlo::Attribute& a : instruction.attributes) {
    if (a.name == "condition" || a.name == "body" || a.name == "to_apply" || a.name == "calls" ||
        a.name == "true_computation" || a.name == "false_computation")
      names.push_back(hlo::readComputationName(a));
    else if (a.name == "branch_computations")
      for (auto& n : hlo::readComputationList(a)) names.push_back(n);
  }
  return names;
}

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

// Walks the call graph from the entry, recording each while loop with the loops around it.
class LoopCollector {
 public:
  explicit LoopCollector(const hlo::Module& module) : module_(module) {}

  std::vector<LoopEntry> collect() {
    visit(module_.entry(), {});
    return loops_;
  }

 private:
  void visit(const hlo::Computation& computation, const std::vector<std::string>& enclosing) {
    // HLO forbids recursion; the guard keeps a malformed module from recursing forever.
    if (!active_.insert(computation.name).second) return;
    for (const hlo::Instruction& instruction : computation.instructions) {
      std::vector<std::string> inner = enclosing;
      if (instruction.opcode == "while") {
        loops_.push_back({&instruction, computation.name, static_cast<int>(enclosing.size()),
                          enclosing.empty() ? "" : enclosing.back()});
        inner.push_back(instruction.name);
      }
      for (const std::string& callee : calledComputations(instruction))
        if (const hlo::Computation* c = module_.find(callee)) visit(*c, inner);
    }
    active_.erase(computation.name);
  }

  const hlo::Module& module_;
  std::set<std::string> active_;
  std::vector<LoopEntry> loops_;
};

void printSignature(const hlo::Module& module, std::ostream& out) {
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

void printLoops(const hlo::Module& module, const std::map<std::string, int64_t>& tripCounts,
                std::ostream& out) {
  std::vector<LoopEntry> loops = LoopCollector(module).collect();
  out << "loops: " << loops.size() << "\n";
  for (const LoopEntry& loop : loops) {
    out << "  " << std::string(2 * loop.depth, ' ') << loop.instruction->name << " (line "
        << loop.instruction->loc.line << ", in " << loop.computation << "): depth " << loop.depth;
    if (!loop.parentLoop.empty()) out << ", inside " << loop.parentLoop;
    std::optional<int64_t> trips = recordedTripCount(*loop.instruction);
    if (auto it = tripCounts.find(loop.instruction->name); it != tripCounts.end())
      trips = it->second;
    out << ", trip count " << (trips ? std::to_string(*trips) : "unknown") << "\n";
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

  std::map<std::string, int64_t> tripCounts;
  std::vector<Diagnostic> unsupported;
  try {
    ir::Program program = frontend::importModule(loaded.module);
    tripCounts = constantTripCounts(program);
  } catch (const CompileError& e) {
    unsupported = e.diagnostics();
  }
  printLoops(loaded.module, tripCounts, out);
  if (unsupported.empty()) {
    out << "unsupported: none\n";
    return kExitOk;
  }
  out << "unsupported: " << unsupported.size() << " (listed on stderr)\n";
  std::cerr << loaded.file->format(unsupported);
  return kExitUnsupported;
}

}  // namespace lf::tools
