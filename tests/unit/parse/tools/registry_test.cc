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

// Every tool-parser name of vLLM's registry (vllm/tool_parsers, late 2026: the union of its
// recent tables) and of SGLang's ToolCallParserEnum resolves, so a deployment moved to crux
// keeps its --tool-call-parser flag.
TEST(ToolRegistry, EveryVllmAndSglangNameIsRegistered) {
  const char* vllm[] = {"apertus",
                        "cohere_command3",
                        "cohere_command4",
                        "deepseek_v3",
                        "deepseek_v31",
                        "deepseek_v32",
                        "deepseek_v4",
                        "dots",
                        "ernie45",
                        "functiongemma",
                        "gemma4",
                        "gigachat3",
                        "glm45",
                        "glm47",
                        "granite",
                        "granite-20b-fc",
                        "granite4",
                        "hermes",
                        "hunyuan_a13b",
                        "hy_v3",
                        "hy_v4",
                        "inkling",
                        "internlm",
                        "jamba",
                        "kimi_k2",
                        "kimi_k3",
                        "lfm2",
                        "ling3",
                        "llama3_json",
                        "llama4_json",
                        "llama4_pythonic",
                        "longcat",
                        "mimo",
                        "minicpm5",
                        "minimax",
                        "minimax_m2",
                        "minimax_m3",
                        "mistral",
                        "muse_glimmer",
                        "olmo3",
                        "openai",
                        "phi4_mini_json",
                        "poolside_v1",
                        "pythonic",
                        "qwen3_coder",
                        "qwen3_xml",
                        "seed_oss",
                        "solar_open2",
                        "step3",
                        "step3p5",
                        "xlam"};
  const char* sglang[] = {"apertus2509", "cohere_command4",
                          "deepseekv3",  "deepseekv31",
                          "deepseekv32", "deepseekv4",
                          "dots",        "glm",
                          "glm45",       "glm47",
                          "gpt-oss",     "k2_horizon",
                          "kimi_k2",     "kimi_k3",
                          "lfm2",        "ling3",
                          "llama3",      "mimo",
                          "minicpm5",    "mistral",
                          "muse",        "poolside_v1",
                          "pythonic",    "qwen",
                          "qwen25",      "qwen3_coder",
                          "spark25",     "step3",
                          "step3p5",     "minimax-m2",
                          "minimax-m3",  "trinity",
                          "interns1",    "hermes",
                          "hunyuan",     "gigachat3",
                          "gigachat35",  "gemma4",
                          "inkling"};
  for (const char* name : vllm)
    EXPECT_NE(FindParserInfo(ToolParsers(), name), nullptr) << "vLLM " << name;
  for (const char* name : sglang) {
    EXPECT_NE(FindParserInfo(ToolParsers(), name), nullptr) << "SGLang " << name;
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
