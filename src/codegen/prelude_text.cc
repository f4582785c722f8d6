// codegen::preludeText: a prelude file with its includes of other prelude files pasted in place
// and its include guard dropped.
#include <sstream>
#include <stdexcept>

#include "codegen/prelude_sources.h"

namespace lf::codegen {

std::string preludeText(std::string_view name) {
  const std::string_view file = preludeFile(name);
  if (file.empty()) throw std::logic_error("no prelude file " + std::string(name));
  std::istringstream lines{std::string(file)};
  std::string out, line;
  const std::string include = "#include \"lf_";
  while (std::getline(lines, line)) {
    // The headers guard themselves for their own tests' builds; pasted into a kernel's one source
    // file, the guard would draw "#pragma once in main file" from a compiler asked for warnings.
    if (line == "#pragma once") continue;
    if (line.rfind(include, 0) == 0) {
      const size_t end = line.find('"', include.size());
      if (end != std::string::npos) {
        out += preludeText(std::string_view(line).substr(10, end - 10));
        continue;
      }
    }
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace lf::codegen
