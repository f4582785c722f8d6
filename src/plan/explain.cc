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
    if (k_.target == Target::Cpu) {
      out_ << "  cpu threads: " << k_.cpuThreads << " (" << k_.cpuThreadsReason << ")\n";
    }
    if (k_.target == Target::Cuda) {
      out_ << "  cuda mode: " << cudaModeName(k_.cuda.mode) << ", " << k_.cuda.blockThreads
           << (k_.cuda.mode == CudaMode::Grid ? " threads per block" : " thread(s)") << ": "
           << k_.cuda.reason << "\n";
    }
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
        if (s.nextOffset >= 0) {
          return "scratch @" + std::to_string(s.offset) + " + idle buffer @" +
                 std::to_string(s.nextOffset);
        }
        return "scratch @" + std::to_string(s.offset);
      case StorageKind::Constant:
        return "constant table";
      case StorageKind::Alias:
        return "alias of " + (s.root->name.empty() ? std::string("%") : s.root->name);
      case StorageKind::Scalar:
        return "scalar local";
      case StorageKind::Local:
        return "registers";
      case StorageKind::Fused:
        return "fused into its consumers";
      case StorageKind::NextState:
        return "idle buffer of " + (s.root->name.empty() ? std::string("%") : s.root->name);
    }
    return "?";
  }

  // A barrier follows every stage that writes memory; the iteration ends with one more when the
  // loop keeps state in memory or any stage in it (nested loops too) writes memory.
  bool writesMemory(const ir::Region& region) const {
    for (const auto& op : region.ops) {
      if (k_.opPlan(op.get()).stage < 0) continue;
      for (const auto& r : op->results) {
        if (k_.storageOf(r.get()).kind != StorageKind::Local) return true;
      }
      if (hasScalarRegions(op->kind)) continue;
      for (const auto& sub : op->regions) {
        if (writesMemory(*sub)) return true;
      }
    }
    return false;
  }

  int barriersPerIteration(const ir::Op& loop) const {
    int n = 0;
    bool stateInMemory = false;
    for (StateUpdate u : k_.opPlan(&loop).updates) {
      if (u != StateUpdate::Register && u != StateUpdate::Unchanged) stateInMemory = true;
    }
    for (const auto& region : loop.regions) {
      for (const auto& op : region->ops) {
        if (k_.opPlan(op.get()).stage < 0) continue;
        for (const auto& r : op->results) {
          if (k_.storageOf(r.get()).kind != StorageKind::Local) {
            ++n;
            break;
          }
        }
      }
    }
    if (stateInMemory || writesMemory(*loop.regions[1])) ++n;
    return n;
  }

  void region(const ir::Region& r, int depth) {
    std::string indent(2 * depth, ' ');
    for (const auto& op : r.ops) {
      const OpPlan& p = k_.opPlan(op.get());
      out_ << indent;
      if (p.stage >= 0) {
        out_ << "stage " << p.stage << ": ";
      } else if (op->kind == ir::OpKind::Constant) {
        out_ << "constant: ";
      } else if (k_.storage.at(op->result()).kind == StorageKind::Fused) {
        out_ << "fused: ";
      } else {
        out_ << "(no code): ";
      }
      out_ << op->name << " (" << ir::opKindName(op->kind) << ")";
      for (const auto& res : op->results) {
        out_ << " -> " << valueLabel(res.get()) << " [" << storageText(res.get()) << "]";
      }
      if (p.inPlace) out_ << " (in place)";
      if (!op->hoistedFrom.empty()) out_ << " (hoisted out of " << op->hoistedFrom << ")";
      out_ << "\n";
      if (op->kind == ir::OpKind::While) {
        // Counted per stage; stages that share a loop (loop merging, in the emitter's part of
        // the explanation) need fewer.
        out_ << indent << "  barriers per iteration: " << barriersPerIteration(*op)
             << " (one per stage, before loop merging)\n";
        for (size_t k = 0; k < p.updates.size(); ++k) {
          out_ << indent << "  state " << k << ": " << stateUpdateName(p.updates[k]) << "\n";
        }
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

namespace {

// Whether the op runs once per iteration of some loop.
bool insideLoop(const ir::Op& op) {
  for (const ir::Region* r = op.parent; r != nullptr && r->parent != nullptr;
       r = r->parent->parent) {
    if (r->parent->kind == ir::OpKind::While) return true;
  }
  return false;
}

void collectCopies(const Kernel& k, const ir::Region& region, std::vector<std::string>& out) {
  for (const auto& op : region.ops) {
    const OpPlan& p = k.opPlan(op.get());
    if (op->kind == ir::OpKind::While) {
      for (size_t s = 0; s < p.updates.size(); ++s) {
        if (p.updates[s] == StateUpdate::Copied) {
          out.push_back("loop " + op->name + ": state " + std::to_string(s) + " copied");
        }
      }
    }
    if (op->kind == ir::OpKind::DynamicUpdateSlice && p.stage >= 0 && !p.inPlace &&
        insideLoop(*op)) {
      out.push_back(op->name + ": dynamic-update-slice copies its operand");
    }
    if (hasScalarRegions(op->kind)) continue;
    for (const auto& sub : op->regions) collectCopies(k, *sub, out);
  }
}

}  // namespace

std::vector<std::string> Kernel::perIterationCopies() const {
  std::vector<std::string> out;
  collectCopies(*this, program->body, out);
  return out;
}

}  // namespace lf::plan
