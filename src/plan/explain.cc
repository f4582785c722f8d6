// Kernel::explain(): the plan as text, for `loopfuse explain` and for reading generated code.
#include <sstream>

#include "plan/plan.h"

namespace lf::plan {
namespace {

std::string valueLabel(const ir::Value* v) {
  return (v->name.empty() ? std::string("%") : v->name) + " " + v->type.toString();
}

class Explainer {
 public:
  explicit Explainer(const Kernel& k) : k_(k) {}

  std::string run() {
    const ir::Program& p = *k_.program;
    out_ << "kernel " << p.name << " (target " << targetName(k_.target) << "): " << k_.stageCount
         << " stages, scratch " << k_.scratchBytes << " bytes\n";
    for (const auto& arg : p.body.args) {
      out_ << "  input " << valueLabel(arg.get()) << ": " << storageText(arg.get()) << "\n";
    }
    region(p.body, 1);
    return out_.str();
  }

 private:
  std::string storageText(const ir::Value* v) const {
    const Storage& s = k_.storage.at(v);
    switch (s.kind) {
      case StorageKind::Input:
        return "input " + std::to_string(s.input);
      case StorageKind::Scratch:
        return "scratch @" + std::to_string(s.offset);
      case StorageKind::Constant:
        return "constant table";
      case StorageKind::Alias:
        return "alias of " + (s.root->name.empty() ? std::string("%") : s.root->name);
      case StorageKind::Scalar:
        return "scalar local";
    }
    return "?";
  }

  // One barrier follows every stage; a loop adds one for the state update and one more when some
  // state is copied through a temporary.
  int barriersPerIteration(const ir::Op& loop) const {
    int n = 1;
    for (int64_t t : k_.opPlan(&loop).temps) {
      if (t >= 0) {
        n = 2;
        break;
      }
    }
    for (const auto& region : loop.regions) {
      for (const auto& op : region->ops) {
        if (k_.opPlan(op.get()).stage >= 0) ++n;
      }
    }
    return n;
  }

  void region(const ir::Region& r, int depth) {
    std::string indent(2 * depth, ' ');
    for (const auto& op : r.ops) {
      const OpPlan& p = k_.opPlan(op.get());
      out_ << indent;
      if (p.stage >= 0) {
        out_ << "stage " << p.stage << ": ";
      } else {
        out_ << "(no code): ";
      }
      out_ << op->name << " (" << ir::opKindName(op->kind) << ")";
      for (const auto& res : op->results) {
        out_ << " -> " << valueLabel(res.get()) << " [" << storageText(res.get()) << "]";
      }
      out_ << "\n";
      if (op->kind == ir::OpKind::While) {
        out_ << indent << "  barriers per iteration: " << barriersPerIteration(*op) << "\n";
      }
      if (op->kind == ir::OpKind::While || op->kind == ir::OpKind::Conditional) {
        for (const auto& sub : op->regions) {
          for (const auto& arg : sub->args) {
            out_ << indent << "  arg " << valueLabel(arg.get()) << " [" << storageText(arg.get())
                 << "]\n";
          }
          region(*sub, depth + 1);
        }
      }
    }
  }

  const Kernel& k_;
  std::ostringstream out_;
};

}  // namespace

std::string Kernel::explain() const { return Explainer(*this).run(); }

}  // namespace lf::plan
