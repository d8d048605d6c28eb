#include "crux/engine/prompt_tokenizer.h"

#include <algorithm>

#include "chunk_tokenizer.h"
#include "crux/base/common_prefix.h"
#include "llama.h"

namespace crux::engine {
namespace {

bool IsSpecial(const llama_vocab* vocab, llama_token token) {
  const auto attr = llama_vocab_get_attr(vocab, token);
  return (attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED |
                  LLAMA_TOKEN_ATTR_UNKNOWN)) != 0;
}

std::string Piece(const llama_vocab* vocab, llama_token token) {
  char small[64];
  int32_t n = llama_token_to_piece(vocab, token, small, sizeof(small), 0, true);
  if (n >= 0) return std::string(small, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(-n), '\0');
  n = llama_token_to_piece(vocab, token, big.data(), static_cast<int32_t>(big.size()), 0, true);
  big.resize(static_cast<size_t>(std::max(n, 0)));
  return big;
}

}  // namespace

std::vector<int32_t> LlamaTokenize(const llama_vocab* vocab, std::string_view text,
                                   bool add_special, bool parse_special) {
  std::vector<int32_t> tokens;
  LlamaTokenizeInto(vocab, text, add_special, parse_special, tokens);
  return tokens;
}

PromptTokenizer::PromptTokenizer(const llama_model* model, size_t entries)
    : vocab_(llama_model_get_vocab(model)),
      chunks_(ChunkTokenizer::Create(model)),
      add_bos_(llama_vocab_get_add_bos(vocab_)),
      add_eos_(llama_vocab_get_add_eos(vocab_)),
      capacity_(entries) {}

PromptTokenizer::~PromptTokenizer() = default;

std::vector<int32_t> PromptTokenizer::TokenizeText(std::string_view text, bool add_special,
                                                   bool parse_special) const {
  if (!chunks_ || !parse_special) return LlamaTokenize(vocab_, text, add_special, parse_special);
  std::vector<int32_t> tokens;
  tokens.reserve(text.size() / 3 + 2);
  if (add_special && add_bos_) tokens.push_back(llama_vocab_bos(vocab_));
  chunks_->Tokenize(text, tokens);
  if (add_special && add_eos_) tokens.push_back(llama_vocab_eos(vocab_));
  return tokens;
}

// Special tokens are written literally in the text (they are parsed from it), so the k-th
// special token is the first occurrence of its text after the previous one. A token not
// found (the BOS the tokenizer added) ends the search: later cuts are simply not offered.
void PromptTokenizer::FindCuts(std::string_view text, size_t text_from,
                               const std::vector<int32_t>& tokens, size_t token_from,
                               std::vector<Cut>& cuts) const {
  size_t cursor = text_from;
  for (size_t i = token_from; i < tokens.size(); ++i) {
    if (!IsSpecial(vocab_, tokens[i])) continue;
    if (i == 0 && add_bos_ && tokens[i] == llama_vocab_bos(vocab_)) continue;
    const std::string piece = Piece(vocab_, tokens[i]);
    const size_t at = piece.empty() ? std::string_view::npos : text.find(piece, cursor);
    if (at == std::string_view::npos) return;
    cursor = at + piece.size();
    cuts.push_back({cursor, i + 1});
  }
}

PromptTokenizer::Result PromptTokenizer::Tokenize(std::string_view text) {
  Entry entry;
  Result result;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = entries_.end();
    size_t best_common = 0;
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      const size_t common = CommonPrefixLength(it->text, text);
      if (best == entries_.end() || common > best_common) {
        best = it;
        best_common = common;
      }
    }
    if (best != entries_.end() && best_common == text.size() && best->text.size() == text.size()) {
      // The same prompt again (counted, then submitted): its tokens as they are.
      entries_.splice(entries_.begin(), entries_, best);
      result.tokens = entries_.front().tokens;
      result.reused = result.tokens.size();
      return result;
    }
    if (best != entries_.end()) {
      // The last cut inside the shared prefix: everything before it is reused.
      auto cut = std::upper_bound(best->cuts.begin(), best->cuts.end(), best_common,
                                  [](size_t value, const Cut& c) { return value < c.text_end; });
      if (cut != best->cuts.begin()) {
        --cut;
        entry.tokens.assign(best->tokens.begin(),
                            best->tokens.begin() + static_cast<ptrdiff_t>(cut->tokens));
        entry.cuts.assign(best->cuts.begin(), cut + 1);
      }
    }
  }
  const size_t from = entry.cuts.empty() ? 0 : entry.cuts.back().text_end;
  result.reused = entry.tokens.size();
  if (entry.cuts.empty()) {
    entry.tokens = TokenizeText(text, true, true);
    if (add_bos_ && !entry.tokens.empty() && entry.tokens[0] == llama_vocab_bos(vocab_)) {
      entry.cuts.push_back({0, 1});  // the BOS: a cut that writes no text
    } else {
      entry.cuts.push_back({0, 0});
    }
    FindCuts(text, 0, entry.tokens, 0, entry.cuts);
  } else {
    const size_t first_new = entry.tokens.size();
    std::vector<int32_t> tail = TokenizeText(text.substr(from), false, true);
    entry.tokens.insert(entry.tokens.end(), tail.begin(), tail.end());
    FindCuts(text, from, entry.tokens, first_new, entry.cuts);
  }
  result.tokens = entry.tokens;
  entry.text.assign(text);
  std::lock_guard<std::mutex> lock(mutex_);
  entries_.push_front(std::move(entry));
  while (entries_.size() > capacity_)
    entries_.pop_back();
  return result;
}

}  // namespace crux::engine
