// The checks that need no op semantics: names are unique, operands name instructions of the same
// computation (in any order, as XLA allows), operands form no cycle, and attributes that name
// computations (to_apply=, body=, branch_computations={...}, ...) name existing ones.
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hlo/parser.h"

namespace lf::hlo {

namespace {

std::string locText(SourceLoc loc) {
  return std::to_string(loc.line) + ":" + std::to_string(loc.col);
}

// Iterative depth-first search, so that a long chain of instructions cannot overflow the stack.
void checkAcyclic(const Computation& comp, const std::vector<std::vector<int>>& uses) {
  enum Color : char { kWhite, kGray, kBlack };
  std::vector<Color> color(comp.instructions.size(), kWhite);
  std::vector<std::pair<int, size_t>> stack;  // (instruction, next operand to visit)
  for (size_t start = 0; start < comp.instructions.size(); ++start) {
    if (color[start] != kWhite) continue;
    stack.push_back({static_cast<int>(start), 0});
    color[start] = kGray;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == uses[node].size()) {
        color[node] = kBlack;
        stack.pop_back();
        continue;
      }
      int used = uses[node][next++];
      if (color[used] == kGray) {
        const Instruction& user = comp.instructions[node];
        const std::string& usedName = comp.instructions[used].name;
        throw CompileError(
            user.loc, used == node ? "cyclic operand: instruction '" + user.name + "' uses itself"
                                   : "cyclic operand: instruction '" + user.name + "' uses '" +
                                         usedName + "', which depends on '" + user.name + "'");
      }
      if (color[used] == kWhite) {
        color[used] = kGray;
        stack.push_back({used, 0});
      }
    }
  }
}

// The location of the character `offset` bytes into an attribute's value.
SourceLoc locInValue(const Attribute& attr, size_t offset) {
  SourceLoc loc = attr.valueLoc;
  for (size_t i = 0; i < offset && i < attr.value.size(); ++i) {
    if (attr.value[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

struct CalleeRef {
  std::string name;
  SourceLoc loc;
};

// `to_apply=%f` or `branch_computations={%a, b}`: the names, without '%'.
std::vector<CalleeRef> calleeNames(const Attribute& attr) {
  std::vector<CalleeRef> refs;
  const std::string& v = attr.value;
  size_t begin = 0, end = v.size();
  if (!v.empty() && v.front() == '{') {
    begin = 1;
    if (v.back() == '}') end = v.size() - 1;
  }
  size_t i = begin;
  while (i < end) {
    while (i < end && (v[i] == ' ' || v[i] == ',' || v[i] == '\n' || v[i] == '\t')) ++i;
    size_t start = i;
    while (i < end && v[i] != ',' && v[i] != ' ' && v[i] != '\n' && v[i] != '\t') ++i;
    if (i == start) break;
    size_t nameStart = v[start] == '%' ? start + 1 : start;
    refs.push_back({v.substr(nameStart, i - nameStart), locInValue(attr, start)});
  }
  return refs;
}

bool namesComputation(const std::string& attrName) {
  for (const char* n :
       {"to_apply", "condition", "body", "calls", "true_computation", "false_computation",
        "branch_computations", "called_computations", "select", "scatter"})
    if (attrName == n) return true;
  return false;
}

}  // namespace

void checkComputation(const Computation& comp) {
  std::unordered_map<std::string_view, int> index;
  index.reserve(comp.instructions.size());
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    const Instruction& instr = comp.instructions[i];
    auto [it, inserted] = index.emplace(instr.name, static_cast<int>(i));
    if (!inserted)
      throw CompileError(instr.loc, "duplicate instruction name '" + instr.name +
                                        "' (first defined at " +
                                        locText(comp.instructions[it->second].loc) + ")");
  }
  std::vector<std::vector<int>> uses(comp.instructions.size());
  for (size_t i = 0; i < comp.instructions.size(); ++i) {
    for (const Operand& op : comp.instructions[i].operands) {
      auto it = index.find(op.name);
      if (it == index.end())
        throw CompileError(op.loc, "undefined operand '" + op.name + "': no instruction of that " +
                                       "name in computation '" + comp.name + "'");
      uses[i].push_back(it->second);
    }
  }
  checkAcyclic(comp, uses);
}

void checkModule(const Module& module) {
  std::unordered_map<std::string_view, const Computation*> byName;
  for (const Computation& comp : module.computations) {
    auto [it, inserted] = byName.emplace(comp.name, &comp);
    if (!inserted)
      throw CompileError(comp.loc, "duplicate computation name '" + comp.name +
                                       "' (first defined at " + locText(it->second->loc) + ")");
  }
  for (const Computation& comp : module.computations)
    for (const Instruction& instr : comp.instructions)
      for (const Attribute& attr : instr.attributes) {
        if (!namesComputation(attr.name)) continue;
        for (const CalleeRef& ref : calleeNames(attr))
          if (!byName.count(ref.name))
            throw CompileError(ref.loc, "missing computation '" + ref.name + "' named by " +
                                            attr.name + "= of instruction '" + instr.name + "'");
      }
}

}  // namespace lf::hlo
