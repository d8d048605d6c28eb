// Constrained tool calls on Qwen3's real vocabulary with random logits: for every family whose
// argument syntax the mechanism follows, every sampled block is extracted by the family's own
// parser, names declared tools and has arguments that validate against the tool's schema.
#include "crux/logits/tool_calls.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "crux/logits/processor.h"
#include "crux/logits/thinking.h"
#include "crux/parse/parser.h"
#include "crux/parse/registry.h"
#include "crux/parse/tools/registry.h"
#include "unit/logits/qwen3_vocab.h"

namespace crux::logits {
namespace {

using test::Qwen3Vocabulary;

constexpr const char* kWeather = R"({
  "type": "object",
  "properties": {
    "city": {"type": "string", "minLength": 1, "maxLength": 6},
    "unit": {"enum": ["celsius", "fahrenheit"]},
    "days": {"type": "integer", "minimum": 1, "maximum": 14}
  },
  "required": ["city", "unit"],
  "additionalProperties": false
})";

constexpr const char* kSearch = R"({
  "type": "object",
  "properties": {
    "query": {"type": "string", "maxLength": 8},
    "exact": {"type": "boolean"},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2}
  },
  "required": ["query"],
  "additionalProperties": false
})";

std::vector<parse::ToolSpec> Tools() {
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("get_weather", "", kWeather));
  tools.push_back(*parse::MakeToolSpec("search", "", kSearch));
  tools.push_back(*parse::MakeToolSpec(
      "get", "", R"({"type": "object", "properties": {}, "additionalProperties": false})"));
  return tools;
}

// Runs stay short: at most two blanks in a row inside JSON.
ToolCallOptions Options() {
  ToolCallOptions options;
  options.json.max_whitespace = 2;
  return options;
}

bool Follows(const parse::CallGrammar& grammar) {
  return grammar.args == parse::CallGrammar::Args::kJsonObject ||
         grammar.args == parse::CallGrammar::Args::kKeyValue;
}

int Bits(uint32_t word) {
  word = word - ((word >> 1) & 0x55555555u);
  word = (word & 0x33333333u) + ((word >> 2) & 0x33333333u);
  return static_cast<int>((((word + (word >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

// A uniform pick among the allowed tokens; end-of-generation as soon as it is allowed when
// `stop` (a model that stops when it may).
uint32_t Sample(LogitsProcessor& processor, std::vector<uint32_t>& mask, std::mt19937_64& random,
                bool stop) {
  EXPECT_TRUE(processor.FillMask(mask));
  if (stop && TestBit(mask, test::kImEnd)) return test::kImEnd;
  // Uniform by rejection where the mask is dense, by counting where it is not.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const auto token = static_cast<uint32_t>(random() % (mask.size() * 32));
    if (TestBit(mask, token)) return token;
  }
  size_t count = 0;
  for (const uint32_t word : mask)
    count += static_cast<size_t>(Bits(word));
  EXPECT_GT(count, 0u);
  if (count == 0) return test::kImEnd;
  size_t k = random() % count;
  for (size_t w = 0; w < mask.size(); ++w) {
    const auto bits = static_cast<size_t>(Bits(mask[w]));
    if (k >= bits) {
      k -= bits;
      continue;
    }
    uint32_t word = mask[w];
    for (; k > 0; --k)
      word &= word - 1;
    return static_cast<uint32_t>(w * 32 + static_cast<size_t>(__builtin_ctz(word)));
  }
  return test::kImEnd;
}

const std::string& TextOf(const LogitsProcessor& processor) {
  return static_cast<const ToolCallProcessor&>(processor).text();
}

struct Sampled {
  std::string text;
  std::vector<uint32_t> tokens;
  bool ended = false;
};

// `stop_percent`: how often end-of-generation is taken when allowed (otherwise parallel calls
// go on).
Sampled Generate(LogitsProcessor& processor, const std::string& (*text)(const LogitsProcessor&),
                 const constrain::Vocabulary& vocabulary, std::mt19937_64& random,
                 int stop_percent = 50, size_t max_tokens = 4000) {
  std::vector<uint32_t> mask(vocabulary.mask_words());
  Sampled run;
  for (size_t step = 0; step < max_tokens; ++step) {
    const uint32_t token =
        Sample(processor, mask, random, static_cast<int>(random() % 100) < stop_percent);
    run.tokens.push_back(token);
    EXPECT_TRUE(processor.Accept(token)) << "token " << token << " after: " << text(processor);
    if (::testing::Test::HasFailure()) {
      for (const uint32_t t : run.tokens)
        std::fprintf(stderr, "%u ", t);
      std::fprintf(stderr, "\n");
      break;
    }
    if (token == test::kImEnd || token == test::kEndOfText) {
      run.ended = true;
      break;
    }
  }
  run.text = text(processor);
  return run;
}

void CheckCalls(const parse::ToolParserInfo& info, const std::vector<parse::ToolSpec>& tools,
                const std::string& text, size_t min_calls, const std::string& context) {
  auto parser = info.create(parse::ToolParserOptions{.tools = tools, .id_seed = 1});
  const parse::ParseResult result = parse::ParseComplete(*parser, text);
  EXPECT_GE(result.tool_calls.size(), min_calls) << context << "\n" << text;
  for (const parse::ToolCall& call : result.tool_calls) {
    const parse::ToolSpec* tool = parse::FindTool(tools, call.name);
    ASSERT_NE(tool, nullptr) << context << " undeclared '" << call.name << "'\n" << text;
    auto ir = constrain::CompileSchema(tool->parameters_json);
    ASSERT_TRUE(ir.ok());
    const constrain::ValidationResult valid = constrain::Validate(*ir, call.arguments);
    EXPECT_TRUE(valid.valid()) << context << " " << call.name << " " << call.arguments << "\n"
                               << text;
  }
}

TEST(ToolCallsTest, EveryFamilyRequiredCallsParseAndValidate) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  size_t families = 0;
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    if (info.grammar == nullptr || !Follows(*info.grammar)) continue;
    ++families;
    auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
    ASSERT_TRUE(grammar.ok()) << info.name << ": " << grammar.error().message();
    std::mt19937_64 random(7);
    for (int run = 0; run < 100; ++run) {
      ToolCallProcessor processor(*grammar);
      const Sampled sampled = Generate(processor, TextOf, *vocabulary, random);
      const std::string context = std::string(info.name) + " run " + std::to_string(run);
      ASSERT_TRUE(sampled.ended) << context << " did not end:\n" << sampled.text;
      CheckCalls(info, tools, sampled.text, 1, context);
      if (HasFailure()) {
        for (const uint32_t t : sampled.tokens)
          std::fprintf(stderr, "%u ", t);
        std::fprintf(stderr, "\n");
        return;
      }
    }
  }
  EXPECT_GE(families, 40u);
}

}  // namespace
}  // namespace crux::logits
