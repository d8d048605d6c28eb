// Prompt tokenization through the cache equals a full tokenization, for every prompt of a
// growing conversation, on byte-level BPE (Qwen) and SentencePiece (Llama 2) vocabularies.
#include "crux/engine/prompt_tokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "llama.h"
#include "unit/constrain/test_data.h"

namespace crux::engine {
namespace {

struct ModelDeleter {
  void operator()(llama_model* m) const { llama_model_free(m); }
};

std::unique_ptr<llama_model, ModelDeleter> LoadVocabulary(const std::string& name) {
  const std::string path = (constrain::test_data::LlamaCppDir() / "models" / name).string();
  llama_model_params params = llama_model_default_params();
  params.vocab_only = true;
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  return std::unique_ptr<llama_model, ModelDeleter>(
      llama_model_load_from_file(path.c_str(), params));
}

std::string RandomText(std::mt19937& rng) {
  static const char* const pieces[] = {
      "hello",   " world",   "  ", "\n", "\n\n", "é",          "日本",  "🙂", "{\"a\": 1}",
      "<think>", "</think>", "x",  " ",  "\t",   "<|im_end|>", "12345", "'s",   "ing"};
  std::string text;
  const int n = static_cast<int>(rng() % 12) + 1;
  for (int i = 0; i < n; ++i)
    text += pieces[rng() % std::size(pieces)];
  return text;
}

void CheckConversation(const llama_model* model, uint32_t seed) {
  const llama_vocab* vocab = llama_model_get_vocab(model);
  PromptTokenizer cache(model, 4);
  std::mt19937 rng(seed);
  std::string conversation;
  size_t reused_total = 0;
  for (int turn = 0; turn < 12; ++turn) {
    conversation += "<|im_start|>user\n" + RandomText(rng) + "<|im_end|>\n";
    const std::string prompt = conversation + "<|im_start|>assistant\n";
    const PromptTokenizer::Result got = cache.Tokenize(prompt);
    EXPECT_EQ(got.tokens, LlamaTokenize(vocab, prompt, true, true))
        << "seed " << seed << " turn " << turn;
    reused_total += got.reused;
    conversation += "<|im_start|>assistant\n" + RandomText(rng) + "<|im_end|>\n";
  }
  EXPECT_GT(reused_total, 0u) << "later turns reuse the earlier turns' tokens";
}

TEST(PromptTokenizer, EqualsAFullTokenizationOnQwen) {
  auto model = LoadVocabulary("ggml-vocab-qwen2.gguf");
  if (!model) GTEST_SKIP() << "llama.cpp's vocabularies are absent";
  for (uint32_t seed = 1; seed <= 30; ++seed)
    CheckConversation(model.get(), seed);
}

TEST(PromptTokenizer, EqualsAFullTokenizationOnSentencePiece) {
  auto model = LoadVocabulary("ggml-vocab-llama-spm.gguf");
  if (!model) GTEST_SKIP() << "llama.cpp's vocabularies are absent";
  for (uint32_t seed = 1; seed <= 30; ++seed)
    CheckConversation(model.get(), seed);
}

TEST(PromptTokenizer, ReusesEverythingUpToTheLastSharedSpecialToken) {
  auto model = LoadVocabulary("ggml-vocab-qwen2.gguf");
  if (!model) GTEST_SKIP() << "llama.cpp's vocabularies are absent";
  PromptTokenizer cache(model.get(), 2);
  const std::string first = "<|im_start|>user\nA long question<|im_end|>\n<|im_start|>assistant\n";
  const auto a = cache.Tokenize(first);
  EXPECT_EQ(a.reused, 0u);
  const auto b = cache.Tokenize(first + "An answer<|im_end|>\n<|im_start|>user\nMore");
  // Everything through the last <|im_start|> of the first prompt is reused.
  EXPECT_GE(b.reused, a.tokens.size() - 3);
  EXPECT_EQ(b.tokens,
            LlamaTokenize(llama_model_get_vocab(model.get()),
                          first + "An answer<|im_end|>\n<|im_start|>user\nMore", true, true));
}

}  // namespace
}  // namespace crux::engine
