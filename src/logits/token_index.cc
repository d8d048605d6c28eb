#include "token_index.h"

#include <algorithm>
#include <mutex>
#include <string_view>

#include "crux/text/stream_buffer.h"

namespace crux::logits::tools {
namespace {

// True when `bytes` is well-formed UTF-8 from a character boundary, allowing an unfinished
// last character, with no NUL; `code_points` counts the characters begun.
bool Utf8Ok(std::string_view bytes, uint32_t& code_points) {
  code_points = 0;
  size_t i = 0;
  while (i < bytes.size()) {
    const auto lead = static_cast<uint8_t>(bytes[i]);
    ++code_points;
    if (lead == 0) return false;
    size_t more = 0;
    uint8_t low = 0x80;
    uint8_t high = 0xBF;
    if (lead < 0x80) {
      more = 0;
    } else if (lead >= 0xC2 && lead <= 0xDF) {
      more = 1;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      more = 2;
      if (lead == 0xE0) low = 0xA0;
      if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      more = 3;
      if (lead == 0xF0) low = 0x90;
      if (lead == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    ++i;
    for (size_t k = 0; k < more && i < bytes.size(); ++k, ++i) {
      const auto next = static_cast<uint8_t>(bytes[i]);
      if (next < low || next > high) return false;
      low = 0x80;
      high = 0xBF;
    }
  }
  return true;
}

bool ValueEndByte(uint8_t byte) {
  return byte == '}' || byte == ']' || byte == '"' || (byte >= '0' && byte <= '9') || byte == 'e' ||
         byte == 'l';
}

void BuildTrie(const constrain::Vocabulary& vocabulary, std::vector<uint32_t>& order,
               TokenIndex& index) {
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return vocabulary.bytes(a) < vocabulary.bytes(b); });
  std::vector<uint32_t> path;  // node per depth - 1
  std::string_view previous;
  for (const uint32_t token : order) {
    const std::string_view bytes = vocabulary.bytes(token);
    size_t common = 0;
    while (common < previous.size() && common < bytes.size() && previous[common] == bytes[common])
      ++common;
    if (common == bytes.size() && common == previous.size() && !path.empty()) {
      index.tokens.push_back(token);  // the same bytes as the previous token
      continue;
    }
    while (path.size() > common) {
      index.end[path.back()] = static_cast<uint32_t>(index.byte.size());
      path.pop_back();
    }
    for (size_t d = common; d < bytes.size(); ++d) {
      path.push_back(static_cast<uint32_t>(index.byte.size()));
      index.byte.push_back(static_cast<uint8_t>(bytes[d]));
      index.depth.push_back(static_cast<uint16_t>(d + 1));
      index.end.push_back(0);
      index.first.push_back(static_cast<uint32_t>(index.tokens.size()));
    }
    index.tokens.push_back(token);
    previous = bytes;
  }
  while (!path.empty()) {
    index.end[path.back()] = static_cast<uint32_t>(index.byte.size());
    path.pop_back();
  }
  index.first.push_back(static_cast<uint32_t>(index.tokens.size()));
}

void IndexBytes(const constrain::Vocabulary& vocabulary, uint32_t token, TokenIndex& index) {
  const std::string_view bytes = vocabulary.bytes(token);
  uint32_t code_points = 0;
  index.utf8_ok[token] = Utf8Ok(bytes, code_points) ? 1 : 0;
  index.max_token_code_points = std::max(index.max_token_code_points, code_points);
  const uint32_t bit = uint32_t{1} << (token & 31);
  for (uint32_t k = code_points; k <= TokenIndex::kCountedCodePoints; ++k)
    index.at_most[k][token >> 5] |= bit;
  if (!bytes.empty() && text::IsSpace(bytes.front())) index.starts_blank[token >> 5] |= bit;
  if (!bytes.empty() && text::IsSpace(bytes.back())) index.ends_blank[token >> 5] |= bit;
  bool seen[256] = {};
  for (size_t s = 0; s < bytes.size(); ++s) {
    const auto b = static_cast<uint8_t>(bytes[s]);
    if (!seen[b]) index.containing[b].push_back(token);
    seen[b] = true;
    if (s > 0 && !vocabulary.is_special(token) && ValueEndByte(static_cast<uint8_t>(bytes[s - 1])))
      index.splits[b].emplace_back(token, static_cast<uint32_t>(s));
  }
  if (bytes.size() == 1 && !vocabulary.is_special(token))
    index.byte_token[static_cast<uint8_t>(bytes[0])] = token;
}

std::shared_ptr<const TokenIndex> Build(const constrain::Vocabulary& vocabulary) {
  auto index = std::make_shared<TokenIndex>();
  const size_t words = vocabulary.mask_words();
  index->free_mask.assign(words, 0);
  index->eog_mask.assign(words, 0);
  index->utf8_ok.assign(vocabulary.size(), 0);
  index->at_most.assign(TokenIndex::kCountedCodePoints + 1, std::vector<uint32_t>(words, 0));
  index->starts_blank.assign(words, 0);
  index->ends_blank.assign(words, 0);
  index->byte_token.fill(UINT32_MAX);
  for (const uint32_t id : vocabulary.end_of_generation())
    index->eog_mask[id >> 5] |= uint32_t{1} << (id & 31);
  std::vector<uint32_t> order;
  for (uint32_t id = 0; id < vocabulary.size(); ++id) {
    if (vocabulary.bytes(id).empty()) continue;
    if ((index->eog_mask[id >> 5] >> (id & 31) & 1) != 0) continue;
    const constrain::TokenKind kind = vocabulary.kind(id);
    if (kind == constrain::TokenKind::kUnused || kind == constrain::TokenKind::kUnknown) continue;
    order.push_back(id);
    if (kind != constrain::TokenKind::kControl)
      index->free_mask[id >> 5] |= uint32_t{1} << (id & 31);
    IndexBytes(vocabulary, id, *index);
  }
  BuildTrie(vocabulary, order, *index);
  index->root_child.fill(UINT32_MAX);
  for (uint32_t i = 0; i < index->size(); ++i) {
    if (index->depth[i] == 1) index->root_child[index->byte[i]] = i;
  }
  return index;
}

}  // namespace

std::shared_ptr<const TokenIndex> IndexFor(const constrain::Vocabulary& vocabulary) {
  // Kept for the life of the process (a server holds one or two vocabularies), so that a
  // request's grammar never pays for the index; the oldest goes past a handful.
  static std::mutex mutex;
  static std::vector<std::pair<uint64_t, std::shared_ptr<const TokenIndex>>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& [identity, index] : cache) {
    if (identity == vocabulary.identity()) return index;
  }
  auto index = Build(vocabulary);
  if (cache.size() >= 4) cache.erase(cache.begin());
  cache.emplace_back(vocabulary.identity(), index);
  return index;
}

}  // namespace crux::logits::tools
