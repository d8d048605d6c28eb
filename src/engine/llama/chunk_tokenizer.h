// Byte-level BPE tokenization at parser speed, with exactly llama.cpp's result.
//
// llama.cpp's BPE tokenizer runs at about 5 MB/s: each pre-tokenizer chunk (a word, a run of
// punctuation or of blanks) is merged afresh with string-keyed hash lookups, and the text is
// searched once per special token. Prompts repeat the same words over and over, so this
// tokenizer finds the special tokens in one pass, splits the text into chunks itself with the
// vocabulary's pre-tokenizer rules, and looks each chunk up in a cache of the tokens llama.cpp
// gave for it (asking llama.cpp on a miss, for that chunk alone). A chunk's tokens do not
// depend on its neighbours, so the result is llama.cpp's own.
//
// Only the pre-tokenizers written out here are split here (Qwen2's and Llama 3's families,
// GPT-2 style byte-level vocabularies), and only over ASCII: a line holding any other byte
// goes to llama.cpp whole. Lines are cut only where the pre-tokenizer always cuts (after a
// newline, before a printable ASCII character), and text where special tokens overlap or
// strip the blanks beside them goes to llama.cpp unchanged.
//
// Thread-safe: the chunk cache is guarded by a mutex held for one call.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct llama_model;
struct llama_vocab;

namespace crux::engine {

// llama.cpp's tokenizer itself (llama_tokenize), appending to `out`.
void LlamaTokenizeInto(const llama_vocab* vocab, std::string_view text, bool add_special,
                       bool parse_special, std::vector<int32_t>& out);

class ChunkTokenizer {
 public:
  // Null where the model's tokenizer is not one this splits (then use llama_tokenize).
  static std::unique_ptr<ChunkTokenizer> Create(const llama_model* model);

  // Appends the tokens of `text` with special tokens parsed and nothing added: what
  // llama_tokenize(text, add_special = false, parse_special = true) returns.
  void Tokenize(std::string_view text, std::vector<int32_t>& out);

  // How the text was split: for tests and benchmarks.
  struct Stats {
    size_t chunks = 0;     // chunks looked up
    size_t misses = 0;     // of which the cache lacked
    size_t passed_on = 0;  // bytes given to llama.cpp whole (non-ASCII lines, overlaps)
  };
  Stats stats() const;

 private:
  enum class Digits { kOne, kThree };  // Qwen2's \p{N}, Llama 3's \p{N}{1,3}
  struct Special {
    std::string text;
    int32_t id;
    bool strips;  // lstrip or rstrip: llama.cpp drops the blanks beside it
  };
  struct Found {
    size_t at;
    size_t special;  // index into specials_
  };
  ChunkTokenizer(const llama_vocab* vocab, Digits digits);

  bool FindSpecials(std::string_view text, std::vector<Found>& found) const;
  void EmitLine(std::string_view line, std::vector<int32_t>& out);
  void EmitWholeLine(std::string_view line, std::vector<int32_t>& out);
  size_t ChunkEnd(std::string_view s, size_t pos) const;
  void Remember(std::string_view chunk, std::span<const int32_t> tokens);
  size_t PieceLength(int32_t token);
  void AppendLlama(std::string_view text, bool parse_special, std::vector<int32_t>& out);

  const llama_vocab* vocab_;
  const Digits digits_;
  std::vector<Special> specials_;
  std::array<std::vector<uint32_t>, 256> by_first_byte_;  // indices into specials_

  struct Hash {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): the standard name
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct Span {
    uint32_t offset, count;  // into pool_
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Span, Hash, std::equal_to<>> chunks_;  // guarded by mutex_
  std::vector<int32_t> pool_;                                            // guarded by mutex_
  static constexpr Span kMissing{0, UINT32_MAX};
  std::vector<size_t> ends_;  // a line's chunk ends; guarded by mutex_
  std::vector<Span> spans_;   // their cached tokens or kMissing; guarded by mutex_
  std::vector<int32_t>
      piece_lengths_;  // bytes each token writes, -1 until asked; guarded by mutex_
  Stats stats_;        // guarded by mutex_
};

}  // namespace crux::engine
