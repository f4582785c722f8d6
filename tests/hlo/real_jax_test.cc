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

TEST(RealJax, CompiledDumpWithFusionsAndBackendConfig) {
  Module m = parseText(testdata("xla_compiled_random_normal.hlo"));
  EXPECT_EQ(m.name, "jit_random_normal");
  ASSERT_GE(m.attributes.size(), 2u);
  EXPECT_EQ(m.attributes[0].name, "is_scheduled");
  const Instruction* loop = nullptr;
  for (const Computation& c : m.computations)
    if (const Instruction* i = c.find("while.29")) loop = i;
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->shape.toString(),
            "(s32[], u32[4,3], u32[4,3], u32[], u32[], u32[], u32[4], u32[4])");
  EXPECT_EQ(loop->attr("condition")->value, "%region_1.2.clone.clone");
  EXPECT_EQ(loop->attr("backend_config")->value,
            R"({"dynamic_variables":[],"known_induction_variable":{"tuple_index":"0"},)"
            R"("known_init_step":{"init":"0","step":"1"},"known_trip_count":{"n":"5"}})");
  int fusions = 0;
  for (const Computation& c : m.computations)
    for (const Instruction& i : c.instructions)
      if (i.opcode == "fusion") {
        ++fusions;
        ASSERT_NE(i.attr("calls"), nullptr);
        std::string callee = i.attr("calls")->value.substr(1);  // without '%'
        EXPECT_NE(m.find(callee), nullptr) << callee;
      }
  EXPECT_EQ(fusions, 10);
}

TEST(RealJax, ShortFormKeepsSdyFrontendAttributes) {
  Module m = parseText(testdata("jax_random_normal.hlo"));
  ASSERT_EQ(m.attributes.size(), 2u);
  EXPECT_EQ(m.attributes[1].value, "{xla.sdy.meshes={empty_mesh = #sdy.mesh<[]>}}");
  const Instruction* key = nullptr;
  for (const Computation& c : m.computations)
    if (const Instruction* i = c.find("constant.42")) key = i;
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->literal->elements, std::vector<std::string>{"466688986"});
}

}  // namespace
}  // namespace lf::hlo
