// The chunk tokenizer gives exactly llama.cpp's tokens: on random text over every ASCII byte,
// special tokens, contractions, digit runs, blank runs and non-ASCII characters, with Qwen2's
// and Llama 3's pre-tokenizers; and it splits only the tokenizers it knows.
#include "engine/llama/chunk_tokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "crux/engine/prompt_tokenizer.h"
#include "llama.h"
#include "unit/constrain/test_data.h"

namespace crux::engine {
namespace {

struct ModelDeleter {
  void operator()(llama_model* m) const { llama_model_free(m); }
};
using ModelPtr = std::unique_ptr<llama_model, ModelDeleter>;

ModelPtr LoadVocabulary(const std::string& name) {
  const std::string path = (constrain::test_data::LlamaCppDir() / "models" / name).string();
  llama_model_params params = llama_model_default_params();
  params.vocab_only = true;
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  return ModelPtr(llama_model_load_from_file(path.c_str(), params));
}

// Text built from pieces that exercise each alternative of the pre-tokenizers, and single
// bytes of every ASCII value.
std::string RandomText(std::mt19937& rng, const std::vector<std::string>& specials) {
  static const char* const pieces[] = {
      "hello",      " world", "  ",   "   ",      "\n",   "\n\n", " \n ",     "\r\n",
      "\t",         "x",      " ",    "'s",       "'S",   "'re",  "'LL",      "'ve",
      "'d",         "'m",     "'t",   "'x",       "'",    "123",  "45678",    " 9",
      "{\"a\": 1}", "?!",     " ...", "\n}",      "é",    "日本", "🙂",     " \u00a0",
      "ing",        "Don't",  "x2y",  "__init__", "\v\f", "a\tb", "\x01\x1f", "\x7f"};
  std::string text;
  const int n = static_cast<int>(rng() % 40) + 1;
  for (int i = 0; i < n; ++i) {
    const uint32_t pick = rng() % 100;
    if (pick < 8 && !specials.empty()) {
      text += specials[rng() % specials.size()];
    } else if (pick < 20) {
      text += static_cast<char>(rng() % 128);
    } else {
      text += pieces[rng() % std::size(pieces)];
    }
  }
  return text;
}

void CheckRandomTexts(const std::string& vocabulary, const std::vector<std::string>& specials) {
  ModelPtr model = LoadVocabulary(vocabulary);
  if (!model) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto chunks = ChunkTokenizer::Create(model.get());
  ASSERT_NE(chunks, nullptr) << vocabulary << " is a pre-tokenizer the chunk tokenizer splits";
  const llama_vocab* vocab = llama_model_get_vocab(model.get());
  std::mt19937 rng(7);
  for (int i = 0; i < 4000; ++i) {
    const std::string text = RandomText(rng, specials);
    std::vector<int32_t> got;
    chunks->Tokenize(text, got);
    ASSERT_EQ(got, LlamaTokenize(vocab, text, false, true)) << "text #" << i << ": " << text;
  }
  const ChunkTokenizer::Stats stats = chunks->stats();
  EXPECT_GT(stats.chunks, 10 * stats.misses) << "repeated chunks come from the cache";
}

TEST(ChunkTokenizer, EqualsLlamaCppOnQwen2) {
  CheckRandomTexts("ggml-vocab-qwen2.gguf", {"<|im_start|>", "<|im_end|>", "<|endoftext|>"});
}

TEST(ChunkTokenizer, EqualsLlamaCppOnLlama3) {
  CheckRandomTexts("ggml-vocab-llama-bpe.gguf",
                   {"<|begin_of_text|>", "<|start_header_id|>", "<|eot_id|>"});
}

TEST(ChunkTokenizer, EveryPairOfAsciiBytesAfterEachByte) {
  ModelPtr model = LoadVocabulary("ggml-vocab-qwen2.gguf");
  if (!model) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto chunks = ChunkTokenizer::Create(model.get());
  ASSERT_NE(chunks, nullptr);
  const llama_vocab* vocab = llama_model_get_vocab(model.get());
  // Each line: a context byte, then every ordered pair of ASCII bytes, each pair set apart.
  for (int context = 0; context < 128; context += 3) {
    std::string text;
    for (int a = 0; a < 128; ++a) {
      for (int b = 0; b < 128; b += 5) {
        text += static_cast<char>(context);
        text += static_cast<char>(a);
        text += static_cast<char>(b);
      }
    }
    std::vector<int32_t> got;
    chunks->Tokenize(text, got);
    ASSERT_EQ(got, LlamaTokenize(vocab, text, false, true)) << "context byte " << context;
  }
}

TEST(ChunkTokenizer, SplitsAsciiBetweenSpecialTokensItself) {
  ModelPtr model = LoadVocabulary("ggml-vocab-qwen2.gguf");
  if (!model) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto chunks = ChunkTokenizer::Create(model.get());
  ASSERT_NE(chunks, nullptr);
  const std::string text = "a<|im_start|>b<|im_end|>\nplain text, then more plain text";
  std::vector<int32_t> got;
  chunks->Tokenize(text, got);
  EXPECT_EQ(got, LlamaTokenize(llama_model_get_vocab(model.get()), text, false, true));
  EXPECT_EQ(chunks->stats().passed_on, 0u) << "ASCII text between special tokens is split here";
}

// A long line of new words is tokenized by llama.cpp in one call and cut into chunks for the
// cache: the same line again needs llama.cpp for nothing.
TEST(ChunkTokenizer, ALineTokenizedWholeFillsTheCache) {
  ModelPtr model = LoadVocabulary("ggml-vocab-qwen2.gguf");
  if (!model) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto chunks = ChunkTokenizer::Create(model.get());
  ASSERT_NE(chunks, nullptr);
  std::string line;
  std::mt19937 rng(3);
  for (int i = 0; i < 400; ++i) {
    line += i % 7 == 0 ? "  " : " ";
    for (int k = 0; k < 3 + static_cast<int>(rng() % 6); ++k)
      line += static_cast<char>('a' + rng() % 26);
    if (i % 11 == 0) line += "'s, 12345!";
  }
  const std::vector<int32_t> expected =
      LlamaTokenize(llama_model_get_vocab(model.get()), line, false, true);
  std::vector<int32_t> first, second;
  chunks->Tokenize(line, first);
  EXPECT_EQ(first, expected);
  const size_t misses = chunks->stats().misses;
  EXPECT_GT(misses, 300u);
  chunks->Tokenize(line, second);
  EXPECT_EQ(second, expected);
  EXPECT_EQ(chunks->stats().misses, misses) << "every chunk of the line was cached";
}

TEST(ChunkTokenizer, OtherTokenizersAreLeftToLlamaCpp) {
  for (const char* name : {"ggml-vocab-llama-spm.gguf", "ggml-vocab-gpt-2.gguf"}) {
    ModelPtr model = LoadVocabulary(name);
    if (!model) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
    EXPECT_EQ(ChunkTokenizer::Create(model.get()), nullptr) << name;
  }
}

}  // namespace
}  // namespace crux::engine
