#include "chunk_tokenizer.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "llama.h"

namespace crux::engine {
namespace {

// Pre-tokenizer names (GGUF tokenizer.ggml.pre) that llama.cpp splits with Qwen2's rules ...
constexpr std::string_view kQwen2Family[] = {"qwen2",  "deepseek-r1-qwen", "kormo",   "f2llmv2",
                                             "megrez", "stablelm2",        "hunyuan", "solar-open"};
// ... and with Llama 3's (the same, but digits in runs of up to three).
constexpr std::string_view kLlama3Family[] = {"llama3",   "llama-v3",  "llama-bpe",
                                              "falcon3",  "falcon-h1", "pixtral",
                                              "midm-2.0", "lfm2",      "jina-v5-nano"};

// ASCII character classes of the pre-tokenizer: \p{L}, \p{N}, \s; everything else is
// punctuation ([^\s\p{L}\p{N}]).
enum : uint8_t { kPunct = 0, kLetter = 1, kDigit = 2, kSpace = 3 };
constexpr std::array<uint8_t, 128> MakeClasses() {
  std::array<uint8_t, 128> classes{};
  for (int c = 'a'; c <= 'z'; ++c)
    classes[static_cast<size_t>(c)] = kLetter;
  for (int c = 'A'; c <= 'Z'; ++c)
    classes[static_cast<size_t>(c)] = kLetter;
  for (int c = '0'; c <= '9'; ++c)
    classes[static_cast<size_t>(c)] = kDigit;
  for (int c : {'\t', '\n', '\v', '\f', '\r', ' '})
    classes[static_cast<size_t>(c)] = kSpace;
  return classes;
}
constexpr std::array<uint8_t, 128> kClasses = MakeClasses();

uint8_t ClassAt(std::string_view s, size_t i) {
  return i < s.size() ? kClasses[static_cast<uint8_t>(s[i])] : uint8_t{kPunct};
}
bool LetterAt(std::string_view s, size_t i) {
  return i < s.size() && ClassAt(s, i) == kLetter;
}
bool NewlineAt(std::string_view s, size_t i) {
  return i < s.size() && (s[i] == '\n' || s[i] == '\r');
}
char LowerAt(std::string_view s, size_t i) {
  if (i >= s.size()) return 0;
  const char c = s[i];
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string MetaString(const llama_model* model, const char* key) {
  char buffer[128];
  const int32_t n = llama_model_meta_val_str(model, key, buffer, sizeof(buffer));
  if (n < 0 || static_cast<size_t>(n) >= sizeof(buffer)) return {};
  return std::string(buffer, static_cast<size_t>(n));
}

// Where a line may be cut: after a newline, before printable ASCII. No chunk of these
// pre-tokenizers holds a newline followed by a character other than a blank, and a chunk
// ending in a newline ends the same whatever follows it.
size_t LineEnd(std::string_view s, size_t from) {
  for (size_t i = s.find('\n', from); i != std::string_view::npos; i = s.find('\n', i + 1)) {
    if (i + 1 < s.size() && s[i + 1] > ' ' && s[i + 1] < 0x7f) return i + 1;
  }
  return s.size();
}

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<uint8_t>(c) < 0x80; });
}

// Chunks are short; a chunk longer than this (a run of thousands of blanks) is not cached.
constexpr size_t kMaxCachedChunk = 256;
// The cache is emptied when it holds this many chunks or pooled tokens.
constexpr size_t kMaxChunks = 1 << 17;
constexpr size_t kMaxPooled = 1 << 20;
// What one llama.cpp call costs beyond its text, in bytes of text (a call searches for every
// special token and sets up a session: about as long as tokenizing 16 bytes).
constexpr size_t kCallCostBytes = 16;

}  // namespace

std::unique_ptr<ChunkTokenizer> ChunkTokenizer::Create(const llama_model* model) {
  const llama_vocab* vocab = llama_model_get_vocab(model);
  if (llama_vocab_type(vocab) != LLAMA_VOCAB_TYPE_BPE) return nullptr;
  if (MetaString(model, "tokenizer.ggml.model") != "gpt2") return nullptr;
  const std::string pre = MetaString(model, "tokenizer.ggml.pre");
  const auto in = [&pre](const auto& family) {
    return std::find(std::begin(family), std::end(family), pre) != std::end(family);
  };
  Digits digits;
  if (in(kQwen2Family)) {
    digits = Digits::kOne;
  } else if (in(kLlama3Family)) {
    digits = Digits::kThree;
  } else {
    return nullptr;
  }
  std::unique_ptr<ChunkTokenizer> tokenizer(new ChunkTokenizer(vocab, digits));
  for (const Special& special : tokenizer->specials_)
    if (special.text.empty()) return nullptr;
  return tokenizer;
}

ChunkTokenizer::ChunkTokenizer(const llama_vocab* vocab, Digits digits)
    : vocab_(vocab),
      digits_(digits),
      piece_lengths_(static_cast<size_t>(llama_vocab_n_tokens(vocab)), -1) {
  const int32_t n = llama_vocab_n_tokens(vocab);
  for (int32_t id = 0; id < n; ++id) {
    const auto attr = llama_vocab_get_attr(vocab, id);
    if ((attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED |
                 LLAMA_TOKEN_ATTR_UNKNOWN)) == 0) {
      continue;
    }
    const char* text = llama_vocab_get_text(vocab, id);
    specials_.push_back(
        {text ? text : "", id, (attr & (LLAMA_TOKEN_ATTR_LSTRIP | LLAMA_TOKEN_ATTR_RSTRIP)) != 0});
  }
  for (size_t i = 0; i < specials_.size(); ++i) {
    if (specials_[i].text.empty()) continue;
    by_first_byte_[static_cast<uint8_t>(specials_[i].text[0])].push_back(static_cast<uint32_t>(i));
  }
}

ChunkTokenizer::Stats ChunkTokenizer::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

// Every occurrence of every special token, in order. False where two overlap, or one strips
// the blanks beside it: llama.cpp's result then depends on the order it tries them in.
bool ChunkTokenizer::FindSpecials(std::string_view text, std::vector<Found>& found) const {
  size_t covered = 0;  // the end of the last occurrence
  for (size_t at = 0; at < text.size(); ++at) {
    for (uint32_t index : by_first_byte_[static_cast<uint8_t>(text[at])]) {
      const std::string& special = specials_[index].text;
      if (text.compare(at, special.size(), special) != 0) continue;
      if (at < covered || specials_[index].strips) return false;
      found.push_back({at, index});
      covered = at + special.size();
    }
  }
  return true;
}

void ChunkTokenizer::Tokenize(std::string_view text, std::vector<int32_t>& out) {
  std::vector<Found> found;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!FindSpecials(text, found)) {
    stats_.passed_on += text.size();
    AppendLlama(text, true, out);
    return;
  }
  size_t from = 0;
  for (size_t k = 0; k <= found.size(); ++k) {
    const size_t end = k < found.size() ? found[k].at : text.size();
    const std::string_view raw = text.substr(0, end);
    while (from < end) {
      const size_t line_end = LineEnd(raw, from);
      EmitLine(raw.substr(from, line_end - from), out);
      from = line_end;
    }
    if (k == found.size()) break;
    out.push_back(specials_[found[k].special].id);
    from = end + specials_[found[k].special].text.size();
  }
}

// A line's tokens: from the cache, chunk by chunk. Where chunks are missing, llama.cpp
// tokenizes either each of them alone or the whole line in one call, whichever costs less.
void ChunkTokenizer::EmitLine(std::string_view line, std::vector<int32_t>& out) {
  if (!IsAscii(line)) {
    stats_.passed_on += line.size();
    AppendLlama(line, false, out);
    return;
  }
  ends_.clear();
  spans_.clear();
  size_t missing = 0, missing_bytes = 0;
  for (size_t pos = 0; pos < line.size();) {
    const size_t end = ChunkEnd(line, pos);
    ends_.push_back(end);
    const auto it = chunks_.find(line.substr(pos, end - pos));
    if (it == chunks_.end()) {
      spans_.push_back(kMissing);
      ++missing;
      missing_bytes += end - pos;
    } else {
      spans_.push_back(it->second);
    }
    pos = end;
  }
  stats_.chunks += ends_.size();
  stats_.misses += missing;
  if (missing * kCallCostBytes + missing_bytes > kCallCostBytes + line.size()) {
    EmitWholeLine(line, out);
    return;
  }
  size_t pos = 0;
  for (size_t i = 0; i < ends_.size(); ++i) {
    const Span span = spans_[i];
    if (span.count == kMissing.count) {
      const size_t first = out.size();
      const std::string_view chunk = line.substr(pos, ends_[i] - pos);
      AppendLlama(chunk, false, out);
      Remember(chunk, std::span<const int32_t>(out).subspan(first));
    } else {
      out.insert(out.end(), pool_.begin() + span.offset, pool_.begin() + span.offset + span.count);
    }
    pos = ends_[i];
  }
}

// One llama.cpp call for the line; its tokens are then cut at the chunk ends (each token's
// bytes lie within one chunk) to fill the cache.
void ChunkTokenizer::EmitWholeLine(std::string_view line, std::vector<int32_t>& out) {
  const size_t first = out.size();
  AppendLlama(line, false, out);
  size_t pos = 0, bytes = 0, chunk_first = first;
  auto end = ends_.begin();
  for (size_t i = first; i < out.size() && end != ends_.end(); ++i) {
    bytes += PieceLength(out[i]);
    if (bytes < *end) continue;
    if (bytes > *end) return;  // not cut at the chunk's end: cache nothing more
    Remember(line.substr(pos, *end - pos),
             std::span<const int32_t>(out).subspan(chunk_first, i + 1 - chunk_first));
    pos = *end;
    chunk_first = i + 1;
    ++end;
  }
}

// The end of the chunk that starts at `pos`: the pre-tokenizer's alternatives in order,
// (?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N} (or \p{N}{1,3}) |
// ' '?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+ — as llama.cpp evaluates them.
size_t ChunkTokenizer::ChunkEnd(std::string_view s, size_t pos) const {
  const char c = s[pos];
  const uint8_t cls = ClassAt(s, pos);
  if (c == '\'') {
    const char a = LowerAt(s, pos + 1), b = LowerAt(s, pos + 2);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return pos + 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return pos + 3;
  }
  if (c != '\r' && c != '\n' && cls != kDigit && (cls == kLetter || LetterAt(s, pos + 1))) {
    size_t end = pos + 1;
    while (LetterAt(s, end))
      ++end;
    return end;
  }
  if (cls == kDigit) {
    size_t end = pos + 1;
    if (digits_ == Digits::kThree) {
      while (end < s.size() && end - pos < 3 && ClassAt(s, end) == kDigit)
        ++end;
    }
    return end;
  }
  const size_t first = c == ' ' ? pos + 1 : pos;
  if (first < s.size() && ClassAt(s, first) == kPunct) {
    size_t end = first;
    while (end < s.size() && ClassAt(s, end) == kPunct)
      ++end;
    while (NewlineAt(s, end))
      ++end;
    return end;
  }
  size_t end = pos;  // a run of blanks
  size_t after_newline = 0;
  while (end < s.size() && ClassAt(s, end) == kSpace) {
    if (NewlineAt(s, end)) after_newline = end + 1;
    ++end;
  }
  if (after_newline != 0) return after_newline;
  if (end - pos > 1 && end < s.size()) return end - 1;
  return end;
}

void ChunkTokenizer::Remember(std::string_view chunk, std::span<const int32_t> tokens) {
  if (chunk.size() > kMaxCachedChunk || chunks_.count(chunk) != 0) return;
  if (chunks_.size() >= kMaxChunks || pool_.size() + tokens.size() > kMaxPooled) {
    chunks_.clear();
    pool_.clear();
  }
  chunks_.emplace(std::string(chunk),
                  Span{static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(tokens.size())});
  pool_.insert(pool_.end(), tokens.begin(), tokens.end());
}

size_t ChunkTokenizer::PieceLength(int32_t token) {
  if (token < 0 || static_cast<size_t>(token) >= piece_lengths_.size()) return 0;
  int32_t& length = piece_lengths_[static_cast<size_t>(token)];
  if (length < 0) {
    char buffer[256];
    length = std::max(0, llama_token_to_piece(vocab_, token, buffer, sizeof(buffer), 0, true));
  }
  return static_cast<size_t>(length);
}

void LlamaTokenizeInto(const llama_vocab* vocab, std::string_view text, bool add_special,
                       bool parse_special, std::vector<int32_t>& out) {
  const size_t first = out.size();
  out.resize(first + text.size() + 2);
  const auto length = static_cast<int32_t>(std::min<size_t>(text.size(), INT32_MAX));
  const auto room = [&] { return static_cast<int32_t>(out.size() - first); };
  int32_t n = llama_tokenize(vocab, text.data(), length, out.data() + first, room(), add_special,
                             parse_special);
  if (n < 0) {
    out.resize(first + static_cast<size_t>(-n));
    n = llama_tokenize(vocab, text.data(), length, out.data() + first, room(), add_special,
                       parse_special);
  }
  out.resize(first + static_cast<size_t>(std::max(n, 0)));
}

void ChunkTokenizer::AppendLlama(std::string_view text, bool parse_special,
                                 std::vector<int32_t>& out) {
  if (!text.empty()) LlamaTokenizeInto(vocab_, text, false, parse_special, out);
}

}  // namespace crux::engine
