// Synthetic model output for benchmarks: realistic token-sized pieces in each family's format.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "crux/parse/call_grammar.h"
#include "crux/parse/result.h"

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
// of the named reasoning family ("think", "mistral", "gemma4", "harmony", "command_r7b",
// "apertus").
TokenStream ReasoningStream(const std::string& format, int reasoning_tokens, int answer_tokens);

// About `total_tokens` pieces of prose with `calls` tool calls spread evenly through it, each
// written from `grammar` (a format's declaration) and cut into pieces of about 4 bytes.
TokenStream ToolStream(const parse::CallGrammar& grammar, int total_tokens, int calls);

// The whole output is `calls` tool calls written from `grammar` back to back, about
// `total_tokens` pieces of about 4 bytes in all: each call carries a short path argument and a
// long prose `content` string, the shape of a model writing a file through a tool.
TokenStream ToolArgsStream(const parse::CallGrammar& grammar, int total_tokens, int calls);

}  // namespace crux::bench
