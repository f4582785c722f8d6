// Real modules written by JAX (tests/hlo/testdata/generate.py): the short form of
// lowered.as_text(dialect="hlo") and the optimised XLA dump of compile().as_text(), with fusions,
// layouts, metadata, backend_config and stack-frame tables.
#include <filesystem>

#include "hlo/parse_helpers.h"

namespace lf::hlo {
namespace {

using testing::parseText;
using testing::readFile;

std::string testdata(const std::string& name) {
  return readFile(std::string(LF_SOURCE_DIR) + "/tests/hlo/testdata/" + name);
}

TEST(RealJax, EveryTestdataFileParses) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(LF_SOURCE_DIR) + "/tests/hlo/testdata")) {
    if (entry.path().extension() != ".hlo") continue;
    SCOPED_TRACE(entry.path().string());
    SourceFile file(entry.path().string(), readFile(entry.path().string()));
    try {
      Module m = parseModule(file);
      EXPECT_GE(m.entryIndex, 0);
      EXPECT_TRUE(m.entry().isEntry);
    } catch (const CompileError& e) {
      ADD_FAILURE() << file.format(e.diagnostics());
    }
    ++count;
  }
  EXPECT_GE(count, 12);
}

TEST(RealJax, ScanShortForm) {
  Module m = parseText(testdata("jax_scan_cumsum.hlo"));
  EXPECT_EQ(m.name, "jit_scan_cumsum");
  ASSERT_EQ(m.attributes.size(), 1u);
  EXPECT_EQ(m.attributes[0].name, "entry_computation_layout");
  EXPECT_EQ(m.attributes[0].value, "{(f32[5,3]{1,0})->(f32[3]{0}, f32[5,3]{1,0})}");
  ASSERT_EQ(m.computations.size(), 5u);
  EXPECT_EQ(m.entry().name, "main.5");
  const Instruction* loop = m.entry().find("while.6");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->opcode, "while");
  EXPECT_EQ(loop->shape.toString(), "(s32[], f32[3], f32[5,3], f32[5,3])");
  ASSERT_NE(loop->attr("condition"), nullptr);
  EXPECT_EQ(loop->attr("condition")->value, "region_1.4");
  EXPECT_EQ(loop->attr("body")->value, "region_0.3");
  EXPECT_EQ(m.entry().root().name, "tuple.3");
  const Computation* cond = m.find("region_1.4");
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->root().attr("direction")->value, "LT");
}

}  // namespace
}  // namespace lf::hlo
