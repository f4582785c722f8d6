#include "support/diagnostic.h"

#include <algorithm>

namespace lf {

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
}

std::string SourceFile::lineText(int line) const {
  if (line < 1 || static_cast<size_t>(line) > lineStarts_.size()) return "";
  size_t begin = lineStarts_[line - 1];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  std::string s = text_.substr(begin, end - begin);
  if (!s.empty() && s.back() == '\r') s.pop_back();
  return s;
}

std::string SourceFile::format(const Diagnostic& d) const {
  std::string out = path_;
  if (d.loc.known()) out += ":" + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col);
  out += ": error: " + d.message + "\n";
  if (d.loc.known()) {
    std::string line = lineText(d.loc.line);
    // Very long lines (constants) are clipped around the column so the caret stays readable.
    size_t col = static_cast<size_t>(std::max(d.loc.col, 1)) - 1;
    size_t start = 0;
    constexpr size_t kWidth = 160;
    if (line.size() > kWidth && col > kWidth / 2) start = col - kWidth / 2;
    std::string shown = line.substr(start, kWidth);
    if (start > 0) shown = "..." + shown;
    if (start + kWidth < line.size()) shown += "...";
    size_t caret = col - start + (start > 0 ? 3 : 0);
    out += shown + "\n" + std::string(caret, ' ') + "^\n";
  }
  return out;
}

std::string SourceFile::format(const std::vector<Diagnostic>& ds) const {
  std::string out;
  for (const auto& d : ds) out += format(d);
  return out;
}

static std::string joinMessages(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) {
    if (!s.empty()) s += "; ";
    if (d.loc.known()) s += std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + ": ";
    s += d.message;
  }
  return s;
}

CompileError::CompileError(std::vector<Diagnostic> ds)
    : std::runtime_error(joinMessages(ds)), diagnostics_(std::move(ds)) {}

CompileError::CompileError(SourceLoc loc, const std::string& message)
    : CompileError(std::vector<Diagnostic>{{loc, message}}) {}

}  // namespace lf
