// The stable text form of a program: values renumbered %0, %1, ... in the order they appear, every
// attribute printed, constants printed in full up to a small size and as a count plus a content
// hash beyond it. Golden tests compare this text, so it changes only on purpose.
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "ir/ir.h"
#include "ir/scalar_bits.h"

namespace lf::ir {
namespace {

constexpr int64_t kMaxPrintedConstantElements = 16;

std::string joinInts(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "}";
}

const char* directionName(CompareDirection d) {
  switch (d) {
    case CompareDirection::EQ:
      return "EQ";
    case CompareDirection::NE:
      return "NE";
    case CompareDirection::LT:
      return "LT";
    case CompareDirection::LE:
      return "LE";
    case CompareDirection::GT:
      return "GT";
    case CompareDirection::GE:
      return "GE";
  }
  return "?";
}

const char* compareTypeName(CompareType t) {
  switch (t) {
    case CompareType::Float:
      return "FLOAT";
    case CompareType::TotalOrder:
      return "TOTALORDER";
    case CompareType::Signed:
      return "SIGNED";
    case CompareType::Unsigned:
      return "UNSIGNED";
  }
  return "?";
}

// FNV-1a: a dependency-free content hash for elided constants (stable across platforms).
uint64_t fnv1a(const std::vector<uint8_t>& bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes) {
    h ^= b;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  char buf[20];
  auto r = std::to_chars(buf, buf + sizeof buf, v, 16);
  return std::string(buf, r.ptr);
}

std::string formatConstant(const Type& type, const std::vector<uint8_t>& bytes) {
  int64_t n = type.numElements();
  int width = byteSize(type.dtype);
  if (n > kMaxPrintedConstantElements || static_cast<int64_t>(bytes.size()) != n * width) {
    return "<" + std::to_string(n) + " elements, " + std::to_string(bytes.size()) + " bytes, fnv " +
           hex(fnv1a(bytes)) + ">";
  }
  std::string s;
  if (type.rank() > 0) s += '{';
  for (int64_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += formatScalar(type.dtype, bytes.data() + i * width);
  }
  if (type.rank() > 0) s += '}';
  return s;
}

std::string formatAttrs(const Attrs& attrs) {
  std::ostringstream os;
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, IotaAttrs>) {
          os << " dimension=" << a.dimension;
        } else if constexpr (std::is_same_v<T, ReducePrecisionAttrs>) {
          os << " exponent_bits=" << a.exponentBits << " mantissa_bits=" << a.mantissaBits;
        } else if constexpr (std::is_same_v<T, CompareAttrs>) {
          os << " direction=" << directionName(a.direction) << " type=" << compareTypeName(a.type);
        } else if constexpr (std::is_same_v<T, BroadcastAttrs>) {
          os << " dimensions=" << joinInts(a.dimensions);
        } else if constexpr (std::is_same_v<T, TransposeAttrs>) {
          os << " permutation=" << joinInts(a.permutation);
        } else if constexpr (std::is_same_v<T, SliceAttrs>) {
          os << " slice={";
          for (size_t i = 0; i < a.starts.size(); ++i) {
            if (i) os << ", ";
            os << '[' << a.starts[i] << ':' << (i < a.limits.size() ? a.limits[i] : -1) << ':'
               << (i < a.strides.size() ? a.strides[i] : -1) << ']';
          }
          os << '}';
        } else if constexpr (std::is_same_v<T, DynamicSliceAttrs>) {
          os << " sizes=" << joinInts(a.sizes);
        } else if constexpr (std::is_same_v<T, ConcatenateAttrs>) {
          os << " dimension=" << a.dimension;
        } else if constexpr (std::is_same_v<T, PadAttrs>) {
          os << " low=" << joinInts(a.low) << " high=" << joinInts(a.high)
             << " interior=" << joinInts(a.interior);
        } else if constexpr (std::is_same_v<T, ReverseAttrs>) {
          os << " dimensions=" << joinInts(a.dimensions);
        } else if constexpr (std::is_same_v<T, DotAttrs>) {
          os << " lhs_batch=" << joinInts(a.lhsBatch) << " rhs_batch=" << joinInts(a.rhsBatch)
             << " lhs_contracting=" << joinInts(a.lhsContracting)
             << " rhs_contracting=" << joinInts(a.rhsContracting);
        } else if constexpr (std::is_same_v<T, ReduceAttrs>) {
          os << " dimensions=" << joinInts(a.dimensions);
        } else if constexpr (std::is_same_v<T, ReduceWindowAttrs>) {
          os << " sizes=" << joinInts(a.sizes) << " strides=" << joinInts(a.strides)
             << " pad_low=" << joinInts(a.padLow) << " pad_high=" << joinInts(a.padHigh)
             << " base_dilation=" << joinInts(a.baseDilation)
             << " window_dilation=" << joinInts(a.windowDilation);
        } else if constexpr (std::is_same_v<T, OrmqrAttrs>) {
          os << (a.left ? " left" : " right") << (a.transpose ? " transpose" : "");
        } else if constexpr (std::is_same_v<T, SelectAndScatterAttrs>) {
          os << " sizes=" << joinInts(a.sizes) << " strides=" << joinInts(a.strides)
             << " pad_low=" << joinInts(a.padLow) << " pad_high=" << joinInts(a.padHigh);
        } else if constexpr (std::is_same_v<T, GatherAttrs>) {
          os << " offset_dims=" << joinInts(a.offsetDims)
             << " collapsed_slice_dims=" << joinInts(a.collapsedSliceDims)
             << " start_index_map=" << joinInts(a.startIndexMap)
             << " operand_batching_dims=" << joinInts(a.operandBatchingDims)
             << " start_indices_batching_dims=" << joinInts(a.startIndicesBatchingDims)
             << " index_vector_dim=" << a.indexVectorDim
             << " slice_sizes=" << joinInts(a.sliceSizes)
             << " indices_are_sorted=" << (a.indicesAreSorted ? "true" : "false");
        } else if constexpr (std::is_same_v<T, ScatterAttrs>) {
          os << " update_window_dims=" << joinInts(a.updateWindowDims)
             << " inserted_window_dims=" << joinInts(a.insertedWindowDims)
             << " scatter_dims_to_operand_dims=" << joinInts(a.scatterDimsToOperandDims)
             << " input_batching_dims=" << joinInts(a.inputBatchingDims)
             << " scatter_indices_batching_dims=" << joinInts(a.scatterIndicesBatchingDims)
             << " index_vector_dim=" << a.indexVectorDim
             << " indices_are_sorted=" << (a.indicesAreSorted ? "true" : "false")
             << " unique_indices=" << (a.uniqueIndices ? "true" : "false");
        } else if constexpr (std::is_same_v<T, SortAttrs>) {
          os << " dimension=" << a.dimension << " is_stable=" << (a.isStable ? "true" : "false");
        } else if constexpr (std::is_same_v<T, ConvolutionAttrs>) {
          os << " lhs=b" << a.lhsBatch << ",f" << a.lhsFeature << ",s" << joinInts(a.lhsSpatial)
             << " rhs=i" << a.rhsInput << ",o" << a.rhsOutput << ",s" << joinInts(a.rhsSpatial)
             << " out=b" << a.outBatch << ",f" << a.outFeature << ",s" << joinInts(a.outSpatial)
             << " size=" << joinInts(a.sizes) << " stride=" << joinInts(a.strides)
             << " pad_low=" << joinInts(a.padLow) << " pad_high=" << joinInts(a.padHigh)
             << " lhs_dilation=" << joinInts(a.lhsDilation)
             << " rhs_dilation=" << joinInts(a.rhsDilation) << " groups=" << a.featureGroupCount;
        } else if constexpr (std::is_same_v<T, FftAttrs>) {
          static const char* const kKinds[] = {"forward", "inverse", "real-forward",
                                               "real-inverse"};
          os << " kind=" << kKinds[static_cast<int>(a.kind)] << " length=" << a.length;
        } else if constexpr (std::is_same_v<T, SvdAttrs>) {
          os << " compute_uv=" << (a.computeUv ? "true" : "false")
             << " full_matrices=" << (a.fullMatrices ? "true" : "false");
        } else if constexpr (std::is_same_v<T, CholeskyAttrs>) {
          os << " lower=" << (a.lower ? "true" : "false");
        } else if constexpr (std::is_same_v<T, TriangularSolveAttrs>) {
          os << " left_side=" << (a.leftSide ? "true" : "false")
             << " lower=" << (a.lower ? "true" : "false")
             << " unit_diagonal=" << (a.unitDiagonal ? "true" : "false")
             << " transpose_a=" << (a.transposeA ? "true" : "false");
          if (a.conjugateA) os << " conjugate_a=true";
        } else if constexpr (std::is_same_v<T, ConditionalAttrs>) {
          os << " selector=" << (a.predicateSelector ? "pred" : "index") << " branch_operands={";
          for (size_t i = 0; i < a.branchOperandCounts.size(); ++i) {
            if (i) os << ',';
            os << a.branchOperandCounts[i];
          }
          os << '}';
        } else if constexpr (std::is_same_v<T, HostCallbackAttrs>) {
          os << " target=" << a.target << " side_effect=" << (a.hasSideEffect ? "true" : "false");
        }
      },
      attrs);
  return os.str();
}

// The label printed before each region of an op, so that a reader knows its role.
std::string regionLabel(const Op& op, size_t i) {
  switch (op.kind) {
    case OpKind::While:
      return i == 0 ? "cond" : "body";
    case OpKind::Conditional: {
      bool pred = std::holds_alternative<ConditionalAttrs>(op.attrs) &&
                  op.attr<ConditionalAttrs>().predicateSelector;
      if (pred) return i == 0 ? "on_true" : "on_false";
      return "branch" + std::to_string(i);
    }
    case OpKind::Reduce:
    case OpKind::ReduceWindow:
      return "reducer";
    case OpKind::Scatter:
      return "combiner";
    case OpKind::SelectAndScatter:
      return i == 0 ? "select" : "scatter";
    case OpKind::Sort:
      return "comparator";
    default:
      return "region" + std::to_string(i);
  }
}

class Printer {
 public:
  std::string run(const Program& p) {
    os_ << "program " << p.name << '(';
    printArgs(p.body);
    os_ << ") -> (";
    for (size_t i = 0; i < p.body.yields.size(); ++i) {
      if (i) os_ << ", ";
      os_ << p.body.yields[i]->type.toString();
    }
    os_ << ") {\n";
    printOps(p.body, 1);
    indent(1);
    os_ << "return";
    printValueList(p.body.yields, " ");
    os_ << "\n}\n";
    return os_.str();
  }

 private:
  void indent(int depth) {
    for (int i = 0; i < depth; ++i) os_ << "  ";
  }

  std::string name(const Value* v) {
    auto it = ids_.find(v);
    // A value used before it is numbered (invalid IR, e.g. a dominance error) still prints.
    if (it == ids_.end()) return "%<undefined " + v->name + ">";
    return "%" + std::to_string(it->second);
  }

  std::string define(const Value* v) {
    ids_[v] = next_++;
    return name(v);
  }

  void printArgs(const Region& r) {
    for (size_t i = 0; i < r.args.size(); ++i) {
      if (i) os_ << ", ";
      os_ << define(r.args[i].get()) << ": " << r.args[i]->type.toString();
    }
  }

  void printValueList(const std::vector<Value*>& vs, const char* lead) {
    for (size_t i = 0; i < vs.size(); ++i) os_ << (i ? ", " : lead) << name(vs[i]);
  }

  void printOps(const Region& r, int depth) {
    for (const auto& op : r.ops) printOp(*op, depth);
  }

  void printOp(const Op& op, int depth) {
    indent(depth);
    for (size_t i = 0; i < op.results.size(); ++i) {
      if (i) os_ << ", ";
      os_ << define(op.results[i].get());
    }
    os_ << " = " << opKindName(op.kind) << '(';
    if (op.kind == OpKind::Constant && std::holds_alternative<ConstantAttrs>(op.attrs) &&
        !op.results.empty()) {
      os_ << formatConstant(op.result()->type, op.attr<ConstantAttrs>().bytes);
    } else {
      for (size_t i = 0; i < op.operands.size(); ++i)
        os_ << (i ? ", " : "") << name(op.operands[i]);
    }
    os_ << ')' << formatAttrs(op.attrs) << " :";
    for (size_t i = 0; i < op.results.size(); ++i) {
      os_ << (i ? ", " : " ") << op.results[i]->type.toString();
    }
    os_ << '\n';
    for (size_t i = 0; i < op.regions.size(); ++i) {
      const Region& region = *op.regions[i];
      indent(depth + 1);
      os_ << regionLabel(op, i) << '(';
      printArgs(region);
      os_ << ") {\n";
      printOps(region, depth + 2);
      indent(depth + 2);
      os_ << "yield";
      printValueList(region.yields, " ");
      os_ << '\n';
      indent(depth + 1);
      os_ << "}\n";
    }
  }

  std::ostringstream os_;
  std::unordered_map<const Value*, int> ids_;
  int next_ = 0;
};

}  // namespace

std::string print(const Program& program) { return Printer().run(program); }

}  // namespace lf::ir
