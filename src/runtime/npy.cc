// The .npy encoding of one array (numpy's lib/format.py): the magic "\x93NUMPY", a version, a
// little-endian header length, a Python-literal header dict, then the raw row-major data.
#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "runtime/npz.h"

namespace lf::runtime {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// The three keys of the header dict, as written: {'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }. Only the literal forms numpy writes are accepted.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& what) : text_(text), what_(what) {}

  NpyHeader parse() {
    NpyHeader h;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    expect('{');
    while (!tryConsume('}')) {
      std::string key = readString();
      expect(':');
      if (key == "descr") {
        skipSpace();
        if (peek() != '\'' && peek() != '"')
          fail("a structured dtype (descr " + restOfValue() + ") is not supported");
        h.descr = readString();
        sawDescr = true;
      } else if (key == "fortran_order") {
        h.fortranOrder = readBool();
        sawOrder = true;
      } else if (key == "shape") {
        h.shape = readShape();
        sawShape = true;
      } else {
        fail("unexpected key '" + key + "' in the .npy header");
      }
      if (!tryConsume(',')) {
        expect('}');
        break;
      }
    }
    if (!sawDescr || !sawOrder || !sawShape)
      fail("the .npy header lacks one of 'descr', 'fortran_order', 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw NpzError(what_ + ": " + message);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool tryConsume(char c) {
    skipSpace();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!tryConsume(c)) fail(std::string("malformed .npy header: expected '") + c + "'");
  }
  std::string restOfValue() const {
    size_t end = text_.find(", '", pos_);
    return std::string(text_.substr(pos_, end == std::string_view::npos ? 20 : end - pos_));
  }
  std::string readString() {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("malformed .npy header: expected a string");
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) fail("malformed .npy header: unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }
  bool readBool() {
    skipSpace();
    for (auto [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(pos_, std::strlen(word)) == word) {
        pos_ += std::strlen(word);
        return value;
      }
    }
    fail("malformed .npy header: fortran_order is not True or False");
  }
  std::vector<int64_t> readShape() {
    std::vector<int64_t> dims;
    expect('(');
    while (!tryConsume(')')) {
      skipSpace();
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("malformed .npy header: the shape is not a tuple of non-negative integers");
      int64_t d = 0;
      while (std::isdigit(static_cast<unsigned char>(peek()))) {
        if (d > (std::numeric_limits<int64_t>::max() - 9) / 10) fail("a dimension is too large");
        d = d * 10 + (text_[pos_++] - '0');
      }
      dims.push_back(d);
      if (!tryConsume(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }

  std::string_view text_;
  const std::string& what_;
  size_t pos_ = 0;
};

// numpy dtype.str to DType. Byte order '<' (little), '|' (not applicable) and '=' (native, which
// is little on every platform loopfuse runs on) are accepted; '>' is rejected by the caller.
std::optional<DType> dtypeFromDescr(std::string_view kindAndSize) {
  for (DType t : kAllDTypes) {
    if (t == DType::BF16) continue;  // stored as u16 bit patterns; "<u2" reads back as U16
    if (numpyDescr(t).substr(1) == kindAndSize) return t;
  }
  return std::nullopt;
}

DType parseDescr(const std::string& descr, const std::string& what) {
  if (descr.size() < 2) throw NpzError(what + ": unsupported dtype '" + descr + "'");
  char order = descr[0];
  std::string_view kindAndSize = std::string_view(descr).substr(1);
  if (order == '>' && kindAndSize.substr(1) != "1")
    throw NpzError(what + ": big-endian dtype '" + descr +
                   "' is not supported (save it with .astype('<" + std::string(kindAndSize) +
                   "'))");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    throw NpzError(what + ": unsupported dtype '" + descr + "'");
  if (auto t = dtypeFromDescr(kindAndSize)) return *t;
  // ml_dtypes' bfloat16 saves as an opaque 2-byte void type: keep its bits, as for "<u2".
  if (kindAndSize == "V2") return DType::U16;
  const char kind = kindAndSize.empty() ? '?' : kindAndSize[0];
  if (kind == 'c') {
    throw NpzError(what + ": complex dtype '" + descr + "' is not supported (c8 and c16 are)");
  }
  if (kind == 'O') throw NpzError(what + ": object arrays ('" + descr + "') are not supported");
  throw NpzError(what + ": unsupported dtype '" + descr + "'");
}

int64_t checkedElementCount(const std::vector<int64_t>& dims, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / 16 / d)
      throw NpzError(what + ": the shape is too large");
    n *= d;
  }
  return n;
}

uint32_t readLittleEndian(std::string_view bytes, size_t offset, int width) {
  uint32_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return v;
}

std::string shapeLiteral(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  if (dims.size() == 1) s += ",";  // Python's one-element tuple
  return s + ")";
}

}  // namespace

HostArray parseNpy(std::string_view bytes, const std::string& what) {
  if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic)
    throw NpzError(what + ": not a .npy array (bad magic)");
  const int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3)
    throw NpzError(what + ": unsupported .npy version " + std::to_string(major));
  const int lengthWidth = major == 1 ? 2 : 4;
  const size_t headerStart = 8 + lengthWidth;
  if (bytes.size() < headerStart) throw NpzError(what + ": truncated .npy header");
  const size_t headerLength = readLittleEndian(bytes, 8, lengthWidth);
  if (bytes.size() < headerStart + headerLength) throw NpzError(what + ": truncated .npy header");

  NpyHeader header = HeaderParser(bytes.substr(headerStart, headerLength), what).parse();
  if (header.fortranOrder)
    throw NpzError(what +
                   ": Fortran-order arrays are not supported (save with "
                   "numpy.ascontiguousarray)");
  HostArray array;
  std::string_view kindAndSize = std::string_view(header.descr).substr(1);
  if (!header.descr.empty() && header.descr[0] != '>' &&
      (kindAndSize == "c8" || kindAndSize == "c16")) {
    // A complex array is its (real, imaginary) pairs, as loopfuse's programs take it: the part
    // type with a trailing dimension of 2, the same bytes.
    array.type.dtype = kindAndSize == "c8" ? DType::F32 : DType::F64;
    header.shape.push_back(2);
    array.complexPairs = true;
  } else {
    array.type.dtype = parseDescr(header.descr, what);
  }
  array.type.dims = header.shape;
  const int64_t count = checkedElementCount(header.shape, what);
  const uint64_t dataBytes = static_cast<uint64_t>(count) * byteSize(array.type.dtype);
  const std::string_view data = bytes.substr(headerStart + headerLength);
  if (data.size() != dataBytes)
    throw NpzError(what + ": expected " + std::to_string(dataBytes) + " data bytes for " +
                   header.descr + shapeLiteral(header.shape) + ", found " +
                   std::to_string(data.size()));
  array.data.assign(data.begin(), data.end());
  return array;
}

std::string serializeNpy(const HostArray& array) {
  std::string dict = "{'descr': '" + std::string(numpyDescr(array.type.dtype)) +
                     "', 'fortran_order': False, 'shape': " + shapeLiteral(array.type.dims) + ", }";
  // As numpy's lib/format.py: room for the first dimension to grow to 21 digits in place, then
  // spaces and a '\n' so that the data starts 64-byte aligned. The bytes match numpy.save's.
  if (!array.type.dims.empty()) {
    const size_t digits = std::to_string(array.type.dims[0]).size();
    dict.append(digits < 21 ? 21 - digits : 0, ' ');
  }
  const size_t unpadded = kMagic.size() + 2 + 2 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.data.size());
  return out;
}

}  // namespace lf::runtime
