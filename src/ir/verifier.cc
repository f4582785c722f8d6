// ir::verify: the per-op type rules (op_rules.h) over every op, plus the structure the rules do
// not see: back-pointers, dominance (a use follows its definition in the same or an enclosing
// region) and region scoping (no use of a value defined inside another op's region).
#include <unordered_set>

#include "ir/op_rules.h"

namespace lf::ir {
namespace {

class Verifier {
 public:
  std::vector<Diagnostic> run(const Program& p) {
    if (p.body.parent != nullptr) report(nullptr, "the program body must have no parent op");
    if (p.outputNames.size() != p.body.yields.size()) {
      report(nullptr, "program has " + std::to_string(p.body.yields.size()) + " outputs but " +
                          std::to_string(p.outputNames.size()) + " output names");
    }
    region(p.body, nullptr);
    return std::move(diags_);
  }

 private:
  void report(const Op* op, const std::string& message) {
    if (op == nullptr) {
      diags_.push_back({SourceLoc{}, message});
      return;
    }
    std::string where = std::string(opKindName(op->kind));
    if (!op->name.empty()) where += " '" + op->name + "'";
    diags_.push_back({op->loc, where + ": " + message});
  }

  void use(const Op* user, const Value* v, const char* what) {
    if (v == nullptr) {
      report(user, std::string("null ") + what);
    } else if (!visible_.count(v)) {
      std::string name = v->name.empty() ? std::string("a value") : "'" + v->name + "'";
      report(user, std::string(what) + " " + name +
                       " is not defined before this use in an enclosing scope");
    }
  }

  void region(const Region& r, const Op* owner) {
    std::vector<const Value*> scope;  // what this region adds to visible_, removed on exit
    for (size_t i = 0; i < r.args.size(); ++i) {
      const Value* a = r.args[i].get();
      if (a->argOf != &r || a->index != static_cast<int>(i) || a->def != nullptr) {
        report(owner, "region argument " + std::to_string(i) + " has wrong back-pointers");
      }
      visible_.insert(a);
      scope.push_back(a);
    }
    for (const auto& op : r.ops) {
      if (op->parent != &r) report(op.get(), "op's parent is not its region");
      for (const Value* v : op->operands) use(op.get(), v, "operand");
      if (std::string e = checkOp(*op); !e.empty()) report(op.get(), e);
      for (size_t i = 0; i < op->regions.size(); ++i) {
        if (op->regions[i]->parent != op.get()) report(op.get(), "region's parent is not its op");
        region(*op->regions[i], op.get());
      }
      for (size_t i = 0; i < op->results.size(); ++i) {
        const Value* v = op->results[i].get();
        if (v->def != op.get() || v->index != static_cast<int>(i) || v->argOf != nullptr) {
          report(op.get(), "result " + std::to_string(i) + " has wrong back-pointers");
        }
        visible_.insert(v);
        scope.push_back(v);
      }
    }
    for (const Value* y : r.yields) {
      if (owner == nullptr && y == nullptr) {
        report(nullptr, "program yields a null value");
      } else if (owner == nullptr && !visible_.count(y)) {
        report(nullptr, "program output '" + y->name + "' is not defined in the program body");
      } else if (owner != nullptr) {
        use(owner, y, "region yield");
      }
    }
    for (const Value* v : scope) visible_.erase(v);
  }

  std::unordered_set<const Value*> visible_;
  std::vector<Diagnostic> diags_;
};

}  // namespace

std::vector<Diagnostic> verify(const Program& program) { return Verifier().run(program); }

}  // namespace lf::ir
