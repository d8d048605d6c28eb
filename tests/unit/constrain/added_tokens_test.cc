// The family tables of added tokens and writing them into a vocabulary: on a small vocabulary
// made here, and on llama.cpp's ggml-vocab-qwen2.gguf, whose ids past 151645 are `[PAD…]`
// placeholders (skipped when llama.cpp's tree is absent).
#include "crux/constrain/added_tokens.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "test_data.h"

namespace crux::constrain {
namespace {

bool Contains(std::span<const uint32_t> ids, uint32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

TEST(AddedTokens, Qwen3TableHasItsRealIdsAndKinds) {
  const auto table = Qwen3AddedTokens();
  ASSERT_EQ(table.size(), 26u);
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(table[i].id, 151643 + i) << table[i].text;
    const bool control = table[i].text.starts_with("<|") && table[i].text.ends_with("|>");
    EXPECT_EQ(table[i].kind, control ? TokenKind::kControl : TokenKind::kUserDefined)
        << table[i].text;
    EXPECT_EQ(table[i].text.data()[table[i].text.size()], '\0') << table[i].text;
  }
  EXPECT_EQ(table[2].text, "<|im_end|>");
  EXPECT_EQ(table[14].text, "<tool_call>");
  EXPECT_EQ(table[15].text, "</tool_call>");
  EXPECT_EQ(table[24].text, "<think>");
  EXPECT_EQ(table[25].text, "</think>");
}

TEST(AddedTokens, WritesTextKindsAndEndOfGeneration) {
  const Vocabulary base = Vocabulary::FromTokens(
      {"a", "b", "[PAD3]", "[PAD4]", "e"}, std::vector<TokenKind>(5, TokenKind::kNormal), {1, 4});
  const std::array<AddedToken, 4> added = {{
      {2, "<think>", TokenKind::kUserDefined},
      {3, "<|im_end|>", TokenKind::kControl},
      {4, "<tool_call>", TokenKind::kUserDefined},  // replaces an end-of-generation id
      {9, "<|endoftext|>", TokenKind::kControl},    // past the end: ignored
  }};
  const Vocabulary patched = WithAddedTokens(base, added);
  ASSERT_EQ(patched.size(), 5u);
  EXPECT_EQ(patched.bytes(0), "a");
  EXPECT_EQ(patched.kind(0), TokenKind::kNormal);
  EXPECT_EQ(patched.bytes(2), "<think>");
  EXPECT_EQ(patched.kind(2), TokenKind::kUserDefined);
  EXPECT_TRUE(patched.is_special(2));
  EXPECT_EQ(patched.bytes(3), "<|im_end|>");
  EXPECT_EQ(patched.kind(3), TokenKind::kControl);
  EXPECT_EQ(patched.bytes(4), "<tool_call>");
  const std::vector<uint32_t> eog(patched.end_of_generation().begin(),
                                  patched.end_of_generation().end());
  EXPECT_EQ(eog, (std::vector<uint32_t>{1, 3}));
  EXPECT_NE(patched.identity(), base.identity());
}

TEST(AddedTokens, Qwen3OverLlamaCppsQwen2Vocabulary) {
  auto base = Vocabulary::FromGgufFile(
      (test_data::LlamaCppDir() / "models" / "ggml-vocab-qwen2.gguf").string());
  if (!base.ok()) GTEST_SKIP() << test_data::kNoLlamaCpp;
  ASSERT_EQ(base->size(), 151936u);
  ASSERT_EQ(base->bytes(151667).substr(0, 4), "[PAD");
  const Vocabulary qwen3 = WithAddedTokens(*base, Qwen3AddedTokens());
  ASSERT_EQ(qwen3.size(), base->size());
  for (const AddedToken& token : Qwen3AddedTokens()) {
    EXPECT_EQ(qwen3.bytes(token.id), token.text);
    EXPECT_EQ(qwen3.kind(token.id), token.kind);
    EXPECT_TRUE(qwen3.is_special(token.id));
  }
  EXPECT_EQ(qwen3.bytes(151669).substr(0, 4), "[PAD");
  EXPECT_EQ(qwen3.bytes(151642), base->bytes(151642));
  EXPECT_TRUE(Contains(qwen3.end_of_generation(), 151645));  // <|im_end|>
  EXPECT_TRUE(Contains(qwen3.end_of_generation(), 151643));  // <|endoftext|>
  EXPECT_FALSE(Contains(qwen3.end_of_generation(), 151667));
}

}  // namespace
}  // namespace crux::constrain
