// The kernel prelude headers (src/codegen/prelude/*.h), embedded at build time.
#pragma once

#include <string>
#include <string_view>

namespace lf::codegen {
// The text of src/codegen/prelude/<name>; empty when there is no such file.
std::string_view preludeFile(std::string_view name);
// The text a kernel pastes for prelude file `name`: the file with each `#include "lf_*.h"` line
// replaced by that file's text (recursively), so that the kernel's source stands alone, and without
// the `#pragma once` lines (the source is a main file). Throws
// std::logic_error when a named file does not exist.
std::string preludeText(std::string_view name);
}  // namespace lf::codegen
