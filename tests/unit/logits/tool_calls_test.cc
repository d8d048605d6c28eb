// Constrained tool calls on Qwen3's real vocabulary with random logits: for every family whose
// argument syntax the mechanism follows, every sampled block is extracted by the family's own
// parser, names declared tools and has arguments that validate against the tool's schema.
#include "crux/logits/tool_calls.h"

#include <gtest/gtest.h>

#include <algorithm>
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
#include "crux/text/json_scan.h"
#include "crux/text/stream_buffer.h"
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
  return grammar.args != parse::CallGrammar::Args::kCustom || !grammar.argument.empty();
}

int Bits(uint32_t word) {
  word = word - ((word >> 1) & 0x55555555u);
  word = (word & 0x33333333u) + ((word >> 2) & 0x33333333u);
  return static_cast<int>((((word + (word >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
}

// A uniform pick among the allowed tokens; end-of-generation as soon as it is allowed when
// `stop` (a model that stops when it may).
uint32_t Sample(LogitsProcessor& processor, std::vector<uint32_t>& mask, std::mt19937_64& random,
                bool stop, uint32_t end = test::kImEnd) {
  EXPECT_TRUE(processor.FillMask(mask));
  if (stop && TestBit(mask, end)) return end;
  // Uniform by rejection where the mask is dense, by counting where it is not.
  for (int attempt = 0; attempt < 16; ++attempt) {
    const auto token = static_cast<uint32_t>(random() % (mask.size() * 32));
    if (TestBit(mask, token)) return token;
  }
  size_t count = 0;
  for (const uint32_t word : mask)
    count += static_cast<size_t>(Bits(word));
  EXPECT_GT(count, 0u);
  if (count == 0) return end;
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
  return end;
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
    // The vocabulary's last end-of-generation token (Qwen3: <|im_end|>).
    const uint32_t end = vocabulary.end_of_generation().back();
    const uint32_t token =
        Sample(processor, mask, random, static_cast<int>(random() % 100) < stop_percent, end);
    run.tokens.push_back(token);
    EXPECT_TRUE(processor.Accept(token)) << "token " << token << " after: " << text(processor);
    if (::testing::Test::HasFailure()) {
      for (const uint32_t t : run.tokens)
        std::fprintf(stderr, "%u ", t);
      std::fprintf(stderr, "\n");
      break;
    }
    const auto eog = vocabulary.end_of_generation();
    if (std::find(eog.begin(), eog.end(), token) != eog.end()) {
      run.ended = true;
      break;
    }
  }
  run.text = text(processor);
  return run;
}

// Parses `text` with the family's parser; every call must name a declared tool and carry
// arguments that validate. Returns the calls.
std::vector<parse::ToolCall> CheckCalls(const parse::ToolParserInfo& info,
                                        const std::vector<parse::ToolSpec>& tools,
                                        const std::string& text, size_t min_calls,
                                        const std::string& context) {
  auto parser = info.create(parse::ToolParserOptions{.tools = tools, .id_seed = 1});
  const parse::ParseResult result = parse::ParseComplete(*parser, text);
  EXPECT_GE(result.tool_calls.size(), min_calls) << context << "\n" << text;
  for (const parse::ToolCall& call : result.tool_calls) {
    const parse::ToolSpec* tool = parse::FindTool(tools, call.name);
    EXPECT_NE(tool, nullptr) << context << " undeclared '" << call.name << "'\n" << text;
    if (tool == nullptr) continue;
    auto ir = constrain::CompileSchema(tool->parameters_json);
    EXPECT_TRUE(ir.ok());
    if (!ir.ok()) continue;
    const constrain::ValidationResult valid = constrain::Validate(*ir, call.arguments);
    EXPECT_TRUE(valid.valid()) << context << " " << call.name << " " << call.arguments << "\n"
                               << text;
  }
  return result.tool_calls;
}

const parse::ToolParserInfo& Family(std::string_view name) {
  const parse::ToolParserInfo* info = parse::FindParserInfo(parse::ToolParsers(), name);
  EXPECT_NE(info, nullptr) << name;
  return *info;
}

// `text` as single-byte tokens.
std::vector<uint32_t> ByteTokens(const constrain::Vocabulary& vocabulary, std::string_view text) {
  std::vector<uint32_t> tokens;
  for (const char ch : text) {
    for (uint32_t id = 0; id < test::kEndOfText; ++id) {
      if (vocabulary.bytes(id) == std::string_view(&ch, 1)) {
        tokens.push_back(id);
        break;
      }
    }
  }
  EXPECT_EQ(tokens.size(), text.size());
  return tokens;
}

void PrintTokens(const std::vector<uint32_t>& tokens) {
  for (const uint32_t t : tokens)
    std::fprintf(stderr, "%u ", t);
  std::fprintf(stderr, "\n");
}

// Whether `text`, fed as single-byte tokens after `prefix`, is accepted; each byte must be in
// the mask exactly when Accept takes it.
bool TakesBytes(const std::shared_ptr<const ToolCallGrammar>& grammar,
                const constrain::Vocabulary& vocabulary, std::string_view prefix,
                std::string_view text) {
  ToolCallProcessor processor(grammar);
  std::vector<uint32_t> mask(vocabulary.mask_words());
  for (const uint32_t token : ByteTokens(vocabulary, prefix)) {
    if (!processor.Accept(token)) return false;
  }
  for (const uint32_t token : ByteTokens(vocabulary, text)) {
    processor.FillMask(mask);
    const bool allowed = TestBit(mask, token);
    EXPECT_EQ(allowed, processor.Clone()->Accept(token)) << "byte " << token << " of " << text;
    if (!allowed) return false;
    processor.Accept(token);
  }
  return true;
}

// After `prefix` (single-byte tokens), every token is in the mask exactly when Accept takes it
// (tried on a copy), and some token is.
void ExpectMaskIsAccept(const std::shared_ptr<const ToolCallGrammar>& grammar,
                        const constrain::Vocabulary& vocabulary, std::string_view prefix) {
  ToolCallProcessor at(grammar);
  for (const uint32_t token : ByteTokens(vocabulary, prefix))
    ASSERT_TRUE(at.Accept(token)) << prefix;
  std::vector<uint32_t> mask(vocabulary.mask_words());
  at.FillMask(mask);
  size_t allowed = 0;
  for (uint32_t token = 0; token < vocabulary.size(); ++token) {
    allowed += TestBit(mask, token) ? 1 : 0;
    ASSERT_EQ(TestBit(mask, token), at.Clone()->Accept(token)) << prefix << " " << token;
  }
  EXPECT_GT(allowed, 0u) << prefix;
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
      if (HasFailure()) return PrintTokens(sampled.tokens);
    }
  }
  EXPECT_GE(families, 40u);
}

// The same guarantees on vocabularies of other kinds: Llama 3's byte-level BPE (128,256 tokens)
// and Llama 2's SentencePiece (32,000, with byte tokens), 20 runs per family.
TEST(ToolCallsTest, EveryFamilyOnByteLevelAndSentencePieceVocabularies) {
  const auto models = constrain::test_data::LlamaCppDir() / "models";
  for (const char* file : {"ggml-vocab-llama-bpe.gguf", "ggml-vocab-llama-spm.gguf"}) {
    auto loaded = constrain::Vocabulary::FromGgufFile((models / file).string());
    if (!loaded.ok()) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
    auto vocabulary = std::make_shared<const constrain::Vocabulary>(*std::move(loaded));
    const std::vector<parse::ToolSpec> tools = Tools();
    for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
      if (info.grammar == nullptr || !Follows(*info.grammar)) continue;
      auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
      ASSERT_TRUE(grammar.ok()) << info.name << ": " << grammar.error().message();
      std::mt19937_64 random(11);
      for (int run = 0; run < 20; ++run) {
        ToolCallProcessor processor(*grammar);
        const Sampled sampled = Generate(processor, TextOf, *vocabulary, random);
        const std::string context =
            std::string(file) + " " + std::string(info.name) + " run " + std::to_string(run);
        ASSERT_TRUE(sampled.ended) << context << " did not end:\n" << sampled.text;
        CheckCalls(info, tools, sampled.text, 1, context);
        if (HasFailure()) return PrintTokens(sampled.tokens);
      }
    }
  }
}

// tool_choice "required" on Qwen3 for the formats people run most: 1,000 runs each.
TEST(ToolCallsTest, RequiredOnQwen3ThousandRunsPerFormat) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  for (const char* name : {"hermes", "qwen3_xml", "mistral", "llama", "harmony"}) {
    const parse::ToolParserInfo& info = Family(name);
    auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
    ASSERT_TRUE(grammar.ok()) << name << ": " << grammar.error().message();
    for (uint64_t seed = 0; seed < 1000; ++seed) {
      std::mt19937_64 random(seed);
      ToolCallProcessor processor(*grammar);
      const Sampled sampled = Generate(processor, TextOf, *vocabulary, random, 80);
      const std::string context = std::string(name) + " seed " + std::to_string(seed);
      ASSERT_TRUE(sampled.ended) << context << " did not end:\n" << sampled.text;
      CheckCalls(info, tools, sampled.text, 1, context);
      if (HasFailure()) return PrintTokens(sampled.tokens);
    }
  }
}

// tool_choice "auto": free text, then the family's start marker (hermes: the <tool_call> token
// itself; mistral: [TOOL_CALLS] spelled in text tokens), then a constrained call.
TEST(ToolCallsTest, AutoConstrainsTheCallAfterTheTrigger) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  for (const char* name : {"hermes", "mistral"}) {
    const parse::ToolParserInfo& info = Family(name);
    ToolCallOptions options = Options();
    options.mode = ToolChoiceMode::kAuto;
    for (std::string_view marker : info.detect_markers)
      options.start_markers.emplace_back(marker);
    auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, options);
    ASSERT_TRUE(grammar.ok()) << name << ": " << grammar.error().message();
    const std::vector<uint32_t> trigger = std::string_view(name) == "hermes"
                                              ? std::vector<uint32_t>{test::kToolCall}
                                              : ByteTokens(*vocabulary, "[TOOL_CALLS]");
    for (uint64_t seed = 0; seed < 1000; ++seed) {
      std::mt19937_64 random(seed);
      ToolCallProcessor processor(*grammar);
      std::vector<uint32_t> mask(vocabulary->mask_words());
      // A few words of free text: ordinary tokens without '<' or '['.
      const size_t words = random() % 4;
      for (size_t i = 0; i < words; ++i) {
        uint32_t token;
        do {
          token = static_cast<uint32_t>(random() % test::kEndOfText);
        } while (vocabulary->bytes(token).find_first_of("<[") != std::string_view::npos);
        ASSERT_TRUE(processor.FillMask(mask));
        ASSERT_TRUE(TestBit(mask, token)) << name << " free token " << token;
        ASSERT_TRUE(processor.Accept(token));
      }
      EXPECT_FALSE(processor.in_block());
      for (const uint32_t token : trigger) {
        ASSERT_TRUE(processor.FillMask(mask));
        ASSERT_TRUE(TestBit(mask, token)) << name << " trigger token " << token;
        ASSERT_TRUE(processor.Accept(token)) << name << " " << processor.text();
      }
      ASSERT_TRUE(processor.in_block()) << name << " " << processor.text();
      const Sampled sampled = Generate(processor, TextOf, *vocabulary, random, 80);
      const std::string context = std::string(name) + " seed " + std::to_string(seed);
      ASSERT_TRUE(sampled.ended) << context << " did not end:\n" << sampled.text;
      CheckCalls(info, tools, sampled.text, 1, context);
      if (HasFailure()) return PrintTokens(sampled.tokens);
    }
  }
}

// A format without a start marker (Llama 3.x bare JSON) is anchored: an answer that opens with
// the call's text is a constrained call; any other answer is free text with no call.
TEST(ToolCallsTest, AutoWithoutAMarkerIsAnchoredAtTheAnswersStart) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  const parse::ToolParserInfo& info = Family("llama");
  ToolCallOptions options = Options();
  options.mode = ToolChoiceMode::kAuto;
  auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, options);
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  size_t calls = 0;
  size_t prose = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 random(seed);
    ToolCallProcessor processor(*grammar);
    if (seed % 2 == 0) {
      // The call's opening text as single-byte tokens.
      for (const uint32_t token : ByteTokens(*vocabulary, "{\"name\": "))
        ASSERT_TRUE(processor.Accept(token));
      EXPECT_TRUE(processor.in_block());
    }
    const Sampled sampled = Generate(processor, TextOf, *vocabulary, random, 80, 3000);
    const std::string context = "llama seed " + std::to_string(seed);
    const std::vector<parse::ToolCall> found = CheckCalls(info, tools, sampled.text, 0, context);
    if (seed % 2 == 0) {
      ASSERT_TRUE(sampled.ended) << context << ":\n" << sampled.text;
      EXPECT_GE(found.size(), 1u) << context << ":\n" << sampled.text;
      calls += found.size();
    } else if (found.empty()) {
      ++prose;
    }
    if (HasFailure()) return PrintTokens(sampled.tokens);
  }
  EXPECT_GT(calls, 0u);
  EXPECT_GT(prose, 0u);
}

// pythonic under tool_choice auto: "[" then a declared name and "(" is a constrained call;
// "[" followed by anything else ("[1]", a markdown link) is an answer.
TEST(ToolCallsTest, AutoPythonicIsACallOnceItReachesTheArguments) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  const parse::ToolParserInfo& info = Family("pythonic");
  ToolCallOptions options = Options();
  options.mode = ToolChoiceMode::kAuto;
  auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, options);
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  const constrain::Vocabulary& v = *vocabulary;
  EXPECT_TRUE(TakesBytes(*grammar, v, "", "[see the docs](https://example.com)"));
  EXPECT_TRUE(TakesBytes(*grammar, v, "", "[get_weather] is a tool"));
  EXPECT_TRUE(TakesBytes(*grammar, v, "", "[get_weather(city=\"Paris\""));
  EXPECT_FALSE(TakesBytes(*grammar, v, "", "[get_weather(town="));  // a call from "(" on
  EXPECT_FALSE(TakesBytes(*grammar, v, "", "[get_weather(city=\"Paris\")] and"));
  size_t calls = 0;
  for (uint64_t seed = 0; seed < 100; ++seed) {
    std::mt19937_64 random(seed);
    ToolCallProcessor processor(*grammar);
    for (const uint32_t token : ByteTokens(v, seed % 2 == 0 ? "[search(" : "[sea"))
      ASSERT_TRUE(processor.Accept(token));
    EXPECT_EQ(processor.in_block(), seed % 2 == 0);
    const Sampled sampled = Generate(processor, TextOf, v, random, 80, 3000);
    const std::string context = "pythonic seed " + std::to_string(seed);
    const std::vector<parse::ToolCall> found = CheckCalls(info, tools, sampled.text, 0, context);
    if (seed % 2 == 0) {
      ASSERT_TRUE(sampled.ended) << context << ":\n" << sampled.text;
      EXPECT_GE(found.size(), 1u) << context << ":\n" << sampled.text;
      calls += found.size();
    }
    if (HasFailure()) return PrintTokens(sampled.tokens);
  }
  EXPECT_GE(calls, 50u);
}

// A named tool_choice allows that tool only; parallel_tool_calls false allows one call.
TEST(ToolCallsTest, NamedToolAndSingleCall) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  for (const char* name : {"hermes", "qwen3_xml", "kimi_k3"}) {
    const parse::ToolParserInfo& info = Family(name);
    ToolCallOptions options = Options();
    options.forced_tool = "search";
    options.parallel = false;
    auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, options);
    ASSERT_TRUE(grammar.ok()) << name << ": " << grammar.error().message();
    for (uint64_t seed = 0; seed < 100; ++seed) {
      std::mt19937_64 random(seed);
      ToolCallProcessor processor(*grammar);
      const Sampled sampled = Generate(processor, TextOf, *vocabulary, random, 0);
      const std::string context = std::string(name) + " seed " + std::to_string(seed);
      ASSERT_TRUE(sampled.ended) << context;
      const auto calls = CheckCalls(info, tools, sampled.text, 1, context);
      ASSERT_EQ(calls.size(), 1u) << context << ":\n" << sampled.text;
      EXPECT_EQ(calls[0].name, "search");
    }
  }
}

// Reasoning within its budget, then a constrained call: the thinking processor owns the tool
// grammar as its inner processor.
TEST(ToolCallsTest, ThinkingBudgetThenRequiredCallOnQwen3) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  const parse::ToolParserInfo& info = Family("hermes");
  auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
  ASSERT_TRUE(grammar.ok());
  std::vector<uint32_t> mask(vocabulary->mask_words());
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    std::mt19937_64 random(seed);
    const int budget = static_cast<int>(random() % 16);
    auto made = ThinkingProcessor::Create({.start = {test::kThink},
                                           .end = {test::kThinkEnd},
                                           .budget = budget,
                                           .prompt_opened = true,
                                           .vocabulary = vocabulary},
                                          std::make_unique<ToolCallProcessor>(*grammar));
    ASSERT_TRUE(made.ok());
    ThinkingProcessor& processor = **made;
    std::string content;
    int reasoning = 0;
    bool ended = false;
    for (int step = 0; step < 2000 && !ended; ++step) {
      const ThinkingPhase before = processor.phase();
      uint32_t token;
      if (!processor.FillMask(mask)) {
        do {
          token = static_cast<uint32_t>(random() % vocabulary->size());
        } while (vocabulary->is_special(token));
      } else {
        token = Sample(processor, mask, random, before == ThinkingPhase::kContent);
      }
      ASSERT_TRUE(processor.Accept(token)) << "seed " << seed << " token " << token;
      if (token == test::kImEnd || token == test::kEndOfText) {
        ended = true;
      } else if (before == ThinkingPhase::kThinking && token != test::kThinkEnd) {
        ++reasoning;
      } else if (processor.phase() == ThinkingPhase::kContent && token != test::kThinkEnd) {
        content.append(vocabulary->bytes(token));
      }
    }
    ASSERT_TRUE(ended) << "seed " << seed << ": " << content;
    EXPECT_LE(reasoning, budget) << "seed " << seed;
    CheckCalls(info, tools, content, 1, "seed " + std::to_string(seed));
    if (HasFailure()) return;
  }
}

// Random accepts and rollbacks leave the processor exactly where one rebuilt from the kept
// tokens stands: same mask, same text.
TEST(ToolCallsTest, RollbackMatchesARebuiltProcessor) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  std::vector<uint32_t> mask(vocabulary->mask_words());
  std::vector<uint32_t> expected(vocabulary->mask_words());
  for (const char* name : {"hermes", "qwen3_xml", "kimi_k3", "deepseek_v32"}) {
    auto grammar = ToolCallGrammar::Compile(*Family(name).grammar, tools, vocabulary, Options());
    ASSERT_TRUE(grammar.ok());
    for (uint64_t seed = 0; seed < 40; ++seed) {
      std::mt19937_64 random(seed);
      ToolCallProcessor processor(*grammar);
      std::vector<uint32_t> kept;
      for (int step = 0; step < 120; ++step) {
        if (!kept.empty() && random() % 4 == 0) {
          const size_t count = 1 + random() % std::min<size_t>(kept.size(), 6);
          ASSERT_TRUE(processor.Rollback(count));
          kept.resize(kept.size() - count);
        } else {
          const uint32_t token = Sample(processor, mask, random, false);
          if (token == test::kImEnd || token == test::kEndOfText) continue;
          ASSERT_TRUE(processor.Accept(token));
          kept.push_back(token);
        }
        ToolCallProcessor rebuilt(*grammar);
        for (const uint32_t token : kept)
          ASSERT_TRUE(rebuilt.Accept(token));
        ASSERT_EQ(processor.text(), rebuilt.text()) << name << " seed " << seed;
        processor.FillMask(mask);
        rebuilt.FillMask(expected);
        ASSERT_EQ(mask, expected) << name << " seed " << seed << " after " << rebuilt.text();
        ASSERT_EQ(processor.accepted(), kept.size());
      }
    }
  }
}

// A raw string value may span lines, blank lines included; what the model cannot write is the
// closing marker inside it, or a blank at either end.
TEST(ToolCallsTest, RawValuesSpanLinesButNeverHoldTheirMarker) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = {*parse::MakeToolSpec(
      "note", "", R"({"type": "object", "properties": {"text": {"type": "string"}}})")};
  const parse::ToolParserInfo& info = Family("qwen3_xml");
  auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
  ASSERT_TRUE(grammar.ok());
  const std::string call =
      "<tool_call>\n<function=note>\n<parameter=text>\nab\n\ncd\n</parameter>\n"
      "</function>\n</tool_call>";
  ToolCallProcessor processor(*grammar);
  for (const uint32_t token : ByteTokens(*vocabulary, call))
    ASSERT_TRUE(processor.Accept(token)) << processor.text();
  ASSERT_TRUE(processor.Accept(test::kImEnd));
  const auto calls = CheckCalls(info, tools, processor.text(), 1, "multi-line");
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].arguments, R"({"text": "ab\n\ncd"})");

  auto refused = [&](const std::string& prefix, const std::string& next) {
    ToolCallProcessor p(*grammar);
    for (const uint32_t token : ByteTokens(*vocabulary, prefix))
      EXPECT_TRUE(p.Accept(token)) << p.text();
    const std::vector<uint32_t> rest = ByteTokens(*vocabulary, next);
    for (size_t i = 0; i + 1 < rest.size(); ++i)
      EXPECT_TRUE(p.Accept(rest[i])) << p.text();
    std::vector<uint32_t> mask(vocabulary->mask_words());
    p.FillMask(mask);
    return !TestBit(mask, rest.back()) && !p.Accept(rest.back());
  };
  const std::string open = "<tool_call>\n<function=note>\n<parameter=text>\n";
  EXPECT_TRUE(refused(open + "ab", "</parameter>"));     // the marker inside the value
  EXPECT_TRUE(refused(open, " "));                       // a leading blank
  EXPECT_TRUE(refused(open + "ab ", "\n</parameter>"));  // a trailing blank
  // Once the terminator's marker is written, only the rest of the terminator follows.
  EXPECT_TRUE(refused(open + "ab\n</parameter>", "t"));
  ExpectMaskIsAccept(*grammar, *vocabulary, open + "ab\n</parameter>");
}

TEST(ToolCallsTest, ErrorsNameWhatIsWrong) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const std::vector<parse::ToolSpec> tools = Tools();
  ToolCallOptions named;
  named.forced_tool = "nope";
  auto unknown = ToolCallGrammar::Compile(*Family("hermes").grammar, tools, vocabulary, named);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message().find("'nope'"), std::string::npos);
  auto none = ToolCallGrammar::Compile(*Family("hermes").grammar, {}, vocabulary);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message().find("no callable tool"), std::string::npos);
  std::vector<parse::ToolSpec> bad = tools;
  bad[1].parameters_json = R"({"type": "objekt"})";
  auto invalid = ToolCallGrammar::Compile(*Family("hermes").grammar, bad, vocabulary);
  ASSERT_FALSE(invalid.ok());
  EXPECT_NE(invalid.error().message().find("tool 'search'"), std::string::npos)
      << invalid.error().message();
  // A required parameter whose every value the family reads back differently.
  std::vector<parse::ToolSpec> untyped = tools;
  untyped[2] = *parse::MakeToolSpec("get", "", R"({"type": "object", "properties": {
      "x": {"anyOf": [{"type": "string"}, {"type": "object"}]}}, "required": ["x"]})");
  auto scalars = ToolCallGrammar::Compile(*Family("minimax_m3").grammar, untyped, vocabulary);
  ASSERT_FALSE(scalars.ok());
  EXPECT_EQ(scalars.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(scalars.error().message().find("tool 'get': parameter 'x' is required"),
            std::string::npos)
      << scalars.error().message();
  std::vector<parse::ToolSpec> dashed = tools;
  dashed[2].parameters_json = R"({"type": "object", "properties": {"max-results": {}}})";
  auto keyword = ToolCallGrammar::Compile(*Family("pythonic").grammar, dashed, vocabulary);
  ASSERT_FALSE(keyword.ok());
  EXPECT_EQ(keyword.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(keyword.error().message().find("'max-results' is not a Python identifier"),
            std::string::npos)
      << keyword.error().message();
}

// Python-keyword arguments (pythonic, lfm2, olmo3): values are JSON with Python's True, False
// and None, and strings that Python reads as JSON does.
TEST(ToolCallsTest, PythonKeywordArgumentsReadAsPythonDoes) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("find", "", R"({"type": "object", "properties": {
      "q": {"type": "string", "maxLength": 6}, "exact": {"type": "boolean"},
      "limit": {"type": ["integer", "null"]}, "mode": {"enum": [true, "all", null]},
      "filters": {"type": "object", "additionalProperties": false, "properties": {
          "k": {"type": "array", "maxItems": 2, "items": {"type": ["boolean", "null"]}}}}},
      "required": ["q"], "additionalProperties": false})"));
  auto grammar = ToolCallGrammar::Compile(*Family("pythonic").grammar, tools, vocabulary);
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  const constrain::Vocabulary& v = *vocabulary;
  EXPECT_TRUE(TakesBytes(*grammar, v, "[find(", R"(q="a", exact=True, limit=None)])"));
  EXPECT_TRUE(
      TakesBytes(*grammar, v, "[find(", R"(q="a", mode=True, filters={"k": [False, None]})])"));
  EXPECT_TRUE(TakesBytes(*grammar, v, "[find(", R"(q="\t\u00e9\\\"")])"));
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(q="a", exact=true)"));
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(q="a", limit=null)"));
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(q="a", mode=False)"));
  // \/ is a slash in JSON but a backslash and a slash in Python; \ud83d\ude00 is one
  // character in JSON and two lone surrogates in Python.
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(q="a\/)"));
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(q="\ud8)"));
  EXPECT_TRUE(TakesBytes(*grammar, v, "[find(", R"(q="\ud7ff")"));
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(exact=True))"));   // q is required
  EXPECT_FALSE(TakesBytes(*grammar, v, "[find(", R"(q="a", q="b")"));  // once each
  // Through whole tokens: every allowed token with a backslash is accepted, and none of them
  // writes the escape \/ (the escape lexer of tools::PyEscape, from inside the string).
  ToolCallProcessor processor(*grammar);
  for (const uint32_t token : ByteTokens(v, R"([find(q="x)"))
    ASSERT_TRUE(processor.Accept(token));
  std::vector<uint32_t> mask(v.mask_words());
  processor.FillMask(mask);
  size_t with_backslash = 0;
  for (uint32_t token = 0; token < v.size(); ++token) {
    const std::string_view bytes = v.bytes(token);
    if (!TestBit(mask, token) || bytes.find('\\') == std::string_view::npos) continue;
    ++with_backslash;
    bool escape = false;
    for (const char ch : bytes) {
      EXPECT_FALSE(escape && ch == '/') << token << " " << bytes;
      escape = !escape && ch == '\\';
    }
    EXPECT_TRUE(processor.Clone()->Accept(token)) << token;
  }
  EXPECT_GT(with_backslash, 10u);
  // The whole mask against each token tried on a copy, inside an escape and around values.
  for (const char* prefix :
       {R"([find(q="x\)", R"([find(q="x\u)", R"([find(q="x\ud)", R"([find(q="x", exact=)",
        R"([find(exact=False)", R"([find(q="", filters={"k": [)"})
    ExpectMaskIsAccept(*grammar, v, prefix);
  // Sampled calls in all three families parse back with arguments that validate, and some of
  // them are written with Python's keywords.
  size_t keywords = 0;
  for (const char* name : {"pythonic", "lfm2", "olmo3"}) {
    const parse::ToolParserInfo& info = Family(name);
    auto family = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
    ASSERT_TRUE(family.ok()) << name << ": " << family.error().message();
    std::mt19937_64 random(3);
    for (int run = 0; run < 100; ++run) {
      ToolCallProcessor sampler(*family);
      const Sampled sampled = Generate(sampler, TextOf, v, random);
      const std::string context = std::string(name) + " run " + std::to_string(run);
      ASSERT_TRUE(sampled.ended) << context;
      CheckCalls(info, tools, sampled.text, 1, context);
      if (HasFailure()) return PrintTokens(sampled.tokens);
      for (const char* word : {"True", "False", "None"})
        keywords += sampled.text.find(word) != std::string::npos ? 1 : 0;
    }
  }
  EXPECT_GT(keywords, 10u);
}

// Gemma's literal arguments (gemma4, functiongemma): {k:<|"|>v<|"|>,n:1} — bare keys (a JSON
// string where a name cannot be bare), string parameters between the family's quotes, other
// values JSON, which the families' parsers read too.
TEST(ToolCallsTest, GemmaLiteralArgumentsQuoteStrings) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("find", "", R"({"type": "object", "properties": {
      "q": {"type": "string", "maxLength": 6}, "n": {"type": "integer"},
      "a:b": {"type": "boolean"}, "code": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 3},
      "unit": {"enum": ["c", "f<|\"|>"]}, "mode": {"enum": ["x", "y"]},
      "filters": {"type": "object", "additionalProperties": false, "properties": {
          "k": {"type": "array", "maxItems": 2, "items": {"type": ["boolean", "null"]}}}}},
      "required": ["q"], "additionalProperties": false})"));
  auto grammar = ToolCallGrammar::Compile(*Family("gemma4").grammar, tools, vocabulary);
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  const constrain::Vocabulary& v = *vocabulary;
  const std::string call = "<|tool_call>call:find{";
  EXPECT_TRUE(TakesBytes(*grammar, v, call, R"(q:<|"|>a b<|"|>,n:3}<tool_call|>)"));
  EXPECT_TRUE(TakesBytes(*grammar, v, call, R"(q:<|"|>é<|"|>,"a:b":true})"));
  EXPECT_TRUE(TakesBytes(*grammar, v, call, R"(q:<|"|>"x"<|"|>,filters:{"k": [false, null]})"));
  // A string held to a pattern is a JSON string, which the matcher enforces.
  EXPECT_TRUE(TakesBytes(*grammar, v, call, R"(q:<|"|>x<|"|>,mode:<|"|>y<|"|>,code:"ab"})"));
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(q:<|"|>x<|"|>,code:"a1)"));
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(q:<|"|>x<|"|>,code:<|"|>)"));
  // An enum value holding the quote is a JSON string.
  EXPECT_TRUE(TakesBytes(*grammar, v, call, R"(q:<|"|>x<|"|>,unit:"f<|\"|>"})"));
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(q:"x")"));           // strings are quoted
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(q:<|"|> x)"));       // no blank at either end
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(a:b:true)"));        // that key is quoted
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(n:3})"));            // q is required
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(mode:<|"|>z)"));     // not in the enum
  EXPECT_FALSE(TakesBytes(*grammar, v, call, R"(q:<|"|>1234567)"));  // maxLength 6
  for (const char* rest : {R"(q:<|"|>ab)", R"(q:<|"|>ab<|)", R"(q:<|"|>x<|"|>,n:)",
                           R"(q:<|"|>x<|"|>,filters:{"k":[)", R"(q:<|"|>x<|"|>,mode:<|"|>)"})
    ExpectMaskIsAccept(*grammar, v, call + rest);
  // Sampled calls in both families parse back with arguments that validate, the string written
  // between quotes, and a string argument reads back as written.
  size_t quoted = 0;
  for (const char* name : {"gemma4", "functiongemma"}) {
    const parse::ToolParserInfo& info = Family(name);
    auto family = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
    ASSERT_TRUE(family.ok()) << name << ": " << family.error().message();
    std::mt19937_64 random(5);
    for (int run = 0; run < 100; ++run) {
      ToolCallProcessor sampler(*family);
      const Sampled sampled = Generate(sampler, TextOf, v, random);
      const std::string context = std::string(name) + " run " + std::to_string(run);
      ASSERT_TRUE(sampled.ended) << context;
      CheckCalls(info, tools, sampled.text, 1, context);
      if (HasFailure()) return PrintTokens(sampled.tokens);
      quoted +=
          sampled.text.find("q:" + std::string(info.grammar->string_quote)) != std::string::npos;
    }
  }
  EXPECT_EQ(quoted, 200u);  // q is required and a string
  const std::vector<parse::ToolCall> found = CheckCalls(
      Family("functiongemma"), tools,
      "<start_function_call>call:find{q:<escape>a,b}<escape>,n:-2}<end_function_call>", 1, "");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].arguments, R"({"q": "a,b}", "n": -2})");
}

// On Gemma 4's own vocabulary its quote `<|"|>` is one special token: it opens a string value
// and closes one, and is never part of a value.
TEST(ToolCallsTest, GemmaQuoteIsOneTokenOnGemma4sVocabulary) {
  auto loaded = constrain::Vocabulary::FromGgufFile(
      (constrain::test_data::LlamaCppDir() / "models" / "ggml-vocab-gemma-4.gguf").string());
  if (!loaded.ok()) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto vocabulary = std::make_shared<const constrain::Vocabulary>(*std::move(loaded));
  const constrain::Vocabulary& v = *vocabulary;
  uint32_t quote = UINT32_MAX;
  for (uint32_t token = 0; token < v.size(); ++token) {
    if (v.bytes(token) == "<|\"|>") quote = token;
  }
  ASSERT_NE(quote, UINT32_MAX);
  ASSERT_TRUE(v.is_special(quote));
  const std::vector<parse::ToolSpec> tools = Tools();
  const parse::ToolParserInfo& info = Family("gemma4");
  auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  std::vector<uint32_t> mask(v.mask_words());
  const std::string call = "<|tool_call>call:get_weather{city:";
  for (const auto& [rest, allowed] : std::vector<std::pair<std::string, bool>>{
           {"", true},            // opens the value
           {"<|\"|>", false},     // an empty city (minLength 1)
           {"<|\"|>P", true},     // closes it
           {"<|\"|>P ", false},   // not after a blank
           {"<|\"|>P<|", false},  // not inside a pending quote
           {"<|\"|>Paris<|\"|>", false}}) {
    ToolCallProcessor processor(*grammar);
    for (const uint32_t token : ByteTokens(v, call + rest))
      ASSERT_TRUE(processor.Accept(token)) << rest;
    processor.FillMask(mask);
    EXPECT_EQ(TestBit(mask, quote), allowed) << rest;
    EXPECT_EQ(processor.Clone()->Accept(quote), allowed) << rest;
  }
  // Sampled calls parse and validate; the sampler picks the quote token among the others.
  size_t quote_tokens = 0;
  std::mt19937_64 random(9);
  for (int run = 0; run < 30; ++run) {
    ToolCallProcessor processor(*grammar);
    const Sampled sampled = Generate(processor, TextOf, v, random);
    const std::string context = "gemma-4 vocabulary run " + std::to_string(run);
    ASSERT_TRUE(sampled.ended) << context;
    CheckCalls(info, tools, sampled.text, 1, context);
    if (HasFailure()) return PrintTokens(sampled.tokens);
    quote_tokens +=
        static_cast<size_t>(std::count(sampled.tokens.begin(), sampled.tokens.end(), quote));
  }
  EXPECT_GT(quote_tokens, 0u);
}

// A string parameter held to more than its length and an enum (a pattern, a format, a
// combination of schemas) is written as a JSON string where the format allows it (gemma4,
// pythonic), and the matcher enforces it all. Optional[str] (anyOf string or null) is a raw
// string held to its string branch's length, in every key-value format.
TEST(ToolCallsTest, StringsBeyondLengthAndEnumAreJsonWhereTheFormatAllows) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("find", "", R"({"type": "object", "properties": {
      "q": {"type": "string", "pattern": "^[0-9]+$", "maxLength": 4},
      "r": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "integer"}]},
      "s": {"type": "string", "format": "date"}},
      "required": ["q", "r", "s"], "additionalProperties": false})"));
  std::vector<parse::ToolSpec> optional;
  optional.push_back(*parse::MakeToolSpec("find", "", R"({"type": "object", "properties": {
      "o": {"anyOf": [{"type": "string", "minLength": 1, "maxLength": 3}, {"type": "null"}]}},
      "required": ["o"], "additionalProperties": false})"));
  for (const char* name : {"qwen3_xml", "gemma4", "pythonic"}) {
    const parse::ToolParserInfo& info = Family(name);
    auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
    ASSERT_TRUE(grammar.ok()) << name << ": " << grammar.error().message();
    // qwen3_xml writes every string raw: a pattern or a format there is for the final check,
    // which the grammar says by not being exact.
    EXPECT_EQ((*grammar)->exact(), std::string_view(name) != "qwen3_xml") << name;
    if (std::string_view(name) != "qwen3_xml") {
      std::mt19937_64 random(13);
      for (int run = 0; run < 50; ++run) {
        ToolCallProcessor processor(*grammar);
        const Sampled sampled = Generate(processor, TextOf, *vocabulary, random);
        const std::string context = std::string(name) + " run " + std::to_string(run);
        ASSERT_TRUE(sampled.ended) << context;
        CheckCalls(info, tools, sampled.text, 1, context);
        if (HasFailure()) return PrintTokens(sampled.tokens);
      }
    }
    auto raw = ToolCallGrammar::Compile(*info.grammar, optional, vocabulary, Options());
    ASSERT_TRUE(raw.ok()) << name << ": " << raw.error().message();
    EXPECT_TRUE((*raw)->exact()) << name;
    std::mt19937_64 random(17);
    for (int run = 0; run < 50; ++run) {
      ToolCallProcessor processor(*raw);
      const Sampled sampled = Generate(processor, TextOf, *vocabulary, random);
      const std::string context = std::string(name) + " optional run " + std::to_string(run);
      ASSERT_TRUE(sampled.ended) << context;
      CheckCalls(info, optional, sampled.text, 1, context);
      if (HasFailure()) return PrintTokens(sampled.tokens);
    }
  }
}

// A value in a key-value format (JSON, or a raw string) never holds a marker the family's parser
// scans the text for (qwen3_xml's `</parameter>`, `<parameter=`, glm47's `</arg_value>`): the
// parser would cut the call there. A JSON-aware parser's family (hermes) keeps allowing them.
TEST(ToolCallsTest, ValuesNeverHoldAMarkerTheParserScansFor) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const constrain::Vocabulary& v = *vocabulary;
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("f", "", R"({"type": "object", "properties": {
      "o": {"type": "object", "properties": {"a": {"type": "string", "maxLength": 24}},
            "required": ["a"], "additionalProperties": false}},
      "required": ["o"], "additionalProperties": false})"));
  size_t families = 0;
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    if (info.grammar == nullptr || info.grammar->args != parse::CallGrammar::Args::kKeyValue)
      continue;
    auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
    ASSERT_TRUE(grammar.ok()) << info.name << ": " << grammar.error().message();
    ++families;
    // The texts from the arguments on: the argument's own, and the call's closing ones (for the
    // families that render values as JSON, which the checks below look for).
    std::vector<std::string_view> markers = {info.grammar->close, info.grammar->separator};
    for (const auto& part : info.grammar->argument)
      markers.push_back(part.text);
    markers.push_back(info.grammar->call.back().text);
    if (info.grammar->values != parse::CallGrammar::Values::kJson) markers.clear();
    for (std::string_view marker : markers) {
      const std::string_view core = text::Trim(marker);
      // A quote, a backslash or a line break in a marker is escaped inside a JSON string: the
      // marker cannot occur there.
      if (core.size() < 2 || core.find_first_of("\"\\\n\t\r") != std::string_view::npos) continue;
      std::string value;
      text::AppendJsonString(value, core);
      const std::string text = parse::RenderToolCalls(
          *info.grammar, {parse::ToolCall{"", "f", R"({"o": {"a": )" + value + "}}", true}});
      const size_t at = text.find(value);
      ASSERT_NE(at, std::string::npos) << info.name << "\n" << text;
      // Up to the marker's last byte inside the string: refused; its first byte is fine.
      const std::string inside = text.substr(0, at + value.size() - 1);
      EXPECT_FALSE(TakesBytes(*grammar, v, "", inside)) << info.name << ": " << core;
      EXPECT_TRUE(TakesBytes(*grammar, v, "", text.substr(0, at + 2))) << info.name << ": " << core;
    }
    // Sampled calls still parse and validate.
    std::mt19937_64 random(21);
    for (int run = 0; run < 20; ++run) {
      ToolCallProcessor processor(*grammar);
      const Sampled sampled = Generate(processor, TextOf, v, random);
      const std::string context = std::string(info.name) + " run " + std::to_string(run);
      ASSERT_TRUE(sampled.ended) << context << "\n" << sampled.text;
      CheckCalls(info, tools, sampled.text, 1, context);
      if (HasFailure()) return PrintTokens(sampled.tokens);
    }
  }
  EXPECT_GE(families, 15u);
  // Raw strings too, but for the value's own terminator, which ends it.
  std::vector<parse::ToolSpec> raw;
  raw.push_back(*parse::MakeToolSpec("f", "", R"({"type": "object", "properties": {
      "s": {"type": "string", "maxLength": 40}}, "required": ["s"]})"));
  for (const parse::ToolParserInfo& info : parse::ToolParsers()) {
    const parse::CallGrammar* family = info.grammar;
    if (family == nullptr || family->args != parse::CallGrammar::Args::kKeyValue ||
        family->cdata_strings)
      continue;
    auto grammar = ToolCallGrammar::Compile(*family, raw, vocabulary, Options());
    ASSERT_TRUE(grammar.ok()) << info.name << ": " << grammar.error().message();
    std::string_view own;
    for (size_t i = 0; i + 1 < family->argument.size(); ++i) {
      if (family->argument[i].slot == parse::CallGrammar::Slot::kValue)
        own = text::Trim(family->argument[i + 1].text);
    }
    std::vector<std::string_view> markers = {family->close, family->separator};
    for (const auto& part : family->argument)
      markers.push_back(part.text);
    markers.push_back(family->call.back().text);
    for (std::string_view marker : markers) {
      const std::string_view core = text::Trim(marker);
      if (core.size() < 2 || core == own) continue;
      std::string value;
      text::AppendJsonString(value, "zq" + std::string(core) + "zq");
      const std::string text = parse::RenderToolCalls(
          *family, {parse::ToolCall{"", "f", R"({"s": )" + value + "}", true}});
      const size_t at = text.find("zq");
      ASSERT_NE(at, std::string::npos) << info.name << "\n" << text;
      EXPECT_FALSE(TakesBytes(*grammar, v, "", text.substr(0, at + 2 + core.size())))
          << info.name << ": " << core;
      EXPECT_TRUE(TakesBytes(*grammar, v, "", text.substr(0, at + 3))) << info.name << ": " << core;
    }
  }
  // cwm takes its JSON arguments as the text up to </tool>: they never hold it.
  auto cwm = ToolCallGrammar::Compile(*Family("cwm").grammar, tools, vocabulary, Options());
  ASSERT_TRUE(cwm.ok());
  const std::string cwm_call = "<tool: function>\nf {\"o\": {\"a\": \"</tool";
  EXPECT_FALSE(TakesBytes(*cwm, v, "", cwm_call + ">"));
  EXPECT_TRUE(TakesBytes(*cwm, v, "", cwm_call + "s>\"}}\n</tool>"));
  // hermes reads its arguments as JSON: a string may hold </tool_call>.
  auto hermes = ToolCallGrammar::Compile(*Family("hermes").grammar, tools, vocabulary, Options());
  ASSERT_TRUE(hermes.ok());
  EXPECT_TRUE(TakesBytes(*hermes, v, "",
                         "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"o\": {\"a\": "
                         "\"</tool_call>\"}}}\n</tool_call>"));
  // The whole mask inside a string that ends with part of a marker.
  auto xml = ToolCallGrammar::Compile(*Family("qwen3_xml").grammar, tools, vocabulary, Options());
  ASSERT_TRUE(xml.ok());
  for (const char* rest : {"{\"a\": \"x</", "{\"a\": \"</param"})
    ExpectMaskIsAccept(*xml, v, std::string("<tool_call>\n<function=f>\n<parameter=o>\n") + rest);
  // And in a raw string, around a pending marker.
  auto xml_raw = ToolCallGrammar::Compile(*Family("qwen3_xml").grammar, raw, vocabulary, Options());
  ASSERT_TRUE(xml_raw.ok());
  for (const char* rest : {"a<", "a</tool", "a<parameter"})
    ExpectMaskIsAccept(*xml_raw, v,
                       std::string("<tool_call>\n<function=f>\n<parameter=s>\n") + rest);
}

// MiniMax-M3's constrained form: each parameter one element NS<k>…NS</k> (NS = ]<]minimax[>[),
// strings raw, other values JSON text. No value holds NS, which the parser cuts every value at;
// a parameter without one declared type takes a number or a boolean, which the parser reads back
// as written.
TEST(ToolCallsTest, MinimaxM3WritesOneElementPerParameter) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const constrain::Vocabulary& v = *vocabulary;
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("find", "", R"({"type": "object", "properties": {
      "q": {"type": "string", "maxLength": 12}, "n": {"type": "integer", "nullable": true},
      "any": {}, "pick": {"anyOf": [{"type": "integer"}, {"type": "boolean"}, {"type": "null"}]},
      "obj": {"anyOf": [{"type": "object"}, {"type": "string"}]},
      "opts": {"type": "object", "properties": {"deep": {"type": "array",
          "items": {"type": "string", "maxLength": 3}, "maxItems": 2}},
          "additionalProperties": false}},
      "required": ["q"], "additionalProperties": false})"));
  const parse::ToolParserInfo& info = Family("minimax_m3");
  auto grammar = ToolCallGrammar::Compile(*info.grammar, tools, vocabulary, Options());
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  EXPECT_TRUE((*grammar)->exact());
  const std::string ns = "]<]minimax[>[";
  const std::string call = ns + "<tool_call>\n" + ns + "<invoke name=\"find\">";
  auto element = [&ns](const std::string& key, const std::string& value) {
    return ns + "<" + key + ">" + value + ns + "</" + key + ">";
  };
  EXPECT_TRUE(TakesBytes(*grammar, v, call,
                         element("q", "a <b> c") + element("n", "null") +
                             element("opts", R"({"deep": ["x"]})") + ns + "</invoke>\n" + ns +
                             "</tool_call>"));
  EXPECT_TRUE(TakesBytes(*grammar, v, call, element("q", "]<]minimax") + element("any", "-2.5")));
  EXPECT_TRUE(TakesBytes(*grammar, v, call, element("q", "x") + element("pick", "true")));
  EXPECT_FALSE(TakesBytes(*grammar, v, call, ns + "<q>a" + ns + "x"));     // NS inside a value
  EXPECT_FALSE(TakesBytes(*grammar, v, call, ns + "<q>a" + ns + "</n>"));  // the key again
  EXPECT_FALSE(TakesBytes(*grammar, v, call, element("q", "x") + ns + "<any>\"s"));  // untyped
  EXPECT_FALSE(TakesBytes(*grammar, v, call, element("q", "x") + ns + "<obj>"));  // never written
  EXPECT_FALSE(
      TakesBytes(*grammar, v, call,
                 element("q", "x") + ns + R"(<opts>{"deep": [")" + ns));  // nor in a JSON string
  for (const std::string& rest :
       {ns + "<q>ab", ns + "<q>ab]<]mini", ns + "<q>ab" + ns, ns + "<q>a" + ns + "</q",
        element("q", "x") + ns + "<n>", element("q", "x") + ns + "<any>1",
        element("q", "x") + ns + R"(<opts>{"deep": [")"})
    ExpectMaskIsAccept(*grammar, v, call + rest);
  // Sampled calls parse back and validate; every run writes q.
  std::mt19937_64 random(23);
  size_t with_q = 0;
  for (int run = 0; run < 200; ++run) {
    ToolCallProcessor processor(*grammar);
    const Sampled sampled = Generate(processor, TextOf, v, random);
    const std::string context = "minimax_m3 run " + std::to_string(run);
    ASSERT_TRUE(sampled.ended) << context;
    const std::vector<parse::ToolCall> calls = CheckCalls(info, tools, sampled.text, 1, context);
    if (HasFailure()) return PrintTokens(sampled.tokens);
    with_q += calls[0].arguments.find("\"q\": ") != std::string::npos ? 1 : 0;
    EXPECT_EQ(calls[0].arguments.find("\"obj\""), std::string::npos) << sampled.text;
  }
  EXPECT_EQ(with_q, 200u);
  const std::vector<parse::ToolCall> found = CheckCalls(
      info, tools,
      call + element("q", "a<b>") + element("n", "null") + element("any", "7") +
          element("opts", R"({"deep": ["x", "y"]})") + ns + "</invoke>\n" + ns + "</tool_call>",
      1, "");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].arguments,
            R"({"q": "a<b>", "n": null, "any": 7, "opts": {"deep": ["x", "y"]}})");
}

// Where a special token spells the start of a raw value's terminator up to a marker the value
// must not hold (MiniMax-M3's namespace token, if a vocabulary has it as one token), the token
// may end the value: its bytes are the terminator's, and only the rest of the terminator may
// follow. Here Qwen3's </tool_call> token plays that part.
TEST(ToolCallsTest, ASpecialTokenMayOpenARawValuesTerminator) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  const constrain::Vocabulary& v = *vocabulary;
  using S = parse::CallGrammar::Slot;
  const parse::CallGrammar family{
      .open = "<calls>",
      .close = "</calls>",
      .call = {{S::kText, "<call "},
               {S::kName},
               {S::kText, ">"},
               {S::kArguments},
               {S::kText, "</call>"}},
      .args = parse::CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<"},
                   {S::kKey},
                   {S::kText, ">"},
                   {S::kValue},
                   {S::kText, "</tool_call></"},
                   {S::kKeyAgain},
                   {S::kText, ">"}},
      .value_stop = "</tool_call>",
  };
  std::vector<parse::ToolSpec> tools;
  tools.push_back(*parse::MakeToolSpec("f", "", R"({"type": "object", "properties": {
      "s": {"type": "string", "maxLength": 8}}, "required": ["s"]})"));
  auto grammar = ToolCallGrammar::Compile(family, tools, vocabulary, Options());
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  const std::string call = "<calls><call f><s>";
  std::vector<uint32_t> mask(v.mask_words());
  for (const auto& [rest, allowed] : std::vector<std::pair<std::string, bool>>{
           {"", true},           // an empty value
           {"ab", true},         // ends the value
           {"ab ", false},       // not after a blank
           {"ab</tool", false},  // not inside a pending match
           {"12345678", true},   // at maxLength
       }) {
    ToolCallProcessor processor(*grammar);
    for (const uint32_t token : ByteTokens(v, call + rest))
      ASSERT_TRUE(processor.Accept(token)) << rest;
    processor.FillMask(mask);
    EXPECT_EQ(TestBit(mask, test::kToolCallEnd), allowed) << rest;
    EXPECT_EQ(processor.Clone()->Accept(test::kToolCallEnd), allowed) << rest;
    if (!allowed) continue;
    ASSERT_TRUE(processor.Accept(test::kToolCallEnd));
    // Only the rest of the terminator follows, then the call's end.
    processor.FillMask(mask);
    const std::string_view forced = "</s></call>";
    for (uint32_t token = 0; token < v.size(); ++token) {
      if (!TestBit(mask, token)) continue;
      const std::string_view bytes = v.bytes(token);
      const size_t n = std::min(bytes.size(), forced.size());
      EXPECT_EQ(bytes.substr(0, n), forced.substr(0, n)) << rest << " " << token;
    }
    EXPECT_TRUE(processor.Accept(ByteTokens(v, "<")[0]));
  }
  ExpectMaskIsAccept(*grammar, v, call + "ab</tool_call>");
  ExpectMaskIsAccept(*grammar, v, call + "ab</tool_call></");
}

}  // namespace
}  // namespace crux::logits
