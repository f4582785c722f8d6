// The CPU's convolution to a few output features as pixel vectors: its geometry, which the plan
// needs (the packed input's scratch) and the emitter follows (codegen/emit_convolution_pixels.cc).
//
// A convolution with fewer output features than a vector has lanes (a denoiser's last layer back
// to 1, 3 or 4 channels) fills a vector of features only partly: tiles of pixels x features use
// 4 of AVX-512's 16 lanes for 4 features. Its lanes go to pixels instead: consecutive outputs
// along the spatial dim just before the features (W of NHWC). Those read inputs C apart in the
// lhs, so the lhs is first packed, per pixel row and input feature, into a buffer where they are
// contiguous, with the padding (and the holes of a dilated lhs) written as zeros:
//   pack[b][q_0]...[c][q_minor],  q_d = o_d * stride_d + w_d * rhs_dilation_d,
// each q_d running over every position some window reads (the minor one over whole vectors).
// A window position in the padding then contributes 0 * w from the pack, as in the other forms.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace lf::plan {

struct ConvolutionPack {
  int minorSpatial = -1;             // the spatial dim (index into the attrs' spatial lists)
  std::vector<int64_t> spans;        // per spatial dim, positions q_d the windows read
  int64_t minorPadded = 0;           // the pack's minor extent: spans[minor] rounded up to tiles
  int64_t batch = 0, inputs = 0;     // lhs batch and input features
  int64_t features = 0;              // output features
  int64_t minorOutputs = 0;          // outputs along the minor spatial dim
  int64_t pixelVectors[2] = {0, 0};  // vectors per tile for 64-byte and 32-byte vectors
  int64_t elementBytes = 0;

  int64_t lanes(int vectorBytes) const { return vectorBytes / elementBytes; }
  // Vectors per tile for 64- or 32-byte vectors.
  int64_t vectorsPerTile(int vectorBytes) const { return pixelVectors[vectorBytes == 64 ? 0 : 1]; }
  // Tiles along a row of minorOutputs pixels.
  int64_t chunks(int vectorBytes) const;
  int64_t elements() const;  // of the pack
  int64_t bytes() const { return elements() * elementBytes; }
};

// Whether convolution `op` has the CPU's tile forms (codegen/emit_convolution_tiles.cc and the
// pixel vectors): f32 or f64 throughout, one feature group, the output features the minor dim of
// the result and of the kernel, and a result with elements.
bool hasTileForm(const ir::Op& op);

// The pixel-vector form of `op` (a Convolution), or none where it does not apply: a tile form
// (hasTileForm) with at most 16 bytes of output features per pixel, a spatial output dim just
// before the features with stride 1, and a pack no larger than 4 times the lhs plus 1 MiB. (The
// result's storage is the emitter's to check.)
std::optional<ConvolutionPack> convolutionPack(const ir::Op& op);

}  // namespace lf::plan
