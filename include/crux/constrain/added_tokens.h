// Added tokens of model families whose vocabulary files leave them out: llama.cpp's
// ggml-vocab-qwen2.gguf holds `[PADnnnnnn]` placeholders where Qwen3 has <think>, <tool_call>
// and the other added tokens. The tiny test model and the tests write them at their real ids.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "crux/constrain/vocab.h"

namespace crux::constrain {

// One added token: its id in the family's vocabulary, its text (what it writes when
// detokenized; NUL-terminated in the tables below) and its kind.
struct AddedToken {
  uint32_t id;
  std::string_view text;
  TokenKind kind;  // kControl for <|...|> tokens, kUserDefined for the others (GGUF types 3, 4)
};

// Qwen3's 26 added tokens, ids 151643 to 151668, sorted by id, as Qwen3's tokenizer.json and
// its GGUFs (convert_hf_to_gguf.py) have them. Static storage; never empty.
std::span<const AddedToken> Qwen3AddedTokens();

// `base` with `added` written over its ids (text and kind; ids past the end are ignored).
// End-of-generation ids: the added tokens Vocabulary's loaders stop on (<|im_end|>,
// <|endoftext|>), plus the base's own except those an added token replaced. Cost: a copy of
// `base`, linear in its size.
Vocabulary WithAddedTokens(const Vocabulary& base, std::span<const AddedToken> added);

}  // namespace crux::constrain
