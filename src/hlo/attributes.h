// Typed readers of an hlo::Attribute's raw value text. Each one accepts exactly the form XLA
// prints and throws lf::CompileError at the offending character (valueLoc + offset) otherwise.
// They know the attribute syntax only; what the values mean is up to the frontend.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hlo/ast.h"

namespace lf::hlo {

// `{1,0}`, `{}`.
std::vector<int64_t> readIntList(const Attribute& a);
// `5`, `-3`.
int64_t readInt(const Attribute& a);
// `true` / `false`.
bool readBool(const Attribute& a);
// `"text"` with C escapes (\n, \t, \\, \", \xNN, octal) decoded.
std::string readString(const Attribute& a);
// `{uplo = 76 : ui8, lower = true, magma = "auto"}` (a custom call's backend_config): each key's
// value as written (a string's without its quotes, escapes kept),
// without its type.
std::map<std::string, std::string> readDictionary(const Attribute& a);
// `%name` or `name`; returns the name without `%`.
std::string readComputationName(const Attribute& a);
// `{%a, %b}` or `{a, b}`.
std::vector<std::string> readComputationList(const Attribute& a);
// `EQ|NE|LT|LE|GT|GE`, returned as written.
std::string readComparisonDirection(const Attribute& a);
// `FLOAT|TOTALORDER|SIGNED|UNSIGNED`, returned as written.
std::string readComparisonType(const Attribute& a);

// `slice={[0:2], [1:7:2]}`: the stride defaults to 1.
struct SliceRange {
  int64_t start = 0, limit = 0, stride = 1;
};
std::vector<SliceRange> readSliceRanges(const Attribute& a);

// `padding=0_1x2_3_1`: low_high or low_high_interior per dimension (interior defaults to 0);
// negative low/high are allowed. `padding=` of a scalar is empty text, which reads as {}.
struct PaddingDim {
  int64_t low = 0, high = 0, interior = 0;
};
std::vector<PaddingDim> readPaddingConfig(const Attribute& a);

// `window={size=3x3 stride=2x1 pad=0_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 window_reversal=0x0}`.
// Fields other than size may be omitted and take their defaults; XLA's names: lhs_dilate is the
// base dilation, rhs_dilate the window dilation. `window={}` describes a rank-0 window.
struct WindowDim {
  int64_t size = 1, stride = 1, padLow = 0, padHigh = 0, baseDilation = 1, windowDilation = 1;
  bool reversal = false;
};
std::vector<WindowDim> readWindow(const Attribute& a);

}  // namespace lf::hlo
