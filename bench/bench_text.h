// Synthetic model output for benchmarks: realistic token-sized pieces in each family's format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace crux::bench {

// A stream: the text and its token pieces (concatenating the pieces gives the text).
struct TokenStream {
  std::string text;
  std::vector<std::string> pieces;
  void Add(const std::string& piece) {
    text += piece;
    pieces.push_back(piece);
  }
};

// Appends `tokens` pieces of English-like prose (words cut into 1-8 byte pieces, spaces,
// punctuation, some digits and the odd '<' that is not a marker).
void AddProse(TokenStream& stream, int tokens, uint64_t seed);

// A reasoning block of `reasoning_tokens` then an answer of `answer_tokens`, in the format
// of the named reasoning family ("think", "mistral", "gemma4", "harmony").
TokenStream ReasoningStream(const std::string& format, int reasoning_tokens, int answer_tokens);

}  // namespace crux::bench
