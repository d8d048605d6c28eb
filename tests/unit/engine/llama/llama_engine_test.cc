// The llama.cpp engine on the tiny Qwen3 model (written here by WriteSmokeModel): generation
// ends for the right reason, output is whole UTF-8 characters, cancellation, prefix reuse,
// constraints in the loop, and errors.
#include "crux/engine/llama_engine.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "crux/base/utf8.h"
#include "crux/engine/smoke_model.h"
#include "crux/logits/json_schema.h"
#include "crux/logits/processor.h"
#include "unit/constrain/test_data.h"

namespace crux::engine {
namespace {

class Collector final : public GenerationSink {
 public:
  void OnUpdate(GenerationUpdate u) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (utf8::CompletePrefixLength(u.text) != u.text.size()) split_character_ = true;
    text_ += u.text;
    tokens_ += u.tokens;
    if (u.finished) {
      finished_ = true;
      last_ = u;
      cv_.notify_all();
    }
  }
  GenerationUpdate Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [this] { return finished_; });
    return last_;
  }
  std::string text() {
    std::lock_guard<std::mutex> lock(mutex_);
    return text_;
  }
  int tokens() {
    std::lock_guard<std::mutex> lock(mutex_);
    return tokens_;
  }
  bool split_character() {
    std::lock_guard<std::mutex> lock(mutex_);
    return split_character_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string text_;
  int tokens_ = 0;
  bool finished_ = false;
  bool split_character_ = false;
  GenerationUpdate last_;
};

class LlamaEngineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const auto tree = constrain::test_data::LlamaCppDir();
    std::ifstream in(tree / "models" / "templates" / "Qwen-Qwen3-0.6B.jinja");
    if (!in) return;
    SmokeModelOptions options;
    options.vocab_path = (tree / "models" / "ggml-vocab-qwen2.gguf").string();
    options.template_text.assign(std::istreambuf_iterator<char>(in), {});
    options.out_path = (std::filesystem::temp_directory_path() / "crux-engine-test.gguf").string();
    if (!WriteSmokeModel(options).ok()) return;
    LlamaEngineOptions engine;
    engine.model_path = options.out_path;
    engine.context_size = 512;
    engine.parallel = 2;
    engine.threads = 1;
    auto made = MakeLlamaEngine(engine);
    if (made.ok()) engine_ = std::move(*made).release();
  }
  static void TearDownTestSuite() {
    delete engine_;
    engine_ = nullptr;
  }
  void SetUp() override {
    if (engine_ == nullptr) GTEST_SKIP() << "llama.cpp's tree is absent";
  }

  static GenerationUpdate Run(GenerateRequest request, std::shared_ptr<Collector> sink) {
    auto generation = engine_->Submit(std::move(request), sink);
    EXPECT_TRUE(generation.ok());
    return sink->Wait();
  }

  static GenerateRequest Request(std::string prompt, int max_tokens, uint64_t seed = 1) {
    GenerateRequest r;
    r.prompt = std::move(prompt);
    r.max_tokens = max_tokens;
    r.sampling.seed = seed;
    return r;
  }

  static Engine* engine_;
};
Engine* LlamaEngineTest::engine_ = nullptr;

const char* const kPrompt = "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n";

TEST_F(LlamaEngineTest, ReportsTheModel) {
  const ModelInfo info = engine_->Models().front();
  EXPECT_EQ(info.id, "crux-engine-test");
  EXPECT_EQ(info.vocabulary_size, 151936);
  EXPECT_EQ(info.context_length, 512);
  EXPECT_NE(info.chat_template.find("<|im_start|>"), std::string::npos);
  EXPECT_EQ(info.eos_token, "<|im_end|>");
  ASSERT_NE(engine_->Vocabulary(""), nullptr);
}

TEST_F(LlamaEngineTest, MaxTokensEndsWithWholeCharacters) {
  auto sink = std::make_shared<Collector>();
  // No end of turn, so the limit is what ends it.
  GenerateRequest r = Request(kPrompt, 25);
  auto chain = std::make_shared<logits::ProcessorChain>();
  chain->Add(std::make_unique<logits::LogitBiasProcessor>(
      std::unordered_map<uint32_t, float>{{151643, -100.0f}, {151645, -100.0f}}));
  r.processors = chain;
  const GenerationUpdate last = Run(std::move(r), sink);
  EXPECT_EQ(last.reason, StopReason::kMaxTokens);
  EXPECT_EQ(sink->tokens(), 25);
  EXPECT_EQ(last.prompt_tokens, 9);
  EXPECT_FALSE(sink->split_character());
}

TEST_F(LlamaEngineTest, TheSameSeedGivesTheSameTextAndAStopStringEndsIt) {
  auto a = std::make_shared<Collector>();
  Run(Request(kPrompt, 30, 9), a);
  auto b = std::make_shared<Collector>();
  Run(Request(kPrompt, 30, 9), b);
  ASSERT_EQ(a->text(), b->text());
  const std::string text = a->text();
  if (text.size() < 4) GTEST_SKIP() << "too little text to cut";
  const std::string stop = text.substr(text.size() / 2, 1);
  GenerateRequest r = Request(kPrompt, 30, 9);
  r.stop = {stop};
  auto c = std::make_shared<Collector>();
  const GenerationUpdate last = Run(std::move(r), c);
  EXPECT_EQ(last.reason, StopReason::kStopString);
  EXPECT_EQ(c->text(), text.substr(0, text.find(stop)));
}

TEST_F(LlamaEngineTest, ASecondRequestReusesTheCachedPrefix) {
  auto a = std::make_shared<Collector>();
  Run(Request(kPrompt, 4), a);
  auto b = std::make_shared<Collector>();
  const std::string longer = std::string(kPrompt) + "Hi<|im_end|>\n<|im_start|>user\nMore";
  const GenerationUpdate last = Run(Request(longer, 4), b);
  EXPECT_GE(last.cached_tokens, 9);  // all of the first prompt
  EXPECT_LT(last.cached_tokens, last.prompt_tokens);
}

TEST_F(LlamaEngineTest, CancelEndsTheGeneration) {
  auto sink = std::make_shared<Collector>();
  GenerateRequest r = Request(kPrompt, 400);
  auto generation = engine_->Submit(std::move(r), sink);
  ASSERT_TRUE(generation.ok());
  (*generation)->Cancel();
  EXPECT_EQ(sink->Wait().reason, StopReason::kCancelled);
  EXPECT_LT(sink->tokens(), 400);
}

TEST_F(LlamaEngineTest, AJsonSchemaMaskMakesValidJson) {
  const char* schema =
      R"({"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":9},
          "b":{"type":"boolean"}},"required":["n","b"],"additionalProperties":false})";
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    constrain::GrammarOptions options;
    options.max_whitespace = 4;
    auto processor = logits::JsonSchemaProcessor::Create(schema, engine_->Vocabulary(""), options);
    ASSERT_TRUE(processor.ok()) << processor.error().message();
    auto chain = std::make_shared<logits::ProcessorChain>();
    chain->Add(std::move(*processor));
    GenerateRequest r = Request(kPrompt, 200, seed);
    r.processors = chain;
    auto sink = std::make_shared<Collector>();
    const GenerationUpdate last = Run(std::move(r), sink);
    EXPECT_EQ(last.reason, StopReason::kEndOfGeneration) << sink->text();
    const auto json = nlohmann::json::parse(sink->text(), nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << sink->text();
    EXPECT_TRUE(json["n"].is_number_integer());
    EXPECT_TRUE(json["b"].is_boolean());
  }
}

// With two decode threads, the slots of one step run their processors and samplers at once:
// each keeps its own mask and random stream.
TEST_F(LlamaEngineTest, SlotsSteppedTogetherKeepTheirOwnMasksAndSeeds) {
  LlamaEngineOptions options;
  options.model_path = (std::filesystem::temp_directory_path() / "crux-engine-test.gguf").string();
  options.context_size = 512;
  options.parallel = 2;
  options.threads = 2;
  auto made = MakeLlamaEngine(options);
  ASSERT_TRUE(made.ok()) << made.error().message();
  Engine& engine = **made;
  const auto free_request = [] { return Request(kPrompt, 40, 9); };
  auto alone = std::make_shared<Collector>();
  auto generation = engine.Submit(free_request(), alone);  // cancelled when dropped
  ASSERT_TRUE(generation.ok());
  const GenerationUpdate alone_last = alone->Wait();
  ASSERT_EQ(alone_last.reason, StopReason::kMaxTokens) << alone_last.error;
  ASSERT_EQ(alone->tokens(), 40);
  const char* schema =
      R"({"type":"array","items":{"type":"integer","minimum":0,"maximum":9},"minItems":3,"maxItems":3})";
  for (int round = 0; round < 3; ++round) {
    constrain::GrammarOptions grammar;
    grammar.max_whitespace = 2;
    auto processor = logits::JsonSchemaProcessor::Create(schema, engine.Vocabulary(""), grammar);
    ASSERT_TRUE(processor.ok()) << processor.error().message();
    auto chain = std::make_shared<logits::ProcessorChain>();
    chain->Add(std::move(*processor));
    GenerateRequest constrained = Request(kPrompt, 100, 1 + round);
    constrained.processors = chain;
    auto json_sink = std::make_shared<Collector>();
    auto free_sink = std::make_shared<Collector>();
    auto a = engine.Submit(std::move(constrained), json_sink);
    auto b = engine.Submit(free_request(), free_sink);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(json_sink->Wait().reason, StopReason::kEndOfGeneration) << json_sink->text();
    EXPECT_EQ(free_sink->Wait().reason, StopReason::kMaxTokens);
    const auto json = nlohmann::json::parse(json_sink->text(), nullptr, false);
    ASSERT_TRUE(json.is_array()) << json_sink->text();
    EXPECT_EQ(json.size(), 3u);
    EXPECT_EQ(free_sink->text(), alone->text());
  }
}

TEST_F(LlamaEngineTest, BadRequestsAreErrors) {
  std::string long_prompt;
  for (int i = 0; i < 600; ++i)
    long_prompt += " word";
  auto sink = std::make_shared<Collector>();
  auto too_long = engine_->Submit(Request(long_prompt, 4), sink);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(std::string(too_long.error().message()).find("the context holds 512"),
            std::string::npos);
  GenerateRequest other = Request(kPrompt, 4);
  other.model = "another";
  EXPECT_EQ(engine_->Submit(std::move(other), sink).error().code(), ErrorCode::kNotFound);
  EXPECT_EQ(engine_->Detokenize("", {1, 999999}).error().code(), ErrorCode::kInvalidArgument);
}

TEST(LlamaEngine, MissingAndCorruptModelFilesAreErrors) {
  LlamaEngineOptions options;
  options.model_path = "/nonexistent/model.gguf";
  auto missing = MakeLlamaEngine(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kNotFound);
  const auto path = std::filesystem::temp_directory_path() / "crux-corrupt.gguf";
  std::ofstream(path) << "GGUF not really";
  options.model_path = path.string();
  auto corrupt = MakeLlamaEngine(options);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(std::string(corrupt.error().message()).find("crux-corrupt.gguf"), std::string::npos);
}

}  // namespace
}  // namespace crux::engine
