// The group program: the original program with G chains along the batch dimension of every
// batched value instead of all of them (see batch.h).
#include <stdexcept>

#include "batch/batch.h"
#include "batch/rules.h"
#include "ir/clone.h"

namespace lf::batch {
namespace {

using ir::Op;
using ir::OpKind;
using ir::Region;
using ir::Type;
using ir::Value;

class Builder {
 public:
  Builder(const Mapping& m, int64_t group, Value* first) : m_(m), group_(group), first_(first) {}

  void bindArg(const Value* from, Value* to) { map_[from] = to; }

  void region(const Region& from, Region& to) {
    for (const auto& op : from.ops) this->op(*op, to);
  }

  // The value a group reads for `v` when the reader reads it at batch dimension `d`: its own
  // rows; a shared value read at `d` is sliced at the group's chains.
  Value* read(const Value* v, int d, Region& to) {
    Value* mapped = map_.at(v);
    if (d < 0 || m_.dims.at(v) >= 0) return mapped;
    return sliceAtGroup(mapped, d, to, v->name);
  }

 private:
  int dim(const Value* v) const { return m_.dims.at(v); }

  // dynamic-slice(v, starts = the group's first chain at d and 0 elsewhere, G rows at d): index
  // arithmetic only, which the plan fuses into the reader.
  Value* sliceAtGroup(Value* v, int d, Region& to, const std::string& name) {
    Value* zero = to.append(OpKind::Constant, {}, {Type{DType::S32, {}}},
                            ir::ConstantAttrs{{0, 0, 0, 0}}, {}, "group_slice_zero")
                      ->result();
    std::vector<Value*> operands{v};
    for (int i = 0; i < v->type.rank(); ++i) operands.push_back(i == d ? first_ : zero);
    Type type = withGroup(v->type, d, group_);
    return to
        .append(OpKind::DynamicSlice, operands, {type}, ir::DynamicSliceAttrs{type.dims}, {},
                name + "_group")
        ->result();
  }

  void op(const Op& from, Region& to) {
    if (m_.batchSources.count(&from)) {
      // The whole iota or constant (no work: index arithmetic, a table), sliced at the group's
      // chains.
      ir::ValueMap scratch;
      std::unique_ptr<Op> copy = ir::cloneOp(from, scratch, &to);
      Value* whole = copy->result();
      to.ops.push_back(std::move(copy));
      map_[from.result()] = sliceAtGroup(whole, dim(from.result()), to, from.name);
      return;
    }
    if (from.kind == OpKind::While) return loop(from, to);
    if (from.kind == OpKind::Conditional) return conditional(from, to);
    std::vector<int> in;
    for (const Value* v : from.operands) in.push_back(dim(v));
    OpRule rule =
        m_.groupReductions.count(&from) ? groupReductionRule(in) : ruleFor(from, in, m_.chains);
    if (!rule.error.empty())
      throw std::logic_error("batch rule failed after analysis: " + rule.error);
    std::vector<Value*> operands;
    for (size_t i = 0; i < from.operands.size(); ++i) {
      operands.push_back(read(from.operands[i], rule.operands[i], to));
    }
    // Scalar regions (reducer, comparator, combiner) are copied as they are.
    ir::ValueMap scratch;
    std::unique_ptr<Op> copy = ir::cloneOp(from, scratch, &to);
    copy->operands = std::move(operands);
    copy->attrs = groupAttrs(from, rule, group_);
    for (size_t i = 0; i < from.results.size(); ++i) {
      copy->results[i]->type = withGroup(from.results[i]->type, rule.result, group_);
      map_[from.result(static_cast<int>(i))] = copy->result(static_cast<int>(i));
    }
    to.ops.push_back(std::move(copy));
  }

  // A loop's regions take its state per chain; a shared yield of batched state is sliced.
  void loop(const Op& from, Region& to) {
    std::vector<int> state;
    std::vector<Value*> operands;
    std::vector<Type> types;
    for (size_t k = 0; k < from.results.size(); ++k) {
      state.push_back(dim(from.result(static_cast<int>(k))));
      operands.push_back(read(from.operands[k], state[k], to));
      types.push_back(withGroup(from.results[k]->type, state[k], group_));
    }
    Op* copy = to.append(OpKind::While, operands, types, from.attrs, from.loc, from.name);
    copy->hoistedFrom = from.hoistedFrom;
    for (const auto& r : from.regions) {
      Region* sub = copy->addRegion();
      for (size_t k = 0; k < r->args.size(); ++k) {
        map_[r->args[k].get()] = sub->addArg(types[k], r->args[k]->name);
      }
      region(*r, *sub);
      bool body = sub != copy->regions.front().get();
      for (size_t k = 0; k < r->yields.size(); ++k) {
        sub->yields.push_back(read(r->yields[k], body ? state[k] : -1, *sub));
      }
    }
    setResults(from, copy);
  }

  void conditional(const Op& from, Region& to) {
    std::vector<Value*> operands{map_.at(from.operands[0])};
    for (size_t i = 1; i < from.operands.size(); ++i) operands.push_back(map_.at(from.operands[i]));
    std::vector<int> results;
    std::vector<Type> types;
    for (size_t k = 0; k < from.results.size(); ++k) {
      results.push_back(dim(from.result(static_cast<int>(k))));
      types.push_back(withGroup(from.results[k]->type, results[k], group_));
    }
    Op* copy = to.append(OpKind::Conditional, operands, types, from.attrs, from.loc, from.name);
    copy->hoistedFrom = from.hoistedFrom;
    for (const auto& r : from.regions) {
      Region* sub = copy->addRegion();
      for (const auto& arg : r->args) {
        map_[arg.get()] = sub->addArg(withGroup(arg->type, dim(arg.get()), group_), arg->name);
      }
      region(*r, *sub);
      for (size_t k = 0; k < r->yields.size(); ++k) {
        sub->yields.push_back(read(r->yields[k], results[k], *sub));
      }
    }
    setResults(from, copy);
  }

  void setResults(const Op& from, Op* copy) {
    for (size_t k = 0; k < from.results.size(); ++k) {
      copy->results[k]->name = from.results[k]->name;
      map_[from.result(static_cast<int>(k))] = copy->result(static_cast<int>(k));
    }
  }

  const Mapping& m_;
  int64_t group_;
  Value* first_;
  std::unordered_map<const Value*, Value*> map_;
};

}  // namespace

std::unique_ptr<ir::Program> groupProgram(const ir::Program& program, const Mapping& mapping,
                                          int64_t group) {
  if (!mapping.mapped()) throw std::logic_error("groupProgram of an unmapped program");
  if (group < 1 || mapping.chains % group != 0) {
    throw std::logic_error("a group of " + std::to_string(group) + " chains does not divide " +
                           std::to_string(mapping.chains));
  }
  auto out = std::make_unique<ir::Program>();
  out->name = program.name;
  out->outputNames = program.outputNames;
  out->hostCallbacks = program.hostCallbacks;
  out->importedFormPassesRun = program.importedFormPassesRun;
  std::vector<Value*> args;
  for (size_t i = 0; i < program.body.args.size(); ++i) {
    const Value* arg = program.body.args[i].get();
    args.push_back(out->body.addArg(withGroup(arg->type, mapping.inputDims[i], group), arg->name));
  }
  Value* first = out->body.addArg(Type{DType::S32, {}}, "first_chain");
  Builder b(mapping, group, first);
  for (size_t i = 0; i < args.size(); ++i) b.bindArg(program.body.args[i].get(), args[i]);
  b.region(program.body, out->body);
  for (size_t k = 0; k < program.body.yields.size(); ++k) {
    // A shared output stays whole (the first group writes it).
    out->body.yields.push_back(b.read(program.body.yields[k], -1, out->body));
  }
  return out;
}

}  // namespace lf::batch
