// Module and computation structure in the forms XLA prints: JAX's short form, the long form with
// `%` names, operand shapes and computation signatures, and dump-file headers.
#include <chrono>
#include <cstdio>

#include "hlo/parse_helpers.h"

namespace lf::hlo {
namespace {

using testing::locString;
using testing::parseText;

TEST(Module, ShortForm) {
  Module m = parseText(R"(HloModule jit_f, entry_computation_layout={(f32[2]{0})->f32[2]{0}}

region_0.5 {
  Arg_0.6 = f32[] parameter(0)
  Arg_1.7 = f32[] parameter(1)
  ROOT add.8 = f32[] add(Arg_0.6, Arg_1.7)
}

ENTRY main.3 {
  x.1 = f32[2]{0} parameter(0)
  c = f32[] constant(0)
  ROOT r = f32[] reduce(x.1, c), dimensions={0}, to_apply=region_0.5
}
)");
  EXPECT_EQ(m.name, "jit_f");
  EXPECT_EQ(locString(m.loc), "1:1");
  ASSERT_EQ(m.computations.size(), 2u);
  EXPECT_EQ(m.entryIndex, 1);
  const Computation& region = m.computations[0];
  EXPECT_EQ(region.name, "region_0.5");
  EXPECT_EQ(locString(region.loc), "3:1");
  EXPECT_FALSE(region.isEntry);
  EXPECT_EQ(region.rootIndex, 2);
  const Instruction& p1 = region.instructions[1];
  EXPECT_EQ(p1.name, "Arg_1.7");
  EXPECT_EQ(locString(p1.loc), "5:3");
  EXPECT_EQ(p1.opcode, "parameter");
  EXPECT_EQ(locString(p1.opcodeLoc), "5:19");
  EXPECT_EQ(p1.parameterNumber, 1);
  EXPECT_TRUE(p1.operands.empty());
  const Instruction& add = region.root();
  EXPECT_TRUE(add.isRoot);
  ASSERT_EQ(add.operands.size(), 2u);
  EXPECT_EQ(add.operands[0].name, "Arg_0.6");
  EXPECT_EQ(locString(add.operands[1].loc), "6:35");
  EXPECT_FALSE(add.operands[0].shape.has_value());
  const Computation& entry = m.entry();
  EXPECT_TRUE(entry.isEntry);
  EXPECT_EQ(entry.root().attr("to_apply")->value, "region_0.5");
  EXPECT_EQ(entry.find("c")->shape.toString(), "f32[]");
  EXPECT_EQ(entry.find("nope"), nullptr);
  EXPECT_EQ(m.find("region_0.5"), &m.computations[0]);
  EXPECT_EQ(m.find("main"), nullptr);
}

TEST(Module, LongFormWithSignaturesAndOperandShapes) {
  Module m = parseText(R"(HloModule m, is_scheduled=true

%body (p: (s32[], f32[2]), q: token[]) -> (s32[], f32[2]) {
  %p = (s32[], f32[2]{0}) parameter(0)
  %i = s32[] get-tuple-element((s32[], f32[2]{0}) %p), index=0
  %v = f32[2]{0} get-tuple-element((s32[], f32[2]{0}) %p), index=1
  %w = f32[2]{0} add(f32[2]{0} %v, f32[2]{0} %v)
  ROOT %t = (s32[], f32[2]{0}) tuple(s32[] %i, f32[2]{0} %w)
}

ENTRY %main.9 (x: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0)
  ROOT %n = f32[2]{0} negate(f32[2]{0} %x)
}, execution_thread="main"
)");
  ASSERT_EQ(m.computations.size(), 2u);
  EXPECT_EQ(m.computations[0].name, "body");
  EXPECT_EQ(m.entry().name, "main.9");
  EXPECT_EQ(m.attributes[0].name, "is_scheduled");
  EXPECT_EQ(m.attributes[0].value, "true");
  const Instruction& gte = m.computations[0].instructions[1];
  EXPECT_EQ(gte.name, "i");
  ASSERT_EQ(gte.operands.size(), 1u);
  EXPECT_EQ(gte.operands[0].name, "p");
  ASSERT_TRUE(gte.operands[0].shape.has_value());
  EXPECT_EQ(gte.operands[0].shape->toString(), "(s32[], f32[2])");
  EXPECT_EQ(locString(gte.operands[0].loc), "5:51");
  EXPECT_EQ(m.computations[0].root().operands[1].shape->toString(), "f32[2]");
}

TEST(Module, LastComputationIsEntryAndLastInstructionIsRootByDefault) {
  Module m = parseText(R"(HloModule m
a {
  x = f32[] parameter(0)
}
b {
  y = f32[] parameter(0)
  z = f32[] negate(y)
}
)");
  EXPECT_EQ(m.entryIndex, 1);
  EXPECT_FALSE(m.entry().isEntry);
  EXPECT_EQ(m.entry().rootIndex, 1);
  EXPECT_EQ(m.entry().root().name, "z");
  EXPECT_FALSE(m.entry().root().isRoot);
}

TEST(Module, EntryNeedNotBeLast) {
  Module m = parseText(
      "HloModule m\nENTRY e {\n x = f32[] parameter(0)\n}\nf {\n y = s32[] parameter(0)\n}\n");
  EXPECT_EQ(m.entryIndex, 0);
  EXPECT_EQ(m.entry().name, "e");
}

TEST(Module, OperandsMayBeDefinedLater) {
  Module m = parseText(R"(HloModule m
ENTRY e {
  ROOT r = f32[] add(a, b)
  b = f32[] constant(2)
  a = f32[] parameter(0)
})");
  EXPECT_EQ(m.entry().rootIndex, 0);
  EXPECT_EQ(m.entry().root().operands[1].name, "b");
}

TEST(Module, NestedOperandInstructionsAreHoisted) {
  Module m = parseText(R"(HloModule m
ENTRY e {
  x = f32[] parameter(0)
  ROOT r = f32[] add(f32[] constant(1), f32[] multiply(x, f32[] constant(2)))
})");
  const Computation& e = m.entry();
  // Hoisted in the order their operand lists close, before their user.
  ASSERT_EQ(e.instructions.size(), 5u);
  EXPECT_EQ(e.instructions[1].name, "constant#1");
  EXPECT_EQ(e.instructions[1].literal->elements, std::vector<std::string>{"1"});
  EXPECT_EQ(locString(e.instructions[1].loc), "4:22");
  EXPECT_EQ(e.instructions[2].name, "constant#3");
  EXPECT_EQ(e.instructions[3].name, "multiply#2");
  EXPECT_EQ(e.instructions[3].opcode, "multiply");
  EXPECT_EQ(e.instructions[3].shape.toString(), "f32[]");
  EXPECT_EQ(e.instructions[3].operands[1].name, "constant#3");
  EXPECT_EQ(e.root().name, "r");
  EXPECT_EQ(e.root().operands[0].name, "constant#1");
  EXPECT_EQ(e.root().operands[1].name, "multiply#2");
}

TEST(Module, DumpFileHeaderCommentsAndStackFrameTables) {
  Module m = parseText(R"(// A dump of module jit_g
HloModule jit_g, is_scheduled=true, entry_computation_layout={(f32[2,2]{1,0}, /*index=1*/f32[2]{0})->f32[2]{0}}, allow_spmd_sharding_propagation_to_output={true}, frontend_attributes={fingerprint_before_lhs="abc"}, input_output_alias={ {0}: (0, {}, may-alias) }

FileNames
1 "/x.py"

FunctionNames
1 "g"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=9}

StackFrames
1 {file_location_id=1 parent_frame_id=1}

/* the body */
ENTRY %main (a: f32[2,2], b: f32[2]) -> f32[2] {
  %a = f32[2,2]{1,0} parameter(0) // first
  %b = f32[2]{0} parameter(1)
  ROOT %d = f32[2]{0} dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(g)/dot_general" stack_frame_id=1}
} // main
)");
  ASSERT_EQ(m.attributes.size(), 5u);
  EXPECT_EQ(m.attributes[4].value, "{ {0}: (0, {}, may-alias) }");
  EXPECT_EQ(m.attributes[1].value, "{(f32[2,2]{1,0}, /*index=1*/f32[2]{0})->f32[2]{0}}");
  EXPECT_EQ(m.attributes[3].name, "frontend_attributes");
  EXPECT_EQ(m.attributes[3].value, R"({fingerprint_before_lhs="abc"})");
  EXPECT_EQ(locString(m.attributes[3].loc), "2:164");
  ASSERT_EQ(m.computations.size(), 1u);
  EXPECT_EQ(m.entry().instructions.size(), 3u);
  EXPECT_EQ(m.entry().root().attributes.size(), 3u);
}

TEST(Module, UnknownOpcodesAndElementTypesAreLeftToTheFrontend) {
  Module m = parseText(R"(HloModule m
ENTRY e {
  a = c64[2] parameter(0)
  b = f8e4m3fn[2] frobnicate(a)
  ROOT t = token[] after-all()
})");
  EXPECT_EQ(m.entry().instructions[0].shape.elementType, "c64");
  EXPECT_EQ(m.entry().instructions[1].opcode, "frobnicate");
  EXPECT_EQ(m.entry().root().shape.toString(), "token[]");
  EXPECT_TRUE(m.entry().root().operands.empty());
}

// Timing means nothing in unoptimised or sanitizer builds (and takes ~10 s there).
#if defined(__SANITIZE_ADDRESS__)
#define LF_TIMING_IS_MEANINGFUL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LF_TIMING_IS_MEANINGFUL 0
#endif
#endif
#if !defined(LF_TIMING_IS_MEANINGFUL) && defined(NDEBUG)
#define LF_TIMING_IS_MEANINGFUL 1
#elif !defined(LF_TIMING_IS_MEANINGFUL)
#define LF_TIMING_IS_MEANINGFUL 0
#endif

TEST(Module, TenMegabyteConstantParsesQuickly) {
  if (!LF_TIMING_IS_MEANINGFUL) GTEST_SKIP() << "not an optimised, unsanitised build";
  std::string text = "HloModule big\nENTRY e {\n  ROOT c = f32[1000,1000] constant({";
  for (int i = 0; i < 1000; ++i) {
    text += i ? ", {" : "{";
    for (int j = 0; j < 1000; ++j) text += j ? ", 0.123456" : "0.123456";
    text += "}";
  }
  text += "})\n}\n";
  ASSERT_GT(text.size(), 10'000'000u);
  auto start = std::chrono::steady_clock::now();
  Module m = parseText(text);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(m.entry().root().literal->elements.size(), 1'000'000u);
  EXPECT_EQ(m.entry().root().literal->elements.back(), "0.123456");
  // About 0.2 s on one core of a loaded machine; the bound leaves room for slow CI runners.
  EXPECT_LT(seconds, 2.0);
  std::printf("10 MB constant parsed in %.3f s\n", seconds);
}

}  // namespace
}  // namespace lf::hlo
