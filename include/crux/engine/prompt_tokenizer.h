// Tokenizing prompts in time proportional to what is new. Agents resend the whole
// conversation every turn; the cache keeps recent prompts with their tokens and, for each
// special token, where it ends in the text and in the tokens. llama.cpp's tokenizer splits
// text at special tokens and tokenizes the pieces between them independently, so a new prompt
// that shares a prefix with a cached one reuses every token up to the last special token
// inside the shared prefix and tokenizes only the rest: exactly the tokens a full pass gives.
//
// Part of crux_engine_llama (built only with llama.cpp). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

struct llama_model;
struct llama_vocab;

namespace crux::engine {

class ChunkTokenizer;

// llama.cpp's tokenizer itself (llama_tokenize), no cache.
std::vector<int32_t> LlamaTokenize(const llama_vocab* vocab, std::string_view text,
                                   bool add_special, bool parse_special);

class PromptTokenizer {
 public:
  // Keeps the last `entries` prompts. Text is tokenized by a ChunkTokenizer where the model's
  // tokenizer is one it splits, else by llama.cpp.
  PromptTokenizer(const llama_model* model, size_t entries);
  ~PromptTokenizer();
  PromptTokenizer(const PromptTokenizer&) = delete;
  PromptTokenizer& operator=(const PromptTokenizer&) = delete;

  struct Result {
    std::vector<int32_t> tokens;
    size_t reused = 0;  // tokens taken from the cache without tokenizing
  };
  // The prompt's tokens (special tokens parsed; the model's BOS added when its vocabulary
  // asks for one).
  Result Tokenize(std::string_view text);

  // Tokenization without the prompt cache (the same tokens as LlamaTokenize).
  std::vector<int32_t> TokenizeText(std::string_view text, bool add_special,
                                    bool parse_special) const;

  // Whether text is split by a ChunkTokenizer.
  bool chunked() const { return chunks_ != nullptr; }

 private:
  struct Cut {
    size_t text_end;  // the text up to here ...
    size_t tokens;    // ... is these many tokens, ending with a special token
  };
  struct Entry {
    std::string text;
    std::vector<int32_t> tokens;
    std::vector<Cut> cuts;
  };
  void FindCuts(std::string_view text, size_t text_from, const std::vector<int32_t>& tokens,
                size_t token_from, std::vector<Cut>& cuts) const;

  const llama_vocab* vocab_;
  std::unique_ptr<ChunkTokenizer> chunks_;  // null: llama.cpp tokenizes
  bool add_bos_;
  bool add_eos_;
  size_t capacity_;
  std::mutex mutex_;
  std::list<Entry> entries_;  // most recent first
};

}  // namespace crux::engine
