// Qwen3's vocabulary for the logits tests: llama.cpp's ggml-vocab-qwen2.gguf (151,936 tokens)
// with Qwen3's added tokens written into their real ids, as the tiny test model has them.
// Null when llama.cpp's models/ tree is absent.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "crux/constrain/added_tokens.h"
#include "crux/constrain/vocab.h"
#include "unit/constrain/test_data.h"

namespace crux::logits::test {

inline constexpr uint32_t kImEnd = 151645;
inline constexpr uint32_t kEndOfText = 151643;
inline constexpr uint32_t kToolCall = 151657;
inline constexpr uint32_t kToolCallEnd = 151658;
inline constexpr uint32_t kThink = 151667;
inline constexpr uint32_t kThinkEnd = 151668;

inline std::shared_ptr<const constrain::Vocabulary> Qwen3Vocabulary() {
  static const std::shared_ptr<const constrain::Vocabulary> vocabulary =
      []() -> std::shared_ptr<const constrain::Vocabulary> {
    auto base = constrain::Vocabulary::FromGgufFile(
        (constrain::test_data::LlamaCppDir() / "models" / "ggml-vocab-qwen2.gguf").string());
    if (!base.ok()) return nullptr;
    return std::make_shared<const constrain::Vocabulary>(
        constrain::WithAddedTokens(*base, constrain::Qwen3AddedTokens()));
  }();
  return vocabulary;
}

}  // namespace crux::logits::test
