#include "support/environment.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace lf {

std::optional<int64_t> integerFromEnvironment(const char* name, int64_t low, int64_t high) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (*end != '\0' || errno == ERANGE || value < low || value > high) {
    throw std::invalid_argument(std::string(name) + " must be a number from " +
                                std::to_string(low) + " to " + std::to_string(high) + ", got '" +
                                text + "'");
  }
  return value;
}

}  // namespace lf
