// For every tool-call format with a grammar: random calls written from its declaration
// parse back into the same calls (names, arguments as JSON), streamed in random chunkings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "crux/parse/output_parser.h"
#include "crux/parse/tools/registry.h"
#include "crux/protocol/tools.h"
#include "support/stream_check.h"

namespace crux::testing {
namespace {

using Json = nlohmann::ordered_json;

// Strings that every family can carry: quotes, backslashes, braces, newlines inside, unicode,
// a lone '<'; no leading/trailing whitespace and nothing that looks like a closing tag.
std::string RandomString(std::mt19937& rng) {
  static const std::vector<std::string> parts = {
      "Oslo",      "São Paulo",    "日本語", "🌍",   "a \"quoted\" word", "back\\slash",
      "{braces}",  "line1\nline2", "x < y",  "50%", "comma, separated",  "colon: value",
      "tab\there", "[1]"};
  std::string s = parts[rng() % parts.size()];
  if (rng() % 2) s += " " + parts[rng() % parts.size()];
  return s;
}

struct Generated {
  std::vector<parse::ToolCall> calls;
  Json tools = Json::array();
};

Generated Generate(std::mt19937& rng) {
  Generated g;
  const int count = 1 + static_cast<int>(rng() % 3);
  for (int c = 0; c < count; ++c) {
    const std::string name = "tool_" + std::to_string(c) + "_" + std::to_string(rng() % 100);
    Json args = Json::object();
    Json props = Json::object();
    const int nargs = static_cast<int>(rng() % 4);
    for (int a = 0; a < nargs; ++a) {
      const std::string key = "arg" + std::to_string(a);
      switch (rng() % 6) {
        case 0:
          args[key] = RandomString(rng);
          props[key] = {{"type", "string"}};
          break;
        case 1:
          args[key] = static_cast<int>(rng() % 2000) - 1000;
          props[key] = {{"type", "integer"}};
          break;
        case 2:
          args[key] = (rng() % 2) == 0;
          props[key] = {{"type", "boolean"}};
          break;
        case 3:
          args[key] = static_cast<double>(rng() % 1000) / 4.0 + 0.25;
          props[key] = {{"type", "number"}};
          break;
        case 4:
          args[key] = Json::array({RandomString(rng), static_cast<int>(rng() % 9)});
          props[key] = {{"type", "array"}};
          break;
        default:
          args[key] = {{"inner", RandomString(rng)}, {"n", static_cast<int>(rng() % 50)}};
          props[key] = {{"type", "object"}};
          break;
      }
    }
    g.calls.push_back({"", name, args.dump(), true});
    g.tools.push_back(
        {{"type", "function"},
         {"function",
          {{"name", name}, {"parameters", {{"type", "object"}, {"properties", props}}}}}});
  }
  return g;
}

std::vector<std::string> RandomChunks(const std::string& text, std::mt19937& rng) {
  std::vector<std::string> chunks;
  for (size_t pos = 0; pos < text.size();) {
    const size_t len = 1 + rng() % 9;
    chunks.push_back(text.substr(pos, len));
    pos += len;
  }
  return chunks;
}

TEST(ToolRoundTrip, RenderedCallsParseBack) {
  int families = 0;
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    if (info.grammar == nullptr) continue;
    ++families;
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 60; ++trial) {
      const Generated g = Generate(rng);
      const std::string text = parse::RenderToolCalls(*info.grammar, g.calls);
      parse::ToolParserOptions options;
      options.tools = *protocol::DecodeToolSpecs(g.tools.dump());
      options.id_seed = 3;
      auto parser = std::move(*parse::CreateToolParser(info.name, options));
      const parse::ParseResult complete = parse::ParseComplete(*parser, text);
      ASSERT_EQ(complete.tool_calls.size(), g.calls.size())
          << info.name << " did not read back its own rendering:\n"
          << text;
      for (size_t i = 0; i < g.calls.size(); ++i) {
        EXPECT_EQ(complete.tool_calls[i].name, g.calls[i].name) << info.name << "\n" << text;
        EXPECT_EQ(CanonicalJson(complete.tool_calls[i].arguments),
                  CanonicalJson(g.calls[i].arguments))
            << info.name << "\n"
            << text;
      }
      const auto streamed = RunChunked(*parser, RandomChunks(text, rng), {}, true);
      EXPECT_EQ(CompareResults(streamed.result, complete), "") << info.name << "\n" << text;
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(families, 0);
}

}  // namespace
}  // namespace crux::testing
