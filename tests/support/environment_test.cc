// integerFromEnvironment: unset and empty mean "not set"; anything but an integer in range is an
// error that names the variable, the range and the text.
#include "support/environment.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace lf {
namespace {

constexpr const char* kName = "LOOPFUSE_TEST_INTEGER";

std::string errorFor(const char* text) {
  setenv(kName, text, 1);
  try {
    integerFromEnvironment(kName, 1, 64);
  } catch (const std::invalid_argument& e) {
    unsetenv(kName);
    return e.what();
  }
  unsetenv(kName);
  return "";
}

TEST(Environment, UnsetOrEmptyIsNotSet) {
  unsetenv(kName);
  EXPECT_EQ(integerFromEnvironment(kName, 1, 64), std::nullopt);
  setenv(kName, "", 1);
  EXPECT_EQ(integerFromEnvironment(kName, 1, 64), std::nullopt);
  unsetenv(kName);
}

TEST(Environment, ReadsIntegersInRange) {
  setenv(kName, "1", 1);
  EXPECT_EQ(integerFromEnvironment(kName, 1, 64), 1);
  setenv(kName, "64", 1);
  EXPECT_EQ(integerFromEnvironment(kName, 1, 64), 64);
  unsetenv(kName);
}

TEST(Environment, EverythingElseIsAnErrorNamingTheVariable) {
  EXPECT_EQ(errorFor("65"), "LOOPFUSE_TEST_INTEGER must be a number from 1 to 64, got '65'");
  EXPECT_EQ(errorFor("0"), "LOOPFUSE_TEST_INTEGER must be a number from 1 to 64, got '0'");
  EXPECT_EQ(errorFor("4x"), "LOOPFUSE_TEST_INTEGER must be a number from 1 to 64, got '4x'");
  EXPECT_EQ(errorFor("99999999999999999999"),
            "LOOPFUSE_TEST_INTEGER must be a number from 1 to 64, got '99999999999999999999'");
}

}  // namespace
}  // namespace lf
