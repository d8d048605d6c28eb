// Tool definitions in every client's shape, decoded by protocol/ into typed specs (what
// `crux parse --tools FILE` reads).
#include <gtest/gtest.h>

#include "crux/protocol/tools.h"

namespace crux::protocol {
namespace {

TEST(ToolSpecs, ReadsEveryClientShape) {
  auto tools = DecodeToolSpecs(R"([
    {"type": "function", "function": {"name": "get_weather", "description": "d",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"},
        "days": {"type": "integer"}, "unit": {"enum": ["c", "f"]},
        "note": {"type": ["string", "null"]}, "tags": {"type": "array"}}}}},
    {"type": "function", "name": "get_time", "parameters": {"properties": {"tz": {"type": "string"}}}},
    {"name": "search", "input_schema": {"properties": {"limit": {"type": "number"}}}},
    {"type": "web_search"}
  ])");
  ASSERT_TRUE(tools.ok()) << tools.error().message();
  ASSERT_EQ(tools->size(), 4u);
  const parse::ToolSpec& w = (*tools)[0];
  EXPECT_EQ(w.name, "get_weather");
  EXPECT_EQ(w.TypeOf("city"), parse::ParamType::kString);
  EXPECT_EQ(w.TypeOf("days"), parse::ParamType::kInteger);
  EXPECT_EQ(w.TypeOf("unit"), parse::ParamType::kString);
  EXPECT_EQ(w.TypeOf("note"), parse::ParamType::kString);
  EXPECT_EQ(w.TypeOf("tags"), parse::ParamType::kArray);
  EXPECT_EQ(w.TypeOf("missing"), parse::ParamType::kAny);
  EXPECT_EQ((*tools)[1].TypeOf("tz"), parse::ParamType::kString);
  EXPECT_EQ((*tools)[2].TypeOf("limit"), parse::ParamType::kNumber);
  EXPECT_EQ((*tools)[3].type, "web_search");
  EXPECT_NE(parse::FindTool(*tools, "get_time"), nullptr);
  EXPECT_EQ(parse::FindTool(*tools, "web_search"), nullptr);
}

TEST(ToolSpecs, BadToolsNameTheField) {
  auto r = DecodeToolSpecs(R"([{"type": "function", "function": {"parameters": {}}}])");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("tools[0].function.name"), std::string::npos);
  EXPECT_FALSE(DecodeToolSpecs("{").ok());
  EXPECT_FALSE(DecodeToolSpecs("{}").ok());
}

TEST(ToolSpecs, SchemasOfAnyDepthAreKept) {
  std::string schema;
  for (int i = 0; i < 20000; ++i)
    schema += "{\"items\":";
  schema += "{}";
  for (int i = 0; i < 20000; ++i)
    schema += "}";
  auto tools = DecodeToolSpecs(R"([{"name":"deep","input_schema":)" + schema + "}]");
  ASSERT_TRUE(tools.ok()) << tools.error().message();
  EXPECT_EQ((*tools)[0].parameters_json, schema);
}

}  // namespace
}  // namespace crux::protocol
