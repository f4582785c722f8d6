// The kernel prelude headers (src/codegen/prelude/*.h), embedded at build time.
#pragma once

#include <string_view>

namespace lf::codegen {
// The text of src/codegen/prelude/<name>; empty when there is no such file.
std::string_view preludeFile(std::string_view name);
}  // namespace lf::codegen
