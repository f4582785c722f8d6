// Issue #6, item 3: the programs whose loops carry large state (lax.scan with stacked xs/ys, the
// matmul scan of seed 001) update it in place or by swapping buffers, never by a per-iteration
// copy. The plan of each corpus program is inspected, after the same passes `loopfuse` runs.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "frontend/import.h"
#include "hlo/ast.h"
#include "passes/pipeline.h"
#include "plan/plan.h"

namespace lf::plan {
namespace {

std::string readCorpusFile(const std::string& name) {
  std::ifstream in(std::string(LF_SOURCE_DIR) + "/tests/programs/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class LoopCopies : public ::testing::TestWithParam<const char*> {};

TEST_P(LoopCopies, NoPerIterationCopies) {
  std::string text = readCorpusFile(GetParam());
  ASSERT_FALSE(text.empty()) << GetParam();
  ir::Program program = frontend::importModule(hlo::parseModule(SourceFile(GetParam(), text)));
  passes::runPasses(program);
  for (Target target : {Target::Cpu, Target::Cuda}) {
    Kernel k = plan(program, target);
    std::vector<std::string> copies = k.perIterationCopies();
    std::string all;
    for (const auto& c : copies) all += c + "\n";
    EXPECT_TRUE(copies.empty()) << GetParam() << " (" << targetName(target) << "):\n"
                                << all << k.explain();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, LoopCopies,
    ::testing::Values("loop_scan_xs_ys.hlo", "loop_scan_multi_carry.hlo", "loop_scan_reverse.hlo",
                      "loop_scan_unroll2.hlo", "loop_grad_scan.hlo", "loop_nested_scan_in_fori.hlo",
                      "loop_cond_switch_in_scan.hlo", "model_gru_scan.hlo",
                      "seed001_scan_matmul.hlo", "seed001_stacked_unrolled_bf16.hlo",
                      "seed001_unrolled_matmul.hlo", "seed_x64.hlo", "seed_f32.hlo"));

// The check can fail: the v1 plan (every value materialised) copies the stack of a scan.
TEST(LoopCopiesOracle, MaterialisedPlanOfAScanCopies) {
  std::string text = readCorpusFile("loop_scan_xs_ys.hlo");
  ir::Program program =
      frontend::importModule(hlo::parseModule(SourceFile("loop_scan_xs_ys.hlo", text)));
  passes::runPasses(program);
  Kernel k = plan(program, Target::Cpu, PlanOptions{false, 0});
  EXPECT_FALSE(k.perIterationCopies().empty()) << k.explain();
}

}  // namespace
}  // namespace lf::plan
