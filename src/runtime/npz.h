// Reading and writing numpy's .npz archives (a zip of .npy files), the format of the corpus's
// inputs and expected outputs and of `loopfuse run --inputs/--outputs`.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/executable.h"

namespace lf::runtime {

// A file that is not a valid .npz / .npy, or one that loopfuse cannot represent (big-endian,
// Fortran order, object dtypes). The message names the file and, where known, the array.
class NpzError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using NamedArrays = std::vector<std::pair<std::string, HostArray>>;

// Reads every array of an .npz, in archive order, named without the ".npy" suffix. Stored and
// deflated members are accepted. bf16 has no numpy dtype: such arrays come back as u16 bit
// patterns (Executable::run accepts them for bf16 parameters). A complex64 / complex128 array
// comes back as its f32 / f64 (real, imaginary) pairs, a trailing dimension of 2, which is how a
// program takes and gives complex arrays (and how `--outputs` writes them).
NamedArrays readNpz(const std::string& path);

// Writes an uncompressed .npz the way numpy.savez does (members "<name>.npy", .npy format 1.0).
// bf16 arrays are written as "<u2" bit patterns.
void writeNpz(const std::string& path, const NamedArrays& arrays);

// The arrays named prefix0, prefix1, ... ("input_0", ...) in index order; NpzError (naming `path`)
// when the numbering has a gap.
std::vector<HostArray> numberedArrays(const NamedArrays& arrays, const std::string& prefix,
                                      const std::string& path);

// The .npy encoding of one array, exposed for tests. `what` names the array in error messages.
HostArray parseNpy(std::string_view bytes, const std::string& what);
std::string serializeNpy(const HostArray& array);

}  // namespace lf::runtime
