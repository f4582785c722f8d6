// HLO literal element texts to the IR's little-endian bytes. Integers are exact (extremes
// included); floats go through strtod and are rounded to the element type to nearest-even;
// `nan(0x..)` keeps its payload (the mantissa bits, as XLA prints them).
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "frontend/importer.h"
#include "ir/scalar_bits.h"

namespace lf::frontend {
namespace {

template <class T>
void put(std::vector<uint8_t>& out, T v) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));  // hosts are little-endian (x86-64, aarch64)
  out.insert(out.end(), b, b + sizeof(T));
}

[[noreturn]] void bad(SourceLoc loc, const std::string& text, DType t, const std::string& why) {
  throw CompileError(loc,
                     "invalid " + std::string(dtypeName(t)) + " constant '" + text + "': " + why);
}

void putInteger(std::vector<uint8_t>& out, const std::string& text, SourceLoc loc, DType t) {
  const char* end = text.data() + text.size();
  int bits = bitWidth(t);
  if (isSignedInt(t)) {
    int64_t v = 0;
    auto r = std::from_chars(text.data(), end, v);
    if (r.ec != std::errc() || r.ptr != end) bad(loc, text, t, "not an integer in range");
    if (bits < 64 && (v < -(int64_t{1} << (bits - 1)) || v >= (int64_t{1} << (bits - 1)))) {
      bad(loc, text, t, "out of range");
    }
    switch (t) {
      case DType::S8:
        put(out, static_cast<int8_t>(v));
        break;
      case DType::S16:
        put(out, static_cast<int16_t>(v));
        break;
      case DType::S32:
        put(out, static_cast<int32_t>(v));
        break;
      default:
        put(out, v);
        break;
    }
    return;
  }
  std::string_view s = text;
  if (s == "-0") s = "0";
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size())
    bad(loc, text, t, "not an integer in range");
  if (bits < 64 && v >= (uint64_t{1} << bits)) bad(loc, text, t, "out of range");
  switch (t) {
    case DType::U8:
      put(out, static_cast<uint8_t>(v));
      break;
    case DType::U16:
      put(out, static_cast<uint16_t>(v));
      break;
    case DType::U32:
      put(out, static_cast<uint32_t>(v));
      break;
    default:
      put(out, v);
      break;
  }
}

struct FloatFormat {
  int expBits, mantBits;
};

FloatFormat formatOf(DType t) {
  switch (t) {
    case DType::F16:
      return {5, 10};
    case DType::BF16:
      return {8, 7};
    case DType::F32:
      return {8, 23};
    default:
      return {11, 52};
  }
}

void putBits(std::vector<uint8_t>& out, DType t, uint64_t bits) {
  switch (t) {
    case DType::F16:
    case DType::BF16:
      put(out, static_cast<uint16_t>(bits));
      break;
    case DType::F32:
      put(out, static_cast<uint32_t>(bits));
      break;
    default:
      put(out, bits);
      break;
  }
}

void putFloat(std::vector<uint8_t>& out, const std::string& text, SourceLoc loc, DType t) {
  std::string_view s = text;
  bool negative = !s.empty() && s[0] == '-';
  std::string_view body = negative || (!s.empty() && s[0] == '+') ? s.substr(1) : s;
  FloatFormat f = formatOf(t);
  const uint64_t signBit = negative ? uint64_t{1} << (f.expBits + f.mantBits) : 0;
  const uint64_t expMask = ((uint64_t{1} << f.expBits) - 1) << f.mantBits;
  const uint64_t mantMask = (uint64_t{1} << f.mantBits) - 1;
  if (body == "nan" || body.starts_with("nan(")) {
    uint64_t payload = uint64_t{1} << (f.mantBits - 1);  // the default quiet NaN
    if (body.size() > 3) {
      // nan(0x<hex>)
      if (!body.starts_with("nan(0x") || !body.ends_with(")"))
        bad(loc, text, t, "malformed NaN payload");
      std::string_view hex = body.substr(6, body.size() - 7);
      auto r = std::from_chars(hex.data(), hex.data() + hex.size(), payload, 16);
      if (r.ec != std::errc() || r.ptr != hex.data() + hex.size())
        bad(loc, text, t, "malformed NaN payload");
      if (payload == 0 || (payload & ~mantMask) != 0)
        bad(loc, text, t, "NaN payload does not fit the mantissa");
    }
    putBits(out, t, signBit | expMask | payload);
    return;
  }
  if (body == "inf") {
    putBits(out, t, signBit | expMask);
    return;
  }
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  // strtod also accepts hex floats and "infinity"; HLO prints neither, but both mean what they say.
  if (end != text.c_str() + text.size() || text.empty()) bad(loc, text, t, "not a number");
  switch (t) {
    case DType::F16:
      put(out, ir::doubleToF16Bits(d));
      break;
    case DType::BF16:
      put(out, ir::doubleToBF16Bits(d));
      break;
    case DType::F32:
      put(out, static_cast<float>(d));
      break;
    default:
      put(out, d);
      break;
  }
}

}  // namespace

std::vector<uint8_t> literalBytes(const hlo::Literal& literal, const ir::Type& type) {
  if (static_cast<int64_t>(literal.elements.size()) != type.numElements()) {
    throw CompileError(literal.loc, "constant of " + type.toString() + " has " +
                                        std::to_string(literal.elements.size()) + " elements");
  }
  std::vector<uint8_t> out;
  out.reserve(type.byteSize());
  for (size_t i = 0; i < literal.elements.size(); ++i) {
    const std::string& text = literal.elements[i];
    SourceLoc loc = i < literal.locs.size() ? literal.locs[i] : literal.loc;
    if (type.dtype == DType::Pred) {
      if (text == "true" || text == "1") {
        out.push_back(1);
      } else if (text == "false" || text == "0") {
        out.push_back(0);
      } else {
        bad(loc, text, type.dtype, "expected true, false, 0 or 1");
      }
    } else if (isInteger(type.dtype)) {
      putInteger(out, text, loc, type.dtype);
    } else {
      putFloat(out, text, loc, type.dtype);
    }
  }
  return out;
}

}  // namespace lf::frontend
