#include "cli_common.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "frontend/import.h"
#include "passes/pipeline.h"

namespace lf::tools {

std::string readTextFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ToolError("error: '" + path + "' is a directory", kExitUserError);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ToolError("error: cannot read '" + path + "'", kExitUserError);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ToolError("error: cannot read '" + path + "'", kExitUserError);
  return text.str();
}

LoadedHlo loadHlo(const std::string& path) {
  LoadedHlo loaded;
  loaded.file = std::make_unique<SourceFile>(path, readTextFile(path));
  loaded.module = withDiagnostics(*loaded.file, [&] { return hlo::parseModule(*loaded.file); });
  return loaded;
}

codegen::EmittedKernel emitHlo(const std::string& path, codegen::Target target) {
  LoadedHlo loaded = loadHlo(path);
  return withDiagnostics(*loaded.file, [&] {
    ir::Program program = frontend::importModule(loaded.module);
    passes::runPasses(program);
    return codegen::emit(program, target);
  });
}

}  // namespace lf::tools
