// Added tokens of model families whose vocabulary files leave them out: llama.cpp's
// ggml-vocab-qwen2.gguf holds `[PADnnnnnn]` placeholders where Qwen3 has <think>, <tool_call>
// and the other added tokens. The tiny test model and the tests write them at their real ids.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "crux/constrain/vocab.h"

namespace crux::constrain {

struct AddedToken {
  uint32_t id;
  std::string_view text;
  TokenKind kind;  // kControl for <|...|> tokens, kUserDefined for the others
};

// Qwen3's 26 added tokens, ids 151643 to 151668.
std::span<const AddedToken> Qwen3AddedTokens();

// `base` with `added` written over its ids (ids past the end are ignored); the
// end-of-generation ids are kept, plus the added tokens Vocabulary's loaders treat as such
// (<|im_end|>, <|endoftext|>, ...).
Vocabulary WithAddedTokens(const Vocabulary& base, std::span<const AddedToken> added);

}  // namespace crux::constrain
