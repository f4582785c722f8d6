// Element types shared by every stage: the HLO dtypes loopfuse supports.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace lf {

enum class DType : uint8_t { Pred, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64 };

inline constexpr DType kAllDTypes[] = {DType::Pred, DType::S8,  DType::S16, DType::S32, DType::S64,
                                       DType::U8,   DType::U16, DType::U32, DType::U64, DType::F16,
                                       DType::BF16, DType::F32, DType::F64};

// HLO spelling: "pred", "s32", "bf16", ...
std::string_view dtypeName(DType t);
// Parses an HLO dtype name; nullopt for names loopfuse does not support.
std::optional<DType> parseDType(std::string_view name);
// numpy's dtype.str ("<f4", "|b1", ...); bf16 has none and is stored as "<u2" bit patterns.
std::string_view numpyDescr(DType t);
int byteSize(DType t);
int bitWidth(DType t);  // pred counts as 8 (its storage)
bool isFloat(DType t);
bool isSignedInt(DType t);
bool isUnsignedInt(DType t);
inline bool isInteger(DType t) { return isSignedInt(t) || isUnsignedInt(t); }

}  // namespace lf
