// The whole pipeline: its order, the verifier after every pass on every corpus program, and what it
// must achieve on the seed program.
#include "passes/pipeline.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "pass_test_util.h"

namespace lf::passes::testing {
namespace {

namespace fs = std::filesystem;
using K = ir::OpKind;

const fs::path kCorpus = fs::path(LF_SOURCE_DIR) / "tests" / "programs";

ir::Program importFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  SourceFile file(path.string(), text.str());
  return frontend::importModule(hlo::parseModule(file));
}

int countOps(const ir::Region& region, K kind) {
  return static_cast<int>(std::count_if(region.ops.begin(), region.ops.end(),
                                        [&](const auto& op) { return op->kind == kind; }));
}

TEST(Pipeline, RunsThePassesInOrder) {
  ir::Program p = importHlo(R"(HloModule m
ENTRY main {
  ROOT x = f32[] parameter(0)
})");
  std::vector<std::string> names;
  runPasses(p, [&](const char* name, const ir::Program&) { names.push_back(name); });
  EXPECT_EQ(names,
            (std::vector<std::string>{"host-callbacks", "dce", "divide", "multiply",
                                      "excess-precision", "simplify", "cse", "licm", "unroll",
                                      "simplify", "cse", "dce", "contract", "dce", "dot-layout"}));
}

// Every corpus program (both lowerings) still verifies after each pass. Whether the results stay
// right is the corpus run test's job (ctest -R Corpus): it runs the pipeline's output against JAX.
TEST(Pipeline, CorpusVerifiesAfterEveryPass) {
  int programs = 0;
  for (const auto& entry : fs::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".hlo") continue;
    SCOPED_TRACE(entry.path().filename().string());
    ir::Program p = importFile(entry.path());
    ASSERT_EQ(verifierErrors(p), "");
    runPasses(p, [&](const char* name, const ir::Program& after) {
      EXPECT_EQ(verifierErrors(after), "") << "after " << name;
    });
    ++programs;
  }
  EXPECT_GT(programs, 100);
}

// The seed program's loop: softplus(w) of both layers leaves it (one exp and one log1p each, on
// the weights), and jax.random's two threefry calls inside it (a 5-trip loop each, as jax writes
// the hash) are two threefry2x32 ops: no loop is left in the body.
TEST(Pipeline, SeedProgramHoistsSoftplusAndHashesInPlace) {
  ir::Program p = importFile(kCorpus / "seed_x64.hlo");
  runPasses(p);
  ASSERT_EQ(countOps(p.body, K::While), 1);
  auto loop = std::find_if(p.body.ops.begin(), p.body.ops.end(),
                           [](const auto& op) { return op->kind == K::While; });
  const ir::Region& body = *(*loop)->regions[1];
  EXPECT_EQ(countOps(p.body, K::Log1p), 2);
  EXPECT_EQ(countOps(p.body, K::Exp), 2);
  EXPECT_EQ(countOps(body, K::While), 0);
  EXPECT_EQ(countOps(body, K::Threefry2x32), 2);
  // The loop keeps only its changing state: the sample, the key and the iteration count (the
  // weights and the iteration limit passed through unchanged).
  EXPECT_EQ((*loop)->results.size(), 3u);
  // `loopfuse explain` names the loop each hoisted op left.
  int hoisted = 0;
  for (const auto& op : p.body.ops) {
    if (op->kind == K::Log1p) {
      EXPECT_EQ(op->hoistedFrom, (*loop)->name);
      ++hoisted;
    }
  }
  EXPECT_EQ(hoisted, 2);
}

}  // namespace
}  // namespace lf::passes::testing
