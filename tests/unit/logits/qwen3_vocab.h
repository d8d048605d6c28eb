// Qwen3's vocabulary for the logits tests: llama.cpp's ggml-vocab-qwen2.gguf (151,936 tokens)
// with Qwen3's added tokens written into their real ids, as the tiny test model has them.
// Null when llama.cpp's models/ tree is absent.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

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
    std::vector<std::string> bytes;
    std::vector<constrain::TokenKind> kinds;
    for (uint32_t id = 0; id < base->size(); ++id) {
      bytes.emplace_back(base->bytes(id));
      kinds.push_back(base->kind(id));
    }
    static const char* const kAdded[] = {"<|endoftext|>",
                                         "<|im_start|>",
                                         "<|im_end|>",
                                         "<|object_ref_start|>",
                                         "<|object_ref_end|>",
                                         "<|box_start|>",
                                         "<|box_end|>",
                                         "<|quad_start|>",
                                         "<|quad_end|>",
                                         "<|vision_start|>",
                                         "<|vision_end|>",
                                         "<|vision_pad|>",
                                         "<|image_pad|>",
                                         "<|video_pad|>",
                                         "<tool_call>",
                                         "</tool_call>",
                                         "<|fim_prefix|>",
                                         "<|fim_middle|>",
                                         "<|fim_suffix|>",
                                         "<|fim_pad|>",
                                         "<|repo_name|>",
                                         "<|file_sep|>",
                                         "<tool_response>",
                                         "</tool_response>",
                                         "<think>",
                                         "</think>"};
    uint32_t id = kEndOfText;
    for (const char* text : kAdded) {
      const std::string piece = text;
      bytes[id] = piece;
      kinds[id] = piece.rfind("<|", 0) == 0 ? constrain::TokenKind::kControl
                                            : constrain::TokenKind::kUserDefined;
      ++id;
    }
    return std::make_shared<const constrain::Vocabulary>(constrain::Vocabulary::FromTokens(
        std::move(bytes), std::move(kinds), {kEndOfText, kImEnd}));
  }();
  return vocabulary;
}

}  // namespace crux::logits::test
