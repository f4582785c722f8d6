// Every tests/malformed/NAME.hlo must fail to parse with exactly one diagnostic whose formatted
// first line is tests/malformed/NAME.expected. The parse runs in-process, so a crash (or, under
// ASan/UBSan, undefined behaviour) fails the test too.
#include <algorithm>
#include <filesystem>

#include "hlo/parse_helpers.h"

namespace lf::hlo {
namespace {

namespace fs = std::filesystem;

const std::string kMalformedDir = std::string(LF_SOURCE_DIR) + "/tests/malformed";

std::vector<std::string> caseNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kMalformedDir))
    if (entry.path().extension() == ".hlo") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class Malformed : public ::testing::TestWithParam<std::string> {};

TEST_P(Malformed, GivesTheExpectedDiagnostic) {
  const std::string& name = GetParam();
  std::string text = testing::readFile(kMalformedDir + "/" + name + ".hlo");
  std::string expected = testing::readFile(kMalformedDir + "/" + name + ".expected");
  ASSERT_FALSE(expected.empty()) << "missing " << name << ".expected";
  expected = expected.substr(0, expected.find('\n'));
  EXPECT_EQ(testing::firstErrorLine(text, name + ".hlo"), expected);
}

INSTANTIATE_TEST_SUITE_P(Files, Malformed, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

TEST(MalformedDirectory, HasEnoughCases) { EXPECT_GE(caseNames().size(), 25u); }

}  // namespace
}  // namespace lf::hlo
