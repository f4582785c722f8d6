// Attributes after the operands are kept as their exact text, with locations of name and value.
#include "hlo/parse_helpers.h"

namespace lf::hlo {
namespace {

using testing::locString;
using testing::parseText;

// The attributes of `ROOT r = f32[2] op(x), <attrs>` with helper computations f, g, h defined.
std::vector<Attribute> attributesOf(const std::string& attrs) {
  static Module m;
  m = parseText(R"(HloModule m
f {
  a = f32[] parameter(0)
}
g {
  b = f32[] parameter(0)
}
h {
  c = f32[] parameter(0)
}
ENTRY e {
  x = f32[2] parameter(0)
  ROOT r = f32[2] op(x), )" +
                attrs + "\n}\n");
  return m.entry().root().attributes;
}

// name=value pairs joined with " | ".
std::string pairs(const std::vector<Attribute>& attrs) {
  std::string s;
  for (const Attribute& a : attrs) s += (s.empty() ? "" : " | ") + a.name + "=" + a.value;
  return s;
}

TEST(Attribute, LocationsOfNameAndValue) {
  auto attrs = attributesOf("dimensions={0,1},  direction=LT");
  ASSERT_EQ(attrs.size(), 2u);
  // "  ROOT r = f32[2] op(x), " is 25 characters; the attributes are on line 13.
  EXPECT_EQ(locString(attrs[0].loc), "13:26");
  EXPECT_EQ(locString(attrs[0].valueLoc), "13:37");
  EXPECT_EQ(locString(attrs[1].loc), "13:45");
  EXPECT_EQ(locString(attrs[1].valueLoc), "13:55");
}

TEST(Attribute, ListsSlicesWindowsAndLabels) {
  EXPECT_EQ(pairs(attributesOf("dimensions={}, dimensions={1,0}, index=3, iota_dimension=0")),
            "dimensions={} | dimensions={1,0} | index=3 | iota_dimension=0");
  EXPECT_EQ(pairs(attributesOf("slice={[0:2], [1:7:2]}, dynamic_slice_sizes={1,128}")),
            "slice={[0:2], [1:7:2]} | dynamic_slice_sizes={1,128}");
  EXPECT_EQ(
      pairs(attributesOf(
          "window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1}, dim_labels=b01f_01io->b01f, "
          "feature_group_count=1")),
      "window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1} | "
      "dim_labels=b01f_01io->b01f | feature_group_count=1");
  EXPECT_EQ(pairs(attributesOf("padding=0_0x1_-1_2")), "padding=0_0x1_-1_2");
}

TEST(Attribute, GatherScatterAndDot) {
  EXPECT_EQ(pairs(attributesOf("offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
                               "index_vector_dim=1, slice_sizes={1,3}, indices_are_sorted=true")),
            "offset_dims={1} | collapsed_slice_dims={0} | start_index_map={0} | "
            "index_vector_dim=1 | slice_sizes={1,3} | indices_are_sorted=true");
  EXPECT_EQ(pairs(attributesOf("update_window_dims={}, inserted_window_dims={0}, "
                               "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=f")),
            "update_window_dims={} | inserted_window_dims={0} | scatter_dims_to_operand_dims={0} | "
            "index_vector_dim=1 | to_apply=f");
  EXPECT_EQ(pairs(attributesOf("lhs_batch_dims={0}, lhs_contracting_dims={1}, "
                               "rhs_batch_dims={0}, rhs_contracting_dims={2}, "
                               "operand_precision={highest,highest}")),
            "lhs_batch_dims={0} | lhs_contracting_dims={1} | rhs_batch_dims={0} | "
            "rhs_contracting_dims={2} | operand_precision={highest,highest}");
}

TEST(Attribute, CompareAndCalledComputations) {
  EXPECT_EQ(pairs(attributesOf("direction=LT, type=TOTALORDER")), "direction=LT | type=TOTALORDER");
  EXPECT_EQ(pairs(attributesOf("to_apply=%f")), "to_apply=%f");
  EXPECT_EQ(pairs(attributesOf("kind=kLoop, calls=%g")), "kind=kLoop | calls=%g");
  EXPECT_EQ(pairs(attributesOf("condition=f, body=g")), "condition=f | body=g");
  EXPECT_EQ(pairs(attributesOf("true_computation=f, false_computation=%g")),
            "true_computation=f | false_computation=%g");
  EXPECT_EQ(pairs(attributesOf("branch_computations={f, %g, h}")),
            "branch_computations={f, %g, h}");
}

TEST(Attribute, CustomCallBackendConfigMetadata) {
  EXPECT_EQ(
      pairs(attributesOf(
          R"(custom_call_target="cu_threefry2x32_ffi", operand_layout_constraints={f32[2]{0}}, api_version=API_VERSION_TYPED_FFI, backend_config={opaque = "x\9C\ED", n = 3 : i64})")),
      R"(custom_call_target="cu_threefry2x32_ffi" | operand_layout_constraints={f32[2]{0}} | )"
      R"(api_version=API_VERSION_TYPED_FFI | backend_config={opaque = "x\9C\ED", n = 3 : i64})");
  EXPECT_EQ(pairs(attributesOf(R"(backend_config={"a": {"b": 1}, "c": "}"})")),
            R"(backend_config={"a": {"b": 1}, "c": "}"})");
  EXPECT_EQ(pairs(attributesOf(R"(backend_config="x\"y, z")")), R"(backend_config="x\"y, z")");
  EXPECT_EQ(
      pairs(attributesOf(
          R"(metadata={op_type="add" op_name="jit(f)/add" source_file="/x.py" source_line=3})")),
      R"(metadata={op_type="add" op_name="jit(f)/add" source_file="/x.py" source_line=3})");
}

TEST(Attribute, ShardingFrontendAttributesControlPredecessors) {
  EXPECT_EQ(pairs(attributesOf("sharding={devices=[2,1]<=[2]}")), "sharding={devices=[2,1]<=[2]}");
  EXPECT_EQ(pairs(attributesOf("sharding={{replicated}, {maximal device=0}}")),
            "sharding={{replicated}, {maximal device=0}}");
  EXPECT_EQ(pairs(attributesOf(R"(frontend_attributes={_xla_stream_annotation="1",k="v"})")),
            R"(frontend_attributes={_xla_stream_annotation="1",k="v"})");
  EXPECT_EQ(pairs(attributesOf("control-predecessors={%x}")), "control-predecessors={%x}");
}

TEST(Attribute, CommentsAroundAndInsideValues) {
  auto attrs = attributesOf("dimensions={0, /*index=1*/1} // trailing\n  , index=2 /* c */");
  EXPECT_EQ(pairs(attrs), "dimensions={0, /*index=1*/1} | index=2");
  EXPECT_EQ(locString(attrs[1].loc), "14:5");
}

TEST(Attribute, SpansLines) {
  auto attrs = attributesOf("backend_config={\n  \"a\": 1\n}");
  EXPECT_EQ(attrs[0].value, "{\n  \"a\": 1\n}");
}

}  // namespace
}  // namespace lf::hlo
