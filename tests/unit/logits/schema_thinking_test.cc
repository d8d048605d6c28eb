// The JSON-schema processor alone and as the inner processor of the thinking budget, on
// Qwen3's real vocabulary with random logits: every run's reasoning stays within its budget
// and its answer validates against the schema.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "crux/logits/json_schema.h"
#include "crux/logits/processor.h"
#include "crux/logits/thinking.h"
#include "unit/logits/qwen3_vocab.h"

namespace crux::logits {
namespace {

using test::Qwen3Vocabulary;

constexpr const char* kSchema = R"({
  "type": "object",
  "properties": {
    "city": {"type": "string", "maxLength": 6},
    "unit": {"enum": ["celsius", "fahrenheit"]},
    "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2}
  },
  "required": ["city", "unit"],
  "additionalProperties": false
})";

// Random logits under the mask: a uniform pick among the allowed tokens. In the answer the
// end-of-generation token is taken at once when allowed (a model that stops when it may);
// while reasoning it is not (a model that does not stop mid-thought). Unconstrained steps pick
// among ordinary tokens.
uint32_t Sample(LogitsProcessor& processor, const constrain::Vocabulary& vocabulary,
                std::vector<uint32_t>& mask, std::mt19937_64& random, bool answering = true) {
  if (!processor.FillMask(mask)) {
    uint32_t token;
    do {
      token = static_cast<uint32_t>(random() % vocabulary.size());
    } while (vocabulary.is_special(token));
    return token;
  }
  if (answering && TestBit(mask, test::kImEnd)) return test::kImEnd;
  if (!answering) {
    // Reasoning: no special token but the end of reasoning.
    for (uint32_t id = test::kEndOfText; id < vocabulary.size(); ++id) {
      if (id != test::kThinkEnd) mask[id >> 5] &= ~(uint32_t{1} << (id & 31));
    }
  }
  // The k-th allowed token, k uniform: two passes over the words, no list.
  size_t count = 0;
  for (const uint32_t word : mask)
    count += static_cast<size_t>(__builtin_popcount(word));
  EXPECT_GT(count, 0u);
  if (count == 0) return test::kImEnd;
  size_t k = random() % count;
  for (size_t word = 0; word < mask.size(); ++word) {
    const auto here = static_cast<size_t>(__builtin_popcount(mask[word]));
    if (k >= here) {
      k -= here;
      continue;
    }
    uint32_t bits = mask[word];
    for (; k > 0; --k)
      bits &= bits - 1;
    return static_cast<uint32_t>(word * 32 + __builtin_ctz(bits));
  }
  return test::kImEnd;
}

TEST(JsonSchemaProcessor, InvalidSchemaIsAnErrorBeforeAnyToken) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto made = JsonSchemaProcessor::Create(R"({"type": "objekt"})", vocabulary);
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().message().find("type"), std::string::npos) << made.error().message();
}

TEST(JsonSchemaProcessor, ThinkingBudgetThenSchemaOnQwen3WithRandomLogits) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  constrain::GrammarOptions options;
  options.flexible_whitespace = false;
  auto ir = constrain::CompileSchema(kSchema);
  ASSERT_TRUE(ir.ok());
  auto grammar = constrain::CompiledGrammar::Compile(*ir, vocabulary, options);
  ASSERT_TRUE(grammar.ok()) << grammar.error().message();
  std::vector<uint32_t> mask(vocabulary->mask_words());
  for (uint64_t seed = 0; seed < 1000; ++seed) {
    std::mt19937_64 random(seed);
    const int budget = static_cast<int>(random() % 24);
    auto made = ThinkingProcessor::Create({.start = {test::kThink},
                                           .end = {test::kThinkEnd},
                                           .budget = budget,
                                           .prompt_opened = seed % 4 != 0,
                                           .vocabulary = vocabulary},
                                          std::make_unique<JsonSchemaProcessor>(*grammar));
    ASSERT_TRUE(made.ok());
    ThinkingProcessor& processor = **made;
    std::string content;
    int reasoning = 0;
    bool ended = false;
    for (int step = 0; step < 400 && !ended; ++step) {
      const ThinkingPhase before = processor.phase();
      const bool answering = before == ThinkingPhase::kContent || before == ThinkingPhase::kIdle;
      const uint32_t token = Sample(processor, *vocabulary, mask, random, answering);
      ASSERT_TRUE(processor.Accept(token)) << "seed " << seed << " token " << token;
      if (token == test::kImEnd) {
        ended = true;
      } else if (before == ThinkingPhase::kThinking && token != test::kThinkEnd) {
        ++reasoning;
      } else if (processor.phase() == ThinkingPhase::kContent && token != test::kThinkEnd) {
        content.append(vocabulary->bytes(token));
      }
    }
    ASSERT_TRUE(ended) << "seed " << seed << " did not finish: " << content;
    EXPECT_LE(reasoning, budget) << "seed " << seed;
    const auto result = constrain::Validate(*ir, content);
    ASSERT_TRUE(result.valid()) << "seed " << seed << ": " << content;
  }
}

TEST(JsonSchemaProcessor, RollbackRestoresTheMatcher) {
  auto vocabulary = Qwen3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto made = JsonSchemaProcessor::Create(kSchema, vocabulary);
  ASSERT_TRUE(made.ok());
  JsonSchemaProcessor& processor = **made;
  std::vector<uint32_t> first(vocabulary->mask_words());
  ASSERT_TRUE(processor.FillMask(first));
  std::mt19937_64 random(3);
  std::vector<uint32_t> mask(vocabulary->mask_words());
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(processor.Accept(Sample(processor, *vocabulary, mask, random)));
  ASSERT_TRUE(processor.Rollback(5));
  std::vector<uint32_t> again(vocabulary->mask_words());
  ASSERT_TRUE(processor.FillMask(again));
  EXPECT_EQ(first, again);
  EXPECT_FALSE(processor.Rollback(1));
}

}  // namespace
}  // namespace crux::logits
