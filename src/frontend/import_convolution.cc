// convolution(lhs, rhs), window={...}, dim_labels=b01f_01io->b01f, feature_group_count=G: XLA's
// convolution (jax.lax.conv_general_dilated and everything built on it).
#include "frontend/importer.h"
#include "hlo/attributes.h"

namespace lf::frontend {
namespace {

using ir::OpKind;

// One operand's labels, e.g. "b01f": the positions of the two lettered dimensions and of each
// spatial dimension (digit d at position p: spatial[d] = p).
struct Labels {
  int64_t first = -1, second = -1;
  std::vector<int64_t> spatial;
};

Labels readLabels(InstrContext& c, const std::string& text, char first, char second) {
  Labels out;
  out.spatial.assign(text.size() >= 2 ? text.size() - 2 : 0, -1);
  for (size_t p = 0; p < text.size(); ++p) {
    const char ch = text[p];
    int64_t* slot = nullptr;
    if (ch == first) {
      slot = &out.first;
    } else if (ch == second) {
      slot = &out.second;
    } else if (ch >= '0' && ch <= '9' && static_cast<size_t>(ch - '0') < out.spatial.size()) {
      slot = &out.spatial[ch - '0'];
    }
    if (slot == nullptr || *slot != -1) {
      c.fail("dim_labels part '" + text + "' must name '" + first + "', '" + second +
             "' and the spatial dimensions 0.." + std::to_string(out.spatial.size()) +
             " once each");
    }
    *slot = static_cast<int64_t>(p);
  }
  if (out.first < 0 || out.second < 0) {
    c.fail("dim_labels part '" + text + "' lacks '" + first + "' or '" + second + "'");
  }
  return out;
}

Values convolution(InstrContext& c) {
  c.expectOperands(2);
  const std::string labels = c.attr("dim_labels").value;
  const size_t underscore = labels.find('_'), arrow = labels.find("->");
  if (underscore == std::string::npos || arrow == std::string::npos || arrow < underscore) {
    c.fail("dim_labels=" + labels + " is not of the form lhs_rhs->out (e.g. b01f_01io->b01f)");
  }
  const Labels lhs = readLabels(c, labels.substr(0, underscore), 'b', 'f');
  const Labels rhs = readLabels(c, labels.substr(underscore + 1, arrow - underscore - 1), 'i', 'o');
  const Labels out = readLabels(c, labels.substr(arrow + 2), 'b', 'f');
  if (optInt(c, "batch_group_count", 1) != 1) {
    c.fail("convolution with batch_group_count > 1 (a grouped weight gradient) is not supported");
  }

  ir::ConvolutionAttrs a;
  a.lhsBatch = lhs.first, a.lhsFeature = lhs.second, a.lhsSpatial = lhs.spatial;
  a.rhsInput = rhs.first, a.rhsOutput = rhs.second, a.rhsSpatial = rhs.spatial;
  a.outBatch = out.first, a.outFeature = out.second, a.outSpatial = out.spatial;
  a.featureGroupCount = optInt(c, "feature_group_count", 1);
  std::vector<hlo::WindowDim> window;
  if (const hlo::Attribute* w = c.optAttr("window")) window = hlo::readWindow(*w);
  if (window.size() != lhs.spatial.size()) {
    if (!window.empty() || !lhs.spatial.empty()) {
      c.fail("convolution window has " + std::to_string(window.size()) +
             " dimensions, dim_labels " + std::to_string(lhs.spatial.size()) + " spatial ones");
    }
  }
  for (const hlo::WindowDim& d : window) {
    if (d.reversal) c.fail("convolution with window_reversal is not supported");
    a.sizes.push_back(d.size);
    a.strides.push_back(d.stride);
    a.padLow.push_back(d.padLow);
    a.padHigh.push_back(d.padHigh);
    a.lhsDilation.push_back(d.baseDilation);
    a.rhsDilation.push_back(d.windowDilation);
  }
  return {c.emit1(OpKind::Convolution, {c.array(0), c.array(1)}, a)};
}

}  // namespace

void addConvolutionHandlers(HandlerTable& t) { t["convolution"] = convolution; }

}  // namespace lf::frontend
