// The tiny random-weight model as llama.cpp reads it: written from llama.cpp's Qwen2/3
// vocabulary and the Qwen3 template (skipped when llama.cpp's tree is absent), loaded in full,
// Qwen3's markers single tokens at their real ids, the template and eos read back, the weights
// a function of the seed; and the errors, each naming the file.
#include "crux/engine/smoke_model.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gguf.h"
#include "llama.h"
#include "unit/constrain/test_data.h"

namespace crux::engine {
namespace {

namespace fs = std::filesystem;

struct ModelDeleter {
  void operator()(llama_model* m) const { llama_model_free(m); }
};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The suite's temporary folder (removed after the suite).
const fs::path& TestDir() {
  static const fs::path dir = fs::temp_directory_path() /
                              ("crux-smoke-model-test-" + std::to_string(std::random_device()()));
  return dir;
}

class SmokeModelTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
    fs::create_directories(TestDir());
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(TestDir(), ec);
  }

  // Options for the Qwen3 model in the temporary folder; false when llama.cpp's tree is absent.
  static bool Qwen3Options(SmokeModelOptions& options, const std::string& name) {
    const fs::path tree = constrain::test_data::LlamaCppDir() / "models";
    options.vocab_path = (tree / "ggml-vocab-qwen2.gguf").string();
    options.template_text = ReadFile(tree / "templates" / "Qwen-Qwen3-0.6B.jinja");
    options.out_path = (TestDir() / name).string();
    return fs::is_regular_file(options.vocab_path) && !options.template_text.empty();
  }
};

int32_t SingleToken(const llama_vocab* vocab, const std::string& text) {
  std::vector<llama_token> tokens(8);
  const int32_t n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()),
                                   tokens.data(), static_cast<int32_t>(tokens.size()), false, true);
  return n == 1 ? tokens[0] : -n;
}

TEST_F(SmokeModelTest, LlamaCppLoadsItWithQwen3sTokensTemplateAndShape) {
  SmokeModelOptions options;
  if (!Qwen3Options(options, "tiny.gguf")) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  auto report = WriteSmokeModel(options);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->tokens, 151936u);
  EXPECT_EQ(report->added_tokens, 26u);
  EXPECT_EQ(report->parameters, 9798016u);
  EXPECT_EQ(report->bytes, fs::file_size(options.out_path));

  std::unique_ptr<llama_model, ModelDeleter> model(
      llama_model_load_from_file(options.out_path.c_str(), llama_model_default_params()));
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(llama_model_n_embd(model.get()), 64);
  EXPECT_EQ(llama_model_n_layer(model.get()), 2);
  EXPECT_EQ(llama_model_n_head(model.get()), 4);
  EXPECT_EQ(llama_model_n_head_kv(model.get()), 2);
  EXPECT_EQ(llama_model_n_params(model.get()), report->parameters);
  const llama_vocab* vocab = llama_model_get_vocab(model.get());
  EXPECT_EQ(llama_vocab_n_tokens(vocab), 151936);
  EXPECT_EQ(SingleToken(vocab, "<think>"), 151667);
  EXPECT_EQ(SingleToken(vocab, "</think>"), 151668);
  EXPECT_EQ(SingleToken(vocab, "<tool_call>"), 151657);
  EXPECT_EQ(SingleToken(vocab, "</tool_call>"), 151658);
  EXPECT_EQ(SingleToken(vocab, "<|im_start|>"), 151644);
  EXPECT_EQ(llama_vocab_eos(vocab), 151645);
  EXPECT_TRUE(llama_vocab_is_eog(vocab, 151645));
  EXPECT_TRUE(llama_vocab_is_control(vocab, 151645));
  EXPECT_FALSE(llama_vocab_is_control(vocab, 151667));  // user-defined, as in Qwen3's GGUFs
  const char* chat_template = llama_model_chat_template(model.get(), nullptr);
  ASSERT_NE(chat_template, nullptr);
  EXPECT_EQ(std::string(chat_template), options.template_text);
  for (const auto& entry : fs::directory_iterator(TestDir())) {
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
  }
}

TEST_F(SmokeModelTest, TheWeightsAreAFunctionOfTheSeed) {
  SmokeModelOptions options;
  if (!Qwen3Options(options, "seed-1a.gguf")) GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  options.layers = 1;
  ASSERT_TRUE(WriteSmokeModel(options).ok());
  options.out_path = (TestDir() / "seed-1b.gguf").string();
  ASSERT_TRUE(WriteSmokeModel(options).ok());
  options.seed = 2;
  options.out_path = (TestDir() / "seed-2.gguf").string();
  ASSERT_TRUE(WriteSmokeModel(options).ok());
  const std::string first = ReadFile(TestDir() / "seed-1a.gguf");
  EXPECT_EQ(first, ReadFile(TestDir() / "seed-1b.gguf"));
  const std::string other = ReadFile(TestDir() / "seed-2.gguf");
  ASSERT_EQ(other.size(), first.size());
  EXPECT_NE(other, first);
}

// Runs WriteSmokeModel and checks that it fails with `code`, naming `named`, and writes nothing.
void ExpectError(const SmokeModelOptions& options, ErrorCode code, const std::string& named) {
  auto report = WriteSmokeModel(options);
  ASSERT_FALSE(report.ok()) << named;
  EXPECT_EQ(report.error().code(), code) << report.error().message();
  EXPECT_NE(report.error().message().find(named), std::string::npos) << report.error().message();
  EXPECT_FALSE(fs::exists(options.out_path)) << options.out_path;
}

TEST_F(SmokeModelTest, BadVocabulariesAreErrorsNamingTheFile) {
  SmokeModelOptions options;
  options.template_text = "{{ messages }}";
  options.out_path = (TestDir() / "never.gguf").string();
  options.vocab_path = (TestDir() / "missing-vocab.gguf").string();
  ExpectError(options, ErrorCode::kNotFound, "missing-vocab.gguf");
  options.vocab_path = (TestDir() / "text.gguf").string();
  std::ofstream(options.vocab_path) << "not a model at all";
  ExpectError(options, ErrorCode::kParse, "text.gguf");
  options.vocab_path = (TestDir() / "truncated.gguf").string();
  std::ofstream(options.vocab_path) << "GGUF\x03";
  ExpectError(options, ErrorCode::kParse, "truncated.gguf");
  options.vocab_path = TestDir().string();
  ExpectError(options, ErrorCode::kIo, TestDir().string());

  struct GgufDeleter {
    void operator()(gguf_context* c) const { gguf_free(c); }
  };
  std::unique_ptr<gguf_context, GgufDeleter> no_tokens(gguf_init_empty());
  gguf_set_val_str(no_tokens.get(), "tokenizer.ggml.model", "gpt2");
  options.vocab_path = (TestDir() / "no-tokens.gguf").string();
  ASSERT_TRUE(gguf_write_to_file(no_tokens.get(), options.vocab_path.c_str(), true));
  ExpectError(options, ErrorCode::kParse, "tokenizer.ggml.tokens");
}

TEST_F(SmokeModelTest, ShapesThatDoNotDivideAreInvalid) {
  SmokeModelOptions options;
  options.vocab_path = (TestDir() / "unread.gguf").string();
  options.out_path = (TestDir() / "never.gguf").string();
  options.heads = 3;  // 64 is not a multiple of 3
  ExpectError(options, ErrorCode::kInvalidArgument, "heads must divide embedding 64 (got 3)");
  options.heads = 4;
  options.kv_heads = 3;
  ExpectError(options, ErrorCode::kInvalidArgument, "kv-heads must divide heads 4 (got 3)");
  options.kv_heads = 2;
  options.layers = 0;
  ExpectError(options, ErrorCode::kInvalidArgument, "layers must be 1 to 1024 (got 0)");
}

TEST_F(SmokeModelTest, AnUnwritableOutputIsAnErrorAndLeavesNothing) {
  SmokeModelOptions options;
  if (!Qwen3Options(options, "no-such-folder/tiny.gguf")) {
    GTEST_SKIP() << constrain::test_data::kNoLlamaCpp;
  }
  options.layers = 1;
  ExpectError(options, ErrorCode::kIo, options.out_path);
  EXPECT_FALSE(fs::exists(TestDir() / "no-such-folder"));
}

}  // namespace
}  // namespace crux::engine
