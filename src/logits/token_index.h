// What the tool-call processor precomputes once per vocabulary (private to logits/): a byte
// trie of the tokens in depth-first order, per-byte token lists and UTF-8 facts. Shared by
// every tool-call grammar compiled against the vocabulary, through a process-wide cache keyed
// by the vocabulary's identity.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "crux/constrain/vocab.h"

namespace crux::logits::tools {

struct TokenIndex {
  // Node i writes byte[i] at depth[i] (1: a child of the root); its subtree is nodes
  // [i, end[i]). The tokens whose bytes end at node i are tokens[first[i] .. first[i + 1]),
  // so a subtree's tokens are tokens[first[i] .. first[end[i]]). Every non-empty token is in
  // the trie except end-of-generation ones.
  std::vector<uint8_t> byte;
  std::vector<uint16_t> depth;
  std::vector<uint32_t> end;
  std::vector<uint32_t> first;  // size() + 1 entries
  std::vector<uint32_t> tokens;
  // Tokens that may be written as text where free text goes: normal, byte and user-defined
  // tokens (not control, unused or empty ones, not end-of-generation).
  std::vector<uint32_t> free_mask;
  std::vector<uint32_t> eog_mask;  // end-of-generation tokens
  // Per token: its bytes are well-formed UTF-8 from a character boundary (an unfinished last
  // character allowed), with no NUL byte.
  std::vector<uint8_t> utf8_ok;
  // Per byte: the tokens of the trie (special ones too) holding it somewhere.
  std::array<std::vector<uint32_t>, 256> containing;
  // Per byte b: (token, s) with s >= 1, bytes[s] == b and bytes[s - 1] a byte a JSON value can
  // end with (} ] " digit e l): where a token may finish a value and go on past it.
  std::array<std::vector<std::pair<uint32_t, uint32_t>>, 256> splits;
  // The node of the root's child by byte b (the trie's nodes starting with b), or UINT32_MAX.
  std::array<uint32_t, 256> root_child{};
  // The token that writes exactly one byte b, or UINT32_MAX.
  std::array<uint32_t, 256> byte_token{};
  uint32_t max_token_code_points = 0;
  // Masks: tokens of at most k code points (k <= kCountedCodePoints), tokens whose first or
  // last byte is a blank (text::IsSpace, what the parsers trim).
  static constexpr uint32_t kCountedCodePoints = 32;
  std::vector<std::vector<uint32_t>> at_most;
  std::vector<uint32_t> starts_blank;
  std::vector<uint32_t> ends_blank;

  size_t size() const { return byte.size(); }
};

std::shared_ptr<const TokenIndex> IndexFor(const constrain::Vocabulary& vocabulary);

}  // namespace crux::logits::tools
