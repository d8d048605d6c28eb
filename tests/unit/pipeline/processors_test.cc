#include "pipeline/processors.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "crux/constrain/vocab.h"
#include "crux/logits/json_schema.h"
#include "crux/logits/tool_calls.h"
#include "crux/protocol/codec.h"

namespace crux::pipeline {
namespace {

// An engine with a vocabulary and nothing to generate: enough for the processors a request
// builds before its first token.
class VocabularyEngine : public engine::Engine {
 public:
  VocabularyEngine() {
    std::vector<std::string> tokens;
    for (int c = 0; c < 256; ++c)
      tokens.push_back(std::string(1, static_cast<char>(c)));
    tokens.push_back("<eos>");
    std::vector<constrain::TokenKind> kinds(tokens.size(), constrain::TokenKind::kNormal);
    kinds.back() = constrain::TokenKind::kControl;
    const auto eos = static_cast<uint32_t>(tokens.size() - 1);
    vocabulary_ = std::make_shared<constrain::Vocabulary>(
        constrain::Vocabulary::FromTokens(std::move(tokens), std::move(kinds), {eos}));
  }
  std::vector<engine::ModelInfo> Models() const override {
    engine::ModelInfo model;
    model.id = "m";
    return {model};
  }
  int CountTokens(std::string_view, std::string_view text) const override {
    return static_cast<int>(text.size());
  }
  Expected<std::unique_ptr<engine::Generation>> Submit(
      engine::GenerateRequest, std::shared_ptr<engine::GenerationSink>) override {
    return Error(ErrorCode::kUnavailable, "this engine does not generate");
  }
  void Shutdown() override {}
  std::shared_ptr<const constrain::Vocabulary> Vocabulary(std::string_view) const override {
    return vocabulary_;
  }

 private:
  std::shared_ptr<const constrain::Vocabulary> vocabulary_;
};

// The one processor of type P that a Chat Completions request `body` builds, or null.
template <typename P>
const P* OnlyProcessor(const engine::Engine& engine, const std::string& body,
                       const ProcessorInputs& inputs,
                       std::shared_ptr<logits::ProcessorChain>& chain) {
  auto request = protocol::DecodeChatCompletions(body);
  EXPECT_TRUE(request.ok()) << request.error().message();
  if (!request.ok()) return nullptr;
  auto built = BuildProcessors(*request, inputs, engine);
  EXPECT_TRUE(built.ok()) << built.error().message();
  if (!built.ok() || built->chain == nullptr || built->chain->size() != 1) return nullptr;
  chain = built->chain;
  return dynamic_cast<const P*>(&chain->at(0));
}

// The compiled grammar of a request's response format.
const constrain::CompiledGrammar* FormatGrammar(const engine::Engine& engine,
                                                const std::string& schema,
                                                const ProcessorInputs& inputs = {}) {
  std::shared_ptr<logits::ProcessorChain> chain;
  const auto* processor = OnlyProcessor<logits::JsonSchemaProcessor>(
      engine,
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":)"
      R"("json_schema","json_schema":{"name":"r","schema":)" +
          schema + "}}}",
      inputs, chain);
  return processor == nullptr ? nullptr : &processor->grammar();
}

// Requests with one schema share its compiled grammar (an agent's every turn compiles it
// once); another schema, or the same one with its properties in another order, compiles
// its own.
TEST(ProcessorsTest, RequestsWithOneResponseSchemaShareItsGrammar) {
  VocabularyEngine engine;
  const std::string schema =
      R"({"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"},"b":{"type":"integer"}}})";
  const size_t hits = ResponseFormatGrammars().hits();
  const constrain::CompiledGrammar* first = FormatGrammar(engine, schema);
  ASSERT_NE(first, nullptr);
  // Blanks between the schema's tokens do not matter.
  const constrain::CompiledGrammar* again = FormatGrammar(
      engine,
      R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "^[a-z]+$"}, "b": {"type": "integer"}}})");
  EXPECT_EQ(again, first);
  EXPECT_EQ(ResponseFormatGrammars().hits(), hits + 1);
  const constrain::CompiledGrammar* reordered = FormatGrammar(
      engine,
      R"({"type":"object","properties":{"b":{"type":"integer"},"a":{"type":"string","pattern":"^[a-z]+$"}}})");
  ASSERT_NE(reordered, nullptr);
  EXPECT_NE(reordered, first);
  const constrain::CompiledGrammar* other = FormatGrammar(engine, R"({"type":"integer"})");
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other, first);
  EXPECT_EQ(ResponseFormatGrammars().hits(), hits + 1);
}

// `crux serve --grammar-precompute-ms` reaches the grammar a response format compiles; the
// budget changes only when token sets are made, so a grammar kept in the cache serves
// requests under any budget.
TEST(ProcessorsTest, ThePrecomputeBudgetReachesTheResponseGrammar) {
  VocabularyEngine engine;
  ProcessorInputs on_first_use;
  on_first_use.grammar_precompute_us = 0;
  const std::string schema = R"({"type":"string","pattern":"^[g-q]{3,9}x$"})";
  const constrain::CompiledGrammar* grammar = FormatGrammar(engine, schema, on_first_use);
  ASSERT_NE(grammar, nullptr);
  EXPECT_EQ(grammar->options().precompute_us, 0u);
  const constrain::CompiledGrammar* by_default =
      FormatGrammar(engine, R"({"type":"string","pattern":"^[g-q]{3,9}y$"})");
  ASSERT_NE(by_default, nullptr);
  EXPECT_EQ(by_default->options().precompute_us, constrain::GrammarOptions{}.precompute_us);
  EXPECT_GT(by_default->options().precompute_us, 0u);
  EXPECT_EQ(FormatGrammar(engine, schema), grammar);
}

// The tool-call grammar of a request with `tools` under the hermes family.
const logits::ToolCallGrammar* ToolGrammar(const engine::Engine& engine, const std::string& tools) {
  ProcessorInputs inputs;
  inputs.tool_parser = "hermes";
  std::shared_ptr<logits::ProcessorChain> chain;
  const auto* processor = OnlyProcessor<logits::ToolCallProcessor>(
      engine,
      R"({"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"required","tools":)" +
          tools + "}",
      inputs, chain);
  return processor == nullptr ? nullptr : &processor->grammar();
}

// Requests with the same tools share their tool-call grammar, and with it the argument
// grammars compiled when the model names a tool; a change to a tool's schema compiles anew.
TEST(ProcessorsTest, RequestsWithTheSameToolsShareTheirGrammar) {
  VocabularyEngine engine;
  auto tool = [](const std::string& type) {
    return R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":")" +
           type + R"("}},"required":["city"]}}}])";
  };
  const size_t hits = ToolGrammars().GetStats().hits;
  const logits::ToolCallGrammar* first = ToolGrammar(engine, tool("string"));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(ToolGrammar(engine, tool("string")), first);
  EXPECT_EQ(ToolGrammars().GetStats().hits, hits + 1);
  const logits::ToolCallGrammar* other = ToolGrammar(engine, tool("integer"));
  ASSERT_NE(other, nullptr);
  EXPECT_NE(other, first);
  EXPECT_EQ(ToolGrammars().GetStats().hits, hits + 1);
}

}  // namespace
}  // namespace crux::pipeline
