// Settings read from LOOPFUSE_* environment variables, checked in one place.
#pragma once

#include <cstdint>
#include <optional>

namespace lf {

// $name as an integer from `low` to `high`; nullopt when it is unset or empty. Anything else
// throws std::invalid_argument: "NAME must be a number from LOW to HIGH, got 'TEXT'".
std::optional<int64_t> integerFromEnvironment(const char* name, int64_t low, int64_t high);

}  // namespace lf
