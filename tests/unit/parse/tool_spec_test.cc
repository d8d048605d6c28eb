// Parameter typing read from tool schemas: the type names tool authors write, and nullability.
#include "crux/parse/tool_spec.h"

#include <gtest/gtest.h>

namespace crux::parse {
namespace {

TEST(ParamTypeFromName, ReadsJsonSchemaNamesAndLooserSpellings) {
  EXPECT_EQ(ParamTypeFromName("number"), ParamType::kNumber);
  EXPECT_EQ(ParamTypeFromName("float"), ParamType::kNumber);
  EXPECT_EQ(ParamTypeFromName("float64"), ParamType::kNumber);
  EXPECT_EQ(ParamTypeFromName("double"), ParamType::kNumber);
  EXPECT_EQ(ParamTypeFromName("integer"), ParamType::kInteger);
  EXPECT_EQ(ParamTypeFromName("int"), ParamType::kInteger);
  EXPECT_EQ(ParamTypeFromName("uint8"), ParamType::kInteger);
  EXPECT_EQ(ParamTypeFromName("long"), ParamType::kInteger);
  EXPECT_EQ(ParamTypeFromName("Boolean"), ParamType::kBoolean);
  EXPECT_EQ(ParamTypeFromName("bool"), ParamType::kBoolean);
  EXPECT_EQ(ParamTypeFromName("str"), ParamType::kString);
  EXPECT_EQ(ParamTypeFromName("varchar"), ParamType::kString);
  EXPECT_EQ(ParamTypeFromName("dict[str, int]"), ParamType::kObject);
  EXPECT_EQ(ParamTypeFromName("list[str]"), ParamType::kArray);
  EXPECT_EQ(ParamTypeFromName("sequence"), ParamType::kArray);
  EXPECT_EQ(ParamTypeFromName("null"), ParamType::kNull);
  EXPECT_EQ(ParamTypeFromName("date"), ParamType::kAny);
}

TEST(ToolSpecs, NullableParametersKeepTheirType) {
  auto spec = MakeToolSpec("f", "", R"({"properties": {
      "a": {"type": ["string", "null"]},
      "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
      "c": {"oneOf": [{"anyOf": [{"type": "float"}, {"type": "null"}]}]},
      "d": {"type": "string"},
      "e": {"type": ["string", "integer", "null"]}}})");
  ASSERT_TRUE(spec.ok());
  const ToolParam* a = spec->Param("a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->type, ParamType::kString);
  EXPECT_TRUE(a->nullable);
  EXPECT_EQ(spec->Param("b")->type, ParamType::kInteger);
  EXPECT_TRUE(spec->Param("b")->nullable);
  EXPECT_EQ(spec->Param("c")->type, ParamType::kNumber);
  EXPECT_TRUE(spec->Param("c")->nullable);  // through a nested alternative
  EXPECT_FALSE(spec->Param("d")->nullable);
  EXPECT_EQ(spec->Param("e")->type, ParamType::kAny);  // two non-null types: open
  EXPECT_TRUE(spec->Param("e")->nullable);
  EXPECT_EQ(spec->Param("missing"), nullptr);
}

}  // namespace
}  // namespace crux::parse
