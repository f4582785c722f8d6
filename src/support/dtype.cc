#include "support/dtype.h"

namespace lf {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  std::string_view numpy;
  int bytes;
};
constexpr DTypeInfo kInfo[] = {
    {DType::Pred, "pred", "|b1", 1}, {DType::S8, "s8", "|i1", 1},     {DType::S16, "s16", "<i2", 2},
    {DType::S32, "s32", "<i4", 4},   {DType::S64, "s64", "<i8", 8},   {DType::U8, "u8", "|u1", 1},
    {DType::U16, "u16", "<u2", 2},   {DType::U32, "u32", "<u4", 4},   {DType::U64, "u64", "<u8", 8},
    {DType::F16, "f16", "<f2", 2},   {DType::BF16, "bf16", "<u2", 2}, {DType::F32, "f32", "<f4", 4},
    {DType::F64, "f64", "<f8", 8},
};
const DTypeInfo& info(DType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

std::string_view dtypeName(DType t) { return info(t).name; }
std::string_view numpyDescr(DType t) { return info(t).numpy; }
int byteSize(DType t) { return info(t).bytes; }
int bitWidth(DType t) { return info(t).bytes * 8; }

std::optional<DType> parseDType(std::string_view name) {
  for (const auto& i : kInfo)
    if (i.name == name) return i.type;
  return std::nullopt;
}

bool isFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64;
}
bool isSignedInt(DType t) {
  return t == DType::S8 || t == DType::S16 || t == DType::S32 || t == DType::S64;
}
bool isUnsignedInt(DType t) {
  return t == DType::U8 || t == DType::U16 || t == DType::U32 || t == DType::U64;
}

}  // namespace lf
