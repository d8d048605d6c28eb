#include "crux/parse/tools/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace crux::parse {
namespace {

TEST(ToolRegistry, EveryReferenceNameIsRegistered) {
  // The 36 names of the reference ToolParserManager.
  for (const char* name :
       {"auto",     "deepseek",    "deepseek_r1", "deepseek_v3", "functionary", "gemma4",
        "generic",  "glm4",        "glm47",       "gpt-oss",     "granite",     "granite3",
        "harmony",  "hermes",      "kimi",        "kimi_k2",     "llama",       "llama3",
        "llama4",   "meetkai",     "minimax",     "minimax_m2",  "mistral",     "moonshot",
        "nemotron", "nemotron3",   "nous",        "poolside_v1", "qwen",        "qwen3",
        "qwen3.5",  "qwen3_coder", "qwen3_xml",   "step",        "step3p5",     "xlam"}) {
    EXPECT_NE(FindParserInfo(ToolParsers(), name), nullptr) << name;
  }
}

TEST(ToolRegistry, NamesAreUniqueAndEachCreatesAParser) {
  std::set<std::string_view> seen;
  for (const ToolParserInfo& info : ToolParsers()) {
    EXPECT_TRUE(seen.insert(info.name).second) << info.name;
    for (std::string_view alias : info.aliases)
      EXPECT_TRUE(seen.insert(alias).second) << alias;
    EXPECT_FALSE(info.models.empty()) << info.name;
    EXPECT_FALSE(info.format.empty()) << info.name;
    auto parser = CreateToolParser(info.name);
    ASSERT_TRUE(parser.ok()) << info.name;
    ParseResult r = ParseComplete(**parser, "plain text");
    EXPECT_EQ(r.content, "plain text") << info.name;
    EXPECT_TRUE(r.tool_calls.empty()) << info.name;
  }
  EXPECT_GE(seen.size(), 36u);
}

TEST(ToolRegistry, UnknownNameListsAvailableParsers) {
  auto r = CreateToolParser("hermes2");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(r.error().message().find("unknown tool-call parser 'hermes2'; available: "),
            std::string::npos);
  EXPECT_NE(r.error().message().find("qwen3_xml"), std::string::npos);
}

}  // namespace
}  // namespace crux::parse
