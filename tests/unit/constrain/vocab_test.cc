#include "crux/constrain/vocab.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "test_data.h"

namespace crux::constrain {
namespace {

// Writes GGUF metadata the way llama.cpp's writer lays it out (little endian, no tensors).
class GgufWriter {
 public:
  explicit GgufWriter(uint64_t kv_count, uint32_t version = 3) {
    out_ = "GGUF";
    U32(version);
    U64(0);  // tensor count
    U64(kv_count);
  }
  GgufWriter& U32(uint32_t v) { return Le(v, 4); }
  GgufWriter& U64(uint64_t v) { return Le(v, 8); }
  GgufWriter& Str(std::string_view s) {
    U64(s.size());
    out_.append(s);
    return *this;
  }
  GgufWriter& Key(std::string_view key, uint32_t type) { return Str(key).U32(type); }
  GgufWriter& KvString(std::string_view key, std::string_view value) {
    return Key(key, 8).Str(value);
  }
  GgufWriter& KvU32(std::string_view key, uint32_t value) { return Key(key, 4).U32(value); }
  GgufWriter& KvI32(std::string_view key, int32_t value) {
    return Key(key, 5).U32(static_cast<uint32_t>(value));
  }
  GgufWriter& KvStrings(std::string_view key, const std::vector<std::string>& values) {
    Key(key, 9).U32(8).U64(values.size());
    for (const std::string& v : values)
      Str(v);
    return *this;
  }
  GgufWriter& KvI32s(std::string_view key, const std::vector<int32_t>& values) {
    Key(key, 9).U32(5).U64(values.size());
    for (const int32_t v : values)
      U32(static_cast<uint32_t>(v));
    return *this;
  }
  GgufWriter& Raw(std::string_view bytes) {
    out_.append(bytes);
    return *this;
  }
  const std::string& bytes() const { return out_; }

 private:
  GgufWriter& Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
    return *this;
  }
  std::string out_;
};

// A byte-level BPE vocabulary (Llama 3 / Qwen2 style) preceded by keys of every other type,
// which the reader must skip.
std::string Gpt2Gguf() {
  GgufWriter w(10);
  w.KvString("general.architecture", "llama");
  w.Key("general.u8", 0).Raw("\x01");
  w.Key("general.f64", 12).U64(0);
  w.Key("general.bool", 7).Raw("\x01");
  w.Key("general.u32s", 9).U32(4).U64(2).U32(1).U32(2);
  w.Key("general.nested", 9).U32(9).U64(1).U32(8).U64(1).Str("x");  // [[ "x" ]]
  w.KvString("tokenizer.ggml.model", "gpt2");
  w.KvStrings("tokenizer.ggml.tokens",
              {"hello", "\xc4\xa0the", "\xc4\x8a", "\xc3\x83\xc2\xa9", "\xc4\x80", "\xc5\x83",
               "\xe2\x82\xac", "<|eot_id|>", "<think>", "<|begin_of_text|>"});
  w.KvI32s("tokenizer.ggml.token_type", {1, 1, 1, 1, 1, 1, 1, 3, 4, 3});
  w.KvU32("tokenizer.ggml.eos_token_id", 9);
  return w.bytes();
}

// A SentencePiece vocabulary (Llama 2 / Phi-3 style).
std::string LlamaGguf() {
  GgufWriter w(5, 2);
  w.KvString("tokenizer.ggml.model", "llama");
  w.KvStrings("tokenizer.ggml.tokens", {"<unk>", "<s>", "</s>", "<0x0A>", "<0xFF>",
                                        "\xe2\x96\x81the", "\xe2\x96\x81\xe2\x96\x81",
                                        "a\xe2\x96\x81"
                                        "b",
                                        "<|end|>", "<pad>"});
  w.KvI32s("tokenizer.ggml.token_type", {2, 3, 3, 6, 6, 1, 1, 1, 3, 5});
  w.KvI32("tokenizer.ggml.eos_token_id", 2);
  w.KvI32("tokenizer.ggml.eot_token_id", -1);
  return w.bytes();
}

std::vector<uint32_t> Eog(const Vocabulary& v) {
  return {v.end_of_generation().begin(), v.end_of_generation().end()};
}

TEST(VocabGguf, Gpt2PiecesDecodeToBytes) {
  auto v = Vocabulary::FromGguf(Gpt2Gguf());
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_EQ(v->size(), 10u);
  EXPECT_EQ(v->bytes(0), "hello");
  EXPECT_EQ(v->bytes(1), " the");                // Ġ is the space byte
  EXPECT_EQ(v->bytes(2), "\n");                  // Ċ
  EXPECT_EQ(v->bytes(3), "\xc3\xa9");            // Ã© are the two bytes of é
  EXPECT_EQ(v->bytes(4), std::string(1, '\0'));  // Ā, the first unprintable byte
  EXPECT_EQ(v->bytes(5), "\xad");                // Ń, the last one (soft hyphen)
  EXPECT_EQ(v->bytes(6), "\xe2\x82\xac");        // € is outside the table: kept as UTF-8
  EXPECT_EQ(v->bytes(7), "<|eot_id|>");
  EXPECT_EQ(v->kind(7), TokenKind::kControl);
  EXPECT_EQ(v->kind(8), TokenKind::kUserDefined);
  for (uint32_t id = 0; id < 7; ++id)
    EXPECT_FALSE(v->is_special(id)) << id;
  for (uint32_t id = 7; id < 10; ++id)
    EXPECT_TRUE(v->is_special(id)) << id;
  EXPECT_EQ(Eog(*v), (std::vector<uint32_t>{7, 9}));  // <|eot_id|> by name, eos by key
  EXPECT_EQ(v->mask_words(), 1u);
}

TEST(VocabGguf, SentencePiecePiecesDecodeToBytes) {
  auto v = Vocabulary::FromGguf(LlamaGguf());
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_EQ(v->size(), 10u);
  EXPECT_EQ(v->kind(0), TokenKind::kUnknown);
  EXPECT_EQ(v->bytes(1), "<s>");
  EXPECT_EQ(v->bytes(3), "\n");
  EXPECT_EQ(v->kind(3), TokenKind::kByte);
  EXPECT_EQ(v->bytes(4), "\xff");
  EXPECT_EQ(v->bytes(5), " the");
  EXPECT_EQ(v->bytes(6), "  ");
  EXPECT_EQ(v->bytes(7), "a b");
  EXPECT_EQ(v->kind(9), TokenKind::kUnused);
  for (uint32_t id : {0u, 1u, 2u, 8u, 9u})
    EXPECT_TRUE(v->is_special(id)) << id;
  for (uint32_t id : {3u, 4u, 5u, 6u, 7u})
    EXPECT_FALSE(v->is_special(id)) << id;
  EXPECT_EQ(Eog(*v), (std::vector<uint32_t>{2, 8}));  // eot -1 means none
}

TEST(VocabGguf, EveryPrefixIsAnError) {
  for (const std::string& file : {Gpt2Gguf(), LlamaGguf()}) {
    for (size_t n = 0; n < file.size(); ++n) {
      auto v = Vocabulary::FromGguf(std::string_view(file).substr(0, n));
      ASSERT_FALSE(v.ok()) << "prefix of " << n << " bytes";
      EXPECT_EQ(v.error().code(), ErrorCode::kParse) << n << ": " << v.error().message();
    }
  }
}

Error GgufError(const std::string& bytes) {
  auto v = Vocabulary::FromGguf(bytes);
  EXPECT_FALSE(v.ok());
  return v.ok() ? Error(ErrorCode::kInternal, "loaded") : v.error();
}

TEST(VocabGguf, HostileCountsFailWithoutAllocating) {
  {  // a count under the token limit but far past the end of the file
    GgufWriter w(1);
    w.Key("tokenizer.ggml.tokens", 9).U32(8).U64(1u << 20).Str("a");
    const Error e = GgufError(w.bytes());
    EXPECT_EQ(e.code(), ErrorCode::kParse);
    EXPECT_NE(e.message().find("tokenizer.ggml.tokens"), std::string::npos) << e.message();
  }
  {  // past the token limit
    GgufWriter w(1);
    w.Key("tokenizer.ggml.tokens", 9).U32(8).U64(uint64_t{1} << 40);
    EXPECT_EQ(GgufError(w.bytes()).code(), ErrorCode::kLimit);
  }
  {  // a skipped array of 2^61 u64s, a string of 2^62 bytes, 2^60 key-value pairs
    GgufWriter a(1);
    a.Key("general.big", 9).U32(10).U64(uint64_t{1} << 61);
    EXPECT_EQ(GgufError(a.bytes()).code(), ErrorCode::kParse);
    GgufWriter s(1);
    s.Key("general.name", 8).U64(uint64_t{1} << 62);
    EXPECT_EQ(GgufError(s.bytes()).code(), ErrorCode::kParse);
    GgufWriter k(uint64_t{1} << 60);
    EXPECT_EQ(GgufError(k.bytes()).code(), ErrorCode::kParse);
  }
  {  // arrays nested deeper than the reader follows
    GgufWriter w(1);
    w.Key("general.deep", 9);
    for (int i = 0; i < 100; ++i)
      w.U32(9).U64(1);
    EXPECT_EQ(GgufError(w.bytes()).code(), ErrorCode::kParse);
  }
}

TEST(VocabGguf, CorruptFilesNameTheProblem) {
  struct Case {
    std::string bytes;
    ErrorCode code;
    const char* mentions;
  };
  auto with = [](auto&& fill, uint64_t kv_count = 3) {
    GgufWriter w(kv_count);
    fill(w);
    return w.bytes();
  };
  const std::vector<std::string> ab = {"a", "b"};
  const Case cases[] = {
      {"GGML\x03\0\0\0", ErrorCode::kParse, "GGUF"},
      {GgufWriter(0, 1).bytes(), ErrorCode::kUnsupported, "version 1"},
      {with([](GgufWriter& w) { w.Key("general.x", 13).U32(0); }, 1), ErrorCode::kParse,
       "unknown value type 13"},
      {with([&](GgufWriter& w) { w.KvStrings("tokenizer.ggml.tokens", ab); }, 1), ErrorCode::kParse,
       "tokenizer.ggml.model"},
      {with([](GgufWriter& w) { w.KvString("tokenizer.ggml.model", "gpt2"); }, 1),
       ErrorCode::kParse, "tokenizer.ggml.tokens"},
      {with(
           [&](GgufWriter& w) {
             w.KvString("tokenizer.ggml.model", "bert").KvStrings("tokenizer.ggml.tokens", ab);
           },
           2),
       ErrorCode::kUnsupported, "'bert'"},
      {with([&](GgufWriter& w) {
         w.KvString("tokenizer.ggml.model", "gpt2").KvStrings("tokenizer.ggml.tokens", ab);
         w.KvI32s("tokenizer.ggml.token_type", {1});
       }),
       ErrorCode::kParse, "token_type"},
      {with([&](GgufWriter& w) {
         w.KvString("tokenizer.ggml.model", "gpt2").KvStrings("tokenizer.ggml.tokens", ab);
         w.KvI32s("tokenizer.ggml.token_type", {1, 9});
       }),
       ErrorCode::kParse, "token 1"},
      {with([&](GgufWriter& w) {
         w.KvString("tokenizer.ggml.model", "gpt2").KvStrings("tokenizer.ggml.tokens", ab);
         w.KvU32("tokenizer.ggml.eos_token_id", 2);
       }),
       ErrorCode::kParse, "eos_token_id"},
      {with([&](GgufWriter& w) {
         w.KvString("tokenizer.ggml.model", "gpt2").KvStrings("tokenizer.ggml.tokens", ab);
         w.KvString("tokenizer.ggml.eos_token_id", "2");
       }),
       ErrorCode::kParse, "eos_token_id"},
      {with([](GgufWriter& w) {
         w.KvString("tokenizer.ggml.model", "llama").KvStrings("tokenizer.ggml.tokens", {"<0xZZ>"});
         w.KvI32s("tokenizer.ggml.token_type", {6});
       }),
       ErrorCode::kParse, "<0xZZ>"},
      {with(
           [](GgufWriter& w) {
             w.KvString("tokenizer.ggml.model", "gpt2");
             w.KvStrings("tokenizer.ggml.tokens", {std::string(kMaxTokenBytes + 1, 'x')});
           },
           2),
       ErrorCode::kLimit, "token 0"},
  };
  for (const Case& c : cases) {
    const Error e = GgufError(c.bytes);
    EXPECT_EQ(e.code(), c.code) << e.message();
    EXPECT_NE(e.message().find(c.mentions), std::string::npos) << e.message();
  }
}

TEST(VocabGguf, FromFile) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("crux_vocab_test_" + std::to_string(getpid()) + ".gguf"))
                               .string();
  {
    std::ofstream out(path, std::ios::binary);
    out << Gpt2Gguf() << std::string(1000, '\0');  // tensor data after the metadata is ignored
  }
  auto v = Vocabulary::FromGgufFile(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->identity(), Vocabulary::FromGguf(Gpt2Gguf())->identity());
  auto missing = Vocabulary::FromGgufFile(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::kIo);
  EXPECT_NE(missing.error().message().find(path), std::string::npos);
}

// Metadata longer than the loader's first read (16 MiB): the read grows until it parses.
TEST(VocabGguf, FromFileWithLargeMetadata) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("crux_vocab_large_" + std::to_string(getpid()) + ".gguf"))
                               .string();
  {
    GgufWriter w(3);
    w.KvString("general.license", std::string(size_t{20} << 20, 'x'));
    w.KvString("tokenizer.ggml.model", "gpt2").KvStrings("tokenizer.ggml.tokens", {"a", "b"});
    std::ofstream out(path, std::ios::binary);
    out << w.bytes();
  }
  auto v = Vocabulary::FromGgufFile(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->size(), 2u);
  auto directory = Vocabulary::FromGgufFile(std::filesystem::temp_directory_path().string());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code(), ErrorCode::kIo);
}

TEST(VocabTokenizerJson, ByteLevelBpe) {
  auto v = Vocabulary::FromTokenizerJson(R"({
    "model": {"type": "BPE", "vocab": {"hello": 0, "\u0120the": 1, "\u010a": 2, "x": 5}},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
      {"type": "Split"}, {"type": "ByteLevel", "add_prefix_space": false}]},
    "added_tokens": [
      {"id": 6, "content": "<|im_end|>", "special": true},
      {"id": 7, "content": "<tool_call>", "special": false}]})");
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_EQ(v->size(), 8u);
  EXPECT_EQ(v->bytes(1), " the");
  EXPECT_EQ(v->bytes(2), "\n");
  for (uint32_t gap : {3u, 4u}) {
    EXPECT_EQ(v->kind(gap), TokenKind::kUnused);
    EXPECT_EQ(v->bytes(gap), "");
    EXPECT_TRUE(v->is_special(gap));
  }
  EXPECT_EQ(v->kind(6), TokenKind::kControl);
  EXPECT_EQ(v->bytes(6), "<|im_end|>");
  EXPECT_EQ(v->kind(7), TokenKind::kUserDefined);
  EXPECT_EQ(Eog(*v), (std::vector<uint32_t>{6}));
}

TEST(VocabTokenizerJson, SentencePieceStyleBpe) {
  auto v = Vocabulary::FromTokenizerJson(R"({
    "model": {"type": "BPE", "byte_fallback": true,
              "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "\u2581the": 4, "\u0120": 5}},
    "decoder": {"type": "Sequence", "decoders": [{"type": "Replace"}, {"type": "ByteFallback"}]},
    "added_tokens": [{"id": 0, "content": "<unk>", "special": true},
                     {"id": 1, "content": "<s>", "special": true},
                     {"id": 2, "content": "</s>", "special": true}]})");
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_EQ(v->size(), 6u);
  EXPECT_EQ(v->kind(1), TokenKind::kControl);
  EXPECT_EQ(v->bytes(3), "\n");
  EXPECT_EQ(v->kind(3), TokenKind::kByte);
  EXPECT_EQ(v->bytes(4), " the");
  EXPECT_EQ(v->bytes(5), "\xc4\xa0");  // not byte-level: Ġ is its UTF-8
  EXPECT_EQ(Eog(*v), (std::vector<uint32_t>{2}));
}

TEST(VocabTokenizerJson, Unigram) {
  auto v = Vocabulary::FromTokenizerJson(
      R"({"model": {"type": "Unigram", "vocab": [["<pad>", 0.0], ["\u2581a", -1.5], ["b", -2]]},
          "added_tokens": [{"id": 0, "content": "<pad>", "special": true}]})");
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ(v->bytes(1), " a");
  EXPECT_TRUE(v->is_special(0));
}

TEST(VocabTokenizerJson, Errors) {
  struct Case {
    const char* json;
    ErrorCode code;
    const char* mentions;
  };
  const Case cases[] = {
      {"{", ErrorCode::kParse, "tokenizer.json"},
      {"[]", ErrorCode::kParse, "root"},
      {R"({"model": {"type": "WordPiece", "vocab": {}}})", ErrorCode::kUnsupported, "WordPiece"},
      {R"({"model": {"type": "BPE"}})", ErrorCode::kParse, "model.vocab"},
      {R"({"model": {"vocab": {"a": -1}}})", ErrorCode::kParse, "model.vocab['a']"},
      {R"({"model": {"vocab": {"a": "0"}}})", ErrorCode::kParse, "model.vocab['a']"},
      {R"({"model": {"vocab": {"a": 0, "b": 0}}})", ErrorCode::kParse, "id 0"},
      {R"({"model": {"vocab": {"a": 99999999}}})", ErrorCode::kLimit, "99999999"},
      {R"({"model": {"vocab": {}}, "added_tokens": [{"id": 1}]})", ErrorCode::kParse,
       "added_tokens[0]"},
      {R"({"model": {"vocab": {}}, "added_tokens": {}})", ErrorCode::kParse, "added_tokens"},
  };
  for (const Case& c : cases) {
    auto v = Vocabulary::FromTokenizerJson(c.json);
    ASSERT_FALSE(v.ok()) << c.json;
    EXPECT_EQ(v.error().code(), c.code) << c.json << ": " << v.error().message();
    EXPECT_NE(v.error().message().find(c.mentions), std::string::npos) << v.error().message();
  }
  auto deep = Vocabulary::FromTokenizerJson(std::string(100000, '['));
  ASSERT_FALSE(deep.ok());
}

TEST(VocabIdentity, ChangesWithEveryByteKindAndEog) {
  const auto make = [](std::string second, TokenKind kind, std::vector<uint32_t> eog) {
    return Vocabulary::FromTokens({"a", std::move(second), "<e>"},
                                  {TokenKind::kNormal, kind, TokenKind::kControl}, std::move(eog));
  };
  const Vocabulary base = make("bc", TokenKind::kNormal, {2});
  EXPECT_EQ(base.identity(), make("bc", TokenKind::kNormal, {2, 2}).identity());
  EXPECT_NE(base.identity(), make("bd", TokenKind::kNormal, {2}).identity());
  EXPECT_NE(base.identity(), make("bc", TokenKind::kUserDefined, {2}).identity());
  EXPECT_NE(base.identity(), make("bc", TokenKind::kNormal, {}).identity());
  // Moving a byte across a token boundary changes it too.
  EXPECT_NE(
      Vocabulary::FromTokens({"ab", "c"}, {TokenKind::kNormal, TokenKind::kNormal}, {}).identity(),
      Vocabulary::FromTokens({"a", "bc"}, {TokenKind::kNormal, TokenKind::kNormal}, {}).identity());
}

TEST(VocabFromTokens, SortsEogAndTreatsEmptyAsSpecial) {
  const Vocabulary v = Vocabulary::FromTokens(
      {"x", "", "y"}, {TokenKind::kNormal, TokenKind::kNormal, TokenKind::kNormal}, {2, 0, 2});
  EXPECT_EQ(Eog(v), (std::vector<uint32_t>{0, 2}));
  EXPECT_FALSE(v.is_special(0));
  EXPECT_TRUE(v.is_special(1));
  EXPECT_EQ(v.mask_words(), 1u);
  EXPECT_EQ(Vocabulary::FromTokens(std::vector<std::string>(33, "t"),
                                   std::vector<TokenKind>(33, TokenKind::kNormal), {})
                .mask_words(),
            2u);
}

// ---------------------------------------------------------------------------------------------
// Real vocabularies: llama.cpp's models/ggml-vocab-*.gguf (scripts/fetch-llama-cpp.sh).

using test_data::LlamaCppDir;

class VocabReal : public ::testing::Test {
 protected:
  void SetUp() override {
    models_ = LlamaCppDir() / "models";
    if (!std::filesystem::exists(models_ / "ggml-vocab-llama-bpe.gguf"))
      GTEST_SKIP() << "no llama.cpp tree at " << LlamaCppDir()
                   << " (run scripts/fetch-llama-cpp.sh, or set CRUX_LLAMA_CPP_DIR)";
  }
  Vocabulary Load(const std::string& name) {
    auto v = Vocabulary::FromGgufFile((models_ / name).string());
    EXPECT_TRUE(v.ok()) << name << ": " << v.error().message();
    if (!v.ok()) return Vocabulary::FromTokens({}, {}, {});
    size_t empty_normal = 0;
    for (uint32_t id = 0; id < v->size(); ++id)
      empty_normal += v->kind(id) == TokenKind::kNormal && v->bytes(id).empty();
    EXPECT_EQ(empty_normal, 0u) << name << ": normal tokens that write nothing";
    return std::move(*v);
  }
  size_t Count(const Vocabulary& v, TokenKind kind) {
    size_t n = 0;
    for (uint32_t id = 0; id < v.size(); ++id)
      n += v.kind(id) == kind;
    return n;
  }
  // llama.cpp's tokenizer test vectors (<name>.inp / .out): the bytes of each expected token
  // sequence, concatenated, are the input text (SentencePiece adds a leading space).
  void CheckTestVectors(const Vocabulary& v, const std::string& name) {
    std::ifstream inp(models_ / (name + ".inp"), std::ios::binary);
    std::ifstream out(models_ / (name + ".out"), std::ios::binary);
    ASSERT_TRUE(inp && out) << name;
    std::stringstream all;
    all << inp.rdbuf();
    const std::string text = all.str();
    static constexpr std::string_view kSeparator = "\n__ggml_vocab_test__\n";
    size_t start = 0;
    int cases = 0;
    for (std::string line; std::getline(out, line); ++cases) {
      // The last case may end the file without a separator.
      const size_t end = std::min(text.find(kSeparator, start), text.size());
      ASSERT_LE(start, text.size()) << name << " case " << cases;
      const std::string input = text.substr(start, end - start);
      start = end + kSeparator.size();
      std::string decoded;
      std::istringstream ids(line);
      for (uint32_t id; ids >> id;) {
        ASSERT_LT(id, v.size());
        decoded += v.bytes(id);
      }
      EXPECT_TRUE(decoded == input || decoded == " " + input)
          << name << " case " << cases << ": '" << decoded << "' vs '" << input << "'";
    }
    EXPECT_GT(cases, 10) << name;
  }
  std::filesystem::path models_;
};

TEST_F(VocabReal, Llama3) {
  const Vocabulary v = Load("ggml-vocab-llama-bpe.gguf");
  ASSERT_EQ(v.size(), 128256u);
  EXPECT_EQ(v.bytes(279), " the");
  EXPECT_EQ(v.bytes(198), "\n");
  EXPECT_EQ(v.bytes(128009), "<|eot_id|>");
  EXPECT_EQ(Count(v, TokenKind::kControl), 256u);
  EXPECT_EQ(Eog(v), (std::vector<uint32_t>{128001, 128009}));
  CheckTestVectors(v, "ggml-vocab-llama-bpe.gguf");
}

TEST_F(VocabReal, Qwen2) {
  const Vocabulary v = Load("ggml-vocab-qwen2.gguf");
  ASSERT_EQ(v.size(), 151936u);
  EXPECT_EQ(v.bytes(198), "\n");
  EXPECT_EQ(v.bytes(151645), "<|im_end|>");
  EXPECT_EQ(Eog(v), (std::vector<uint32_t>{151643, 151645}));
  CheckTestVectors(v, "ggml-vocab-qwen2.gguf");
}

TEST_F(VocabReal, Phi3) {
  const Vocabulary v = Load("ggml-vocab-phi-3.gguf");
  ASSERT_EQ(v.size(), 32064u);
  EXPECT_EQ(Count(v, TokenKind::kByte), 256u);
  EXPECT_EQ(v.bytes(3), std::string(1, '\0'));  // <0x00>
  EXPECT_EQ(v.bytes(3 + 0x0a), "\n");
  EXPECT_EQ(v.kind(3 + 0xff), TokenKind::kByte);
  EXPECT_EQ(v.bytes(3 + 0xff), "\xff");
  EXPECT_EQ(v.bytes(32007), "<|end|>");
  EXPECT_EQ(Eog(v), (std::vector<uint32_t>{2, 32000, 32007}));
  CheckTestVectors(v, "ggml-vocab-phi-3.gguf");
}

TEST_F(VocabReal, LlamaSpm) {
  const Vocabulary v = Load("ggml-vocab-llama-spm.gguf");
  ASSERT_EQ(v.size(), 32000u);
  EXPECT_EQ(Eog(v), (std::vector<uint32_t>{2}));
  CheckTestVectors(v, "ggml-vocab-llama-spm.gguf");
}

TEST_F(VocabReal, Gemma4) {
  if (!std::filesystem::exists(models_ / "ggml-vocab-gemma-4.gguf")) GTEST_SKIP();
  const Vocabulary v = Load("ggml-vocab-gemma-4.gguf");
  ASSERT_EQ(v.size(), 262144u);
  EXPECT_EQ(v.bytes(1), "<eos>");
  EXPECT_EQ(v.bytes(106), "<turn|>");
  EXPECT_EQ(v.bytes(50), "<|tool_response>");
  EXPECT_EQ(Eog(v), (std::vector<uint32_t>{1, 50, 106}));
  CheckTestVectors(v, "ggml-vocab-gemma-4.gguf");
}

TEST_F(VocabReal, OtherTokenizerModelsAreUnsupported) {
  auto bert = Vocabulary::FromGgufFile((models_ / "ggml-vocab-bert-bge.gguf").string());
  ASSERT_FALSE(bert.ok());
  EXPECT_EQ(bert.error().code(), ErrorCode::kUnsupported);
  EXPECT_NE(bert.error().message().find("'bert'"), std::string::npos);
}

TEST_F(VocabReal, IdentitiesDiffer) {
  // gpt-neox and mpt ship the same vocabulary; qwen2 and qwen35 too.
  EXPECT_EQ(Load("ggml-vocab-gpt-neox.gguf").identity(), Load("ggml-vocab-mpt.gguf").identity());
  EXPECT_NE(Load("ggml-vocab-qwen2.gguf").identity(), Load("ggml-vocab-llama-bpe.gguf").identity());
}

}  // namespace
}  // namespace crux::constrain
