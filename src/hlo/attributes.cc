// A small cursor over one attribute's value text; every error points at the exact character.
#include "hlo/attributes.h"

#include <cctype>
#include <charconv>
#include <limits>
#include <map>

namespace lf::hlo {
namespace {

class Cursor {
 public:
  explicit Cursor(const Attribute& a) : attr_(a), text_(a.value) {}

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  void skipSpaces() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  void expectEnd() {
    skipSpaces();
    if (!atEnd()) fail("unexpected text after the value of '" + attr_.name + "'");
  }

  int64_t integer() {
    size_t start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    std::string_view digits(text_.data() + start, pos_ - start);
    if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
    int64_t v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec == std::errc::result_out_of_range) failAt(start, "integer out of range");
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size() || digits.empty()) {
      failAt(start, "expected an integer in '" + attr_.name + "'");
    }
    return v;
  }

  // [A-Za-z0-9_.-]+ after an optional '%'.
  std::string identifier(bool allowPercent) {
    if (allowPercent) consume('%');
    size_t start = pos_;
    while (!atEnd()) {
      char c = text_[pos_];
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') {
        ++pos_;
      } else {
        break;
      }
    }
    if (pos_ == start) failAt(start, "expected a name in '" + attr_.name + "'");
    return text_.substr(start, pos_ - start);
  }

  [[noreturn]] void fail(const std::string& message) const { failAt(pos_, message); }
  [[noreturn]] void failAt(size_t offset, const std::string& message) const {
    throw CompileError(locAt(offset), message);
  }

  size_t pos() const { return pos_; }
  void setPos(size_t p) { pos_ = p; }
  const std::string& text() const { return text_; }

 private:
  SourceLoc locAt(size_t offset) const {
    SourceLoc loc = attr_.valueLoc;
    if (!loc.known()) return loc;
    for (size_t i = 0; i < offset && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++loc.line;
        loc.col = 1;
      } else {
        ++loc.col;
      }
    }
    return loc;
  }

  const Attribute& attr_;
  const std::string& text_;
  size_t pos_ = 0;
};

// `a x b x c` of integers (or of `lo_hi` pairs, read by `item`), as in window and padding text.
template <class F>
void readXList(Cursor& c, F item) {
  item();
  while (c.consume('x')) item();
}

std::string readKeyword(const Attribute& a, std::initializer_list<const char*> allowed,
                        const char* what) {
  Cursor c(a);
  c.skipSpaces();
  size_t start = c.pos();
  std::string word = c.identifier(false);
  c.expectEnd();
  for (const char* w : allowed) {
    if (word == w) return word;
  }
  std::string list;
  for (const char* w : allowed) list += (list.empty() ? "" : ", ") + std::string(w);
  c.failAt(start,
           std::string("unknown ") + what + " '" + word + "' (expected one of " + list + ")");
}

}  // namespace

std::vector<int64_t> readIntList(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  c.expect('{');
  std::vector<int64_t> out;
  c.skipSpaces();
  if (!c.consume('}')) {
    do {
      c.skipSpaces();
      out.push_back(c.integer());
      c.skipSpaces();
    } while (c.consume(','));
    c.expect('}');
  }
  c.expectEnd();
  return out;
}

int64_t readInt(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  int64_t v = c.integer();
  c.expectEnd();
  return v;
}

bool readBool(const Attribute& a) { return readKeyword(a, {"true", "false"}, "boolean") == "true"; }

std::string readString(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  c.expect('"');
  std::string out;
  const std::string& t = c.text();
  while (true) {
    if (c.atEnd()) c.fail("unterminated string");
    char ch = t[c.pos()];
    c.setPos(c.pos() + 1);
    if (ch == '"') break;
    if (ch != '\\') {
      out += ch;
      continue;
    }
    if (c.atEnd()) c.fail("unterminated escape");
    size_t escPos = c.pos() - 1;
    char e = t[c.pos()];
    c.setPos(c.pos() + 1);
    switch (e) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '\\':
        out += '\\';
        break;
      case '"':
        out += '"';
        break;
      case '\'':
        out += '\'';
        break;
      case '?':
        out += '?';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x': {
        int v = 0, n = 0;
        while (!c.atEnd() && std::isxdigit(static_cast<unsigned char>(t[c.pos()])) && n < 2) {
          char h = t[c.pos()];
          v = v * 16 +
              (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (h | 0x20) - 'a' + 10);
          c.setPos(c.pos() + 1);
          ++n;
        }
        if (n == 0) c.failAt(escPos, "\\x escape without hex digits");
        out += static_cast<char>(v);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          int v = e - '0', n = 1;
          while (n < 3 && !c.atEnd() && t[c.pos()] >= '0' && t[c.pos()] <= '7') {
            v = v * 8 + (t[c.pos()] - '0');
            c.setPos(c.pos() + 1);
            ++n;
          }
          out += static_cast<char>(v);
        } else {
          c.failAt(escPos, std::string("unknown escape '\\") + e + "'");
        }
    }
  }
  c.expectEnd();
  return out;
}

std::map<std::string, std::string> readDictionary(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  c.expect('{');
  std::map<std::string, std::string> out;
  c.skipSpaces();
  if (!c.consume('}')) {
    while (true) {
      c.skipSpaces();
      std::string key = c.identifier(false);
      c.skipSpaces();
      c.expect('=');
      c.skipSpaces();
      if (c.consume('"')) {  // a string, as in cuhybrid_eig_real's `magma = "auto"`
        const size_t start = c.pos();
        const size_t end = c.text().find('"', start);
        if (end == std::string::npos) c.failAt(start - 1, "unterminated string in '" + key + "'");
        out[key] = c.text().substr(start, end - start);
        c.setPos(end + 1);
      } else {
        out[key] = c.identifier(false);
      }
      c.skipSpaces();
      if (c.consume(':')) {  // the value's type, as in `76 : ui8`
        c.skipSpaces();
        c.identifier(false);
        c.skipSpaces();
      }
      if (c.consume('}')) break;
      c.expect(',');
    }
  }
  c.expectEnd();
  return out;
}

std::string readComputationName(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  std::string name = c.identifier(true);
  c.expectEnd();
  return name;
}

std::vector<std::string> readComputationList(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  c.expect('{');
  std::vector<std::string> out;
  c.skipSpaces();
  if (!c.consume('}')) {
    do {
      c.skipSpaces();
      out.push_back(c.identifier(true));
      c.skipSpaces();
    } while (c.consume(','));
    c.expect('}');
  }
  c.expectEnd();
  return out;
}

std::string readComparisonDirection(const Attribute& a) {
  return readKeyword(a, {"EQ", "NE", "LT", "LE", "GT", "GE"}, "comparison direction");
}

std::string readComparisonType(const Attribute& a) {
  return readKeyword(a, {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}, "comparison type");
}

std::vector<SliceRange> readSliceRanges(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  c.expect('{');
  std::vector<SliceRange> out;
  c.skipSpaces();
  if (!c.consume('}')) {
    do {
      c.skipSpaces();
      c.expect('[');
      SliceRange r;
      r.start = c.integer();
      c.expect(':');
      r.limit = c.integer();
      if (c.consume(':')) r.stride = c.integer();
      c.expect(']');
      out.push_back(r);
      c.skipSpaces();
    } while (c.consume(','));
    c.expect('}');
  }
  c.expectEnd();
  return out;
}

std::vector<PaddingDim> readPaddingConfig(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  std::vector<PaddingDim> out;
  if (c.atEnd()) return out;
  readXList(c, [&] {
    PaddingDim d;
    d.low = c.integer();
    c.expect('_');
    d.high = c.integer();
    if (c.consume('_')) d.interior = c.integer();
    out.push_back(d);
  });
  c.expectEnd();
  return out;
}

std::vector<WindowDim> readWindow(const Attribute& a) {
  Cursor c(a);
  c.skipSpaces();
  c.expect('{');
  std::vector<WindowDim> out;
  bool haveSize = false;
  // Each field is an x-separated list with one entry per window dimension; `size` fixes the rank.
  auto field = [&](size_t fieldStart, auto set) {
    size_t i = 0;
    readXList(c, [&] {
      if (i >= out.size()) out.resize(i + 1);
      set(out[i], i);
      ++i;
    });
    if (i != out.size()) {
      c.failAt(fieldStart, "window field has " + std::to_string(i) +
                               " entries but the window has " + std::to_string(out.size()) +
                               " dimensions");
    }
  };
  c.skipSpaces();
  while (!c.consume('}')) {
    if (c.atEnd()) c.fail("unterminated window");
    size_t keyStart = c.pos();
    std::string key = c.identifier(false);
    c.expect('=');
    size_t valueStart = c.pos();
    if (key != "size" && !haveSize) c.failAt(keyStart, "window 'size' must come first");
    if (key == "size") {
      if (haveSize) c.failAt(keyStart, "duplicate window 'size'");
      haveSize = true;
      readXList(c, [&] {
        WindowDim d;
        d.size = c.integer();
        out.push_back(d);
      });
    } else if (key == "stride") {
      field(valueStart, [&](WindowDim& d, size_t) { d.stride = c.integer(); });
    } else if (key == "pad") {
      field(valueStart, [&](WindowDim& d, size_t) {
        d.padLow = c.integer();
        c.expect('_');
        d.padHigh = c.integer();
      });
    } else if (key == "lhs_dilate") {
      field(valueStart, [&](WindowDim& d, size_t) { d.baseDilation = c.integer(); });
    } else if (key == "rhs_dilate") {
      field(valueStart, [&](WindowDim& d, size_t) { d.windowDilation = c.integer(); });
    } else if (key == "window_reversal") {
      field(valueStart, [&](WindowDim& d, size_t) {
        int64_t v = c.integer();
        if (v != 0 && v != 1) c.fail("window_reversal entries must be 0 or 1");
        d.reversal = v == 1;
      });
    } else {
      c.failAt(keyStart, "unknown window field '" + key + "'");
    }
    c.skipSpaces();
  }
  c.expectEnd();
  return out;
}

}  // namespace lf::hlo
