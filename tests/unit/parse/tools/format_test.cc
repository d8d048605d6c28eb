// The format declarations: each format's grammar writes calls its own parser reads back, the
// documentation shows each format's canonical call as the grammar writes it, and
// auto-detection, built from the declared markers, picks a parser that reads every format's
// canonical call.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "crux/parse/call_grammar.h"
#include "crux/parse/parser.h"
#include "crux/parse/result.h"
#include "crux/parse/tool_spec.h"
#include "crux/parse/tools/registry.h"
#include "crux/protocol/tools.h"
#include "support/stream_check.h"

namespace crux::parse {
namespace {

// Tools whose parameters are typed, so that schema-typed families read values back exactly.
std::vector<ToolSpec> Tools() {
  return *protocol::DecodeToolSpecs(R"([
    {"type": "function", "function": {"name": "f", "parameters": {"type": "object",
      "properties": {"k": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
      "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                     "metric": {"type": "boolean"}, "where": {"type": "object"},
                     "tags": {"type": "array"}}}}}])");
}

ParseResult Parse(std::string_view parser_name, const std::string& text) {
  ToolParserOptions options;
  options.tools = Tools();
  auto parser = std::move(*CreateToolParser(parser_name, options));
  return ParseComplete(*parser, text);
}

// The documentation's spelling of a format line inside a table cell.
std::string TableCell(const std::string& line) {
  std::string out;
  for (char c : line) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '|') {
      out += "\\|";
    } else {
      out += c;
    }
  }
  return out;
}

TEST(ToolFormat, EveryFormatButAutoDeclaresAGrammar) {
  for (const ToolParserInfo& info : ToolParsers()) {
    if (info.name == "auto") {
      EXPECT_EQ(info.grammar, nullptr);
      continue;
    }
    ASSERT_NE(info.grammar, nullptr) << info.name;
    EXPECT_FALSE(GrammarMarkers(*info.grammar).empty()) << info.name;
  }
}

TEST(ToolFormat, CanonicalCallParsesBackIntoTheSameCall) {
  for (const ToolParserInfo& info : ToolParsers()) {
    if (info.grammar == nullptr) continue;
    const std::string text = FormatLine(*info.grammar);
    const ParseResult result = Parse(info.name, text);
    ASSERT_EQ(result.tool_calls.size(), 1u) << info.name << ":\n" << text;
    EXPECT_EQ(result.tool_calls[0].name, "f") << info.name;
    EXPECT_EQ(testing::CanonicalJson(result.tool_calls[0].arguments), R"({"k":"v"})") << info.name;
    EXPECT_FALSE(result.content.has_value()) << info.name << ": " << *result.content;
  }
}

TEST(ToolFormat, EveryLiteralOfTheGrammarIsWrittenByIt) {
  const std::vector<ToolCall> calls = {
      {"", "get_weather", R"({"city": "Oslo", "days": 3, "metric": true})", true},
      {"", "f", R"({"k": "v"})", true}};
  for (const ToolParserInfo& info : ToolParsers()) {
    if (info.grammar == nullptr) continue;
    const std::string text = RenderToolCalls(*info.grammar, calls);
    for (std::string_view marker : GrammarMarkers(*info.grammar)) {
      EXPECT_NE(text.find(marker), std::string::npos) << info.name << ": " << marker;
    }
    const ParseResult result = Parse(info.name, text);
    ASSERT_EQ(result.tool_calls.size(), 2u) << info.name << ":\n" << text;
    EXPECT_EQ(testing::CanonicalJson(result.tool_calls[0].arguments),
              R"({"city":"Oslo","days":3,"metric":true})")
        << info.name << ":\n"
        << text;
  }
}

TEST(ToolFormat, DetectMarkersAreUniqueOrResolvedByWhatFollows) {
  // Markers several formats declare are decided by the bytes after them (detect.cc).
  const std::vector<std::string_view> shared = {"<tool_call>", "<function=", "<|start|>",
                                                "<tool_calls>"};
  std::map<std::string_view, std::vector<std::string_view>> owners;
  for (const ToolParserInfo& info : ToolParsers()) {
    for (std::string_view marker : info.detect_markers)
      owners[marker].push_back(info.name);
  }
  for (const auto& [marker, names] : owners) {
    if (names.size() < 2) continue;
    EXPECT_NE(std::find(shared.begin(), shared.end(), marker), shared.end())
        << marker << " is declared by " << names.size() << " formats but nothing decides it";
  }
}

TEST(ToolFormat, AutoDetectionPicksAParserThatReadsEveryCanonicalCall) {
  for (const ToolParserInfo& info : ToolParsers()) {
    // Functionary's first call follows the `>>>` that its template writes into the prompt:
    // the output alone has no marker to detect.
    if (info.grammar == nullptr || info.name == "functionary") continue;
    const std::string text = FormatLine(*info.grammar);
    const std::optional<std::string_view> detected = DetectToolParserFromOutput(text);
    ASSERT_TRUE(detected.has_value()) << info.name << ":\n" << text;
    const ParseResult result = Parse(*detected, text);
    ASSERT_EQ(result.tool_calls.size(), 1u) << info.name << " detected as " << *detected;
    EXPECT_EQ(testing::CanonicalJson(result.tool_calls[0].arguments), R"({"k":"v"})")
        << info.name << " detected as " << *detected;
    const ParseResult automatic = Parse("auto", text);
    ASSERT_EQ(automatic.tool_calls.size(), 1u) << info.name << " through auto";
  }
}

TEST(ToolFormat, DocumentationShowsEachCanonicalCall) {
  std::ifstream file(std::string(CRUX_FIXTURE_DIR) + "/../../docs/tool-parsers.md");
  ASSERT_TRUE(file.good());
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string text = buffer.str();
  const size_t table = text.find("\n## All parsers");
  ASSERT_NE(table, std::string::npos);
  const std::string docs = text.substr(table);
  for (const ToolParserInfo& info : ToolParsers()) {
    if (info.grammar == nullptr) continue;
    const std::string row_start = "\n| `" + std::string(info.name) + "` |";
    const size_t row = docs.find(row_start);
    ASSERT_NE(row, std::string::npos) << info.name << " has no row in docs/tool-parsers.md";
    const std::string line = docs.substr(row + 1, docs.find('\n', row + 1) - row - 1);
    const std::string cell = TableCell(FormatLine(*info.grammar));
    EXPECT_NE(line.find(cell), std::string::npos)
        << info.name << ": the row should show the canonical call " << cell;
  }
}

}  // namespace
}  // namespace crux::parse

namespace crux::parse {
namespace {

// A parser is reused across streams (Reset): a stream cut off anywhere, a call left open in
// any state, leaves nothing behind for the next one.
TEST(ToolFormat, AParserReusedAfterAnyCutOffStreamReadsTheNextOneAsAFreshOne) {
  const std::vector<ToolCall> calls = {
      {"", "get_weather", R"({"city": "Oslo", "days": 3, "where": {"lat": 1}, "tags": ["a"]})",
       true},
      {"", "f", R"({"k": "v"})", true}};
  for (const ToolParserInfo& info : ToolParsers()) {
    if (info.grammar == nullptr) continue;
    const std::string text = RenderToolCalls(*info.grammar, calls);
    ToolParserOptions options;
    options.tools = Tools();
    options.id_seed = 5;
    auto fresh = std::move(*CreateToolParser(info.name, options));
    const ParseResult expected = ParseComplete(*fresh, text);
    auto reused = std::move(*CreateToolParser(info.name, options));
    for (size_t cut = 1; cut < text.size(); cut += 3) {
      ParseComplete(*reused, std::string_view(text).substr(0, cut));
      ASSERT_TRUE(ParseComplete(*reused, text) == expected)
          << info.name << " after a stream cut at byte " << cut << ":\n"
          << text.substr(0, cut);
    }
  }
}

}  // namespace
}  // namespace crux::parse
