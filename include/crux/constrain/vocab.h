// A model's vocabulary as the constraining grammar sees it: token id → the bytes the token
// writes, which tokens are special (never allowed by a grammar) and which end generation.
//
// Loaded from a GGUF file (`tokenizer.ggml.*`: byte-level BPE vocabularies such as Llama 3 and
// Qwen2, whose pieces spell bytes with the GPT-2 byte-to-unicode table; SentencePiece
// vocabularies such as Llama 2, Phi-3 and Gemma, with `▁` for a space and `<0xNN>` byte tokens)
// or from a Hugging Face `tokenizer.json`. Thread-safety: immutable once built; share it.
// Cost: loading is linear in the file; lookups are O(1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"

namespace crux::constrain {

// GGUF's token types (llama.cpp's llama_token_type), plus kByte for `<0xNN>` pieces.
enum class TokenKind : uint8_t {
  kNormal,       // text
  kUnknown,      // <unk>
  kControl,      // <|eot_id|>, <s>, … : never allowed by a grammar
  kUserDefined,  // added tokens (<think>, <tool_call>): never allowed by a grammar
  kUnused,       // reserved slots: never allowed
  kByte,         // <0xNN>: writes one byte
};

// Limits on hostile vocabulary files; past each one the loader returns ErrorCode::kLimit.
inline constexpr size_t kMaxVocabularyTokens = 1u << 21;  // 2,097,152 tokens
inline constexpr size_t kMaxTokenBytes = 1024;            // bytes one token writes

class Vocabulary {
 public:
  // Reads `tokenizer.ggml.model`, `.tokens`, `.token_type`, `.eos_token_id`, `.eot_token_id`,
  // `.eom_token_id` from a GGUF file (versions 2 and 3). kIo when unreadable, kParse when the
  // file is not GGUF or is truncated or corrupt (the message names the key or the offset),
  // kUnsupported for a tokenizer model other than gpt2 (byte-level BPE), llama (SentencePiece)
  // or gemma4 (BPE over SentencePiece-style pieces), kLimit above. End-of-generation ids are
  // eos, eot and eom plus the control and user-defined tokens whose text is one of
  // `<|eot_id|>`, `<|eom_id|>`, `<|end_of_text|>`, `<|im_end|>`, `<|endoftext|>`,
  // `<end_of_turn>`, `<|end|>`, `<eos>`, `</s>`, `<turn|>`, `<|tool_response>` (names llama.cpp
  // also stops on;
  // vocabulary files often name only eos). FromGgufFile reads only the metadata, not the
  // tensors, so a model file of many gigabytes costs a few megabytes.
  static Expected<Vocabulary> FromGgufFile(const std::string& path);
  static Expected<Vocabulary> FromGguf(std::string_view file_bytes);
  // Reads `model.vocab` (BPE with byte-level pieces when the pre-tokenizer or decoder is
  // ByteLevel, else SentencePiece-style with `▁` and `<0xNN>`; Unigram's [piece, score] list)
  // and `added_tokens` (special ones are kControl, the others kUserDefined; an added token
  // overrides the vocab entry of its id) of a Hugging Face tokenizer.json. Ids missing from
  // both are empty kUnused tokens. End-of-generation ids: the named tokens listed above.
  static Expected<Vocabulary> FromTokenizerJson(std::string_view json);
  // A vocabulary given directly (tests, benchmarks): token i writes bytes[i].
  static Vocabulary FromTokens(std::vector<std::string> bytes, std::vector<TokenKind> kinds,
                               std::vector<uint32_t> end_of_generation);

  size_t size() const { return kinds_.size(); }
  // The bytes token `id` writes when detokenized (for special tokens: their text, unused).
  std::string_view bytes(uint32_t id) const {
    return std::string_view(pool_).substr(offsets_[id], offsets_[id + 1] - offsets_[id]);
  }
  TokenKind kind(uint32_t id) const { return kinds_[id]; }
  // True for tokens a grammar never allows: everything but kNormal and kByte, and empty ones.
  bool is_special(uint32_t id) const {
    return (kinds_[id] != TokenKind::kNormal && kinds_[id] != TokenKind::kByte) ||
           offsets_[id] == offsets_[id + 1];
  }
  // Tokens that end generation (eos, eot, eom), sorted, no duplicates.
  std::span<const uint32_t> end_of_generation() const { return eog_; }
  // A 64-bit hash of every token's bytes and kind and of the end-of-generation ids: the cache
  // key of grammars compiled against this vocabulary.
  uint64_t identity() const { return identity_; }
  // Words of a token bitmask over this vocabulary: ceil(size / 32).
  size_t mask_words() const { return (size() + 31) / 32; }

 private:
  Vocabulary() = default;
  void Finish();  // sorts eog_, computes identity_

  std::string pool_;               // every token's bytes, back to back
  std::vector<uint32_t> offsets_;  // size() + 1 offsets into pool_
  std::vector<TokenKind> kinds_;
  std::vector<uint32_t> eog_;
  uint64_t identity_ = 0;
};

}  // namespace crux::constrain
