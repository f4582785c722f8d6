// Source locations and error reports in the `file:line:col: error: message` form, with the
// offending line and a caret under the column.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace lf {

struct SourceLoc {
  int line = 0;  // 1-based; 0 when unknown
  int col = 0;   // 1-based
  bool known() const { return line > 0; }
};

struct Diagnostic {
  SourceLoc loc;
  std::string message;
};

// The text being compiled, kept so that diagnostics can quote the line.
class SourceFile {
 public:
  SourceFile(std::string path, std::string text);
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  std::string lineText(int line) const;  // without the newline; "" when out of range

  // "path:line:col: error: message\n<line>\n<spaces>^\n" (no location part when unknown).
  std::string format(const Diagnostic& d) const;
  std::string format(const std::vector<Diagnostic>& ds) const;

 private:
  std::string path_;
  std::string text_;
  std::vector<size_t> lineStarts_;
};

// Thrown by any stage for bad user input; carries every diagnostic found. The command line and the
// FFI handlers catch it and print / return SourceFile::format(diagnostics).
class CompileError : public std::runtime_error {
 public:
  explicit CompileError(std::vector<Diagnostic> ds);
  CompileError(SourceLoc loc, const std::string& message);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace lf
