#include "bench_text.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "crux/text/json_scan.h"

namespace crux::bench {
namespace {

constexpr std::array<std::string_view, 48> kWords = {
    "the",      "user",   "wants",   "to",      "know",     "whether",     "weather", "in",
    "Oslo",     "is",     "cold",    "so",      "I",        "should",      "check",   "forecast",
    "tomorrow", "and",    "compare", "with",    "average",  "temperature", "of",      "December",
    "maybe",    "call",   "a",       "tool",    "function", "that",        "returns", "data",
    "then",     "answer", "clearly", "because", "it",       "matters",     "for",     "planning",
    "travel",   "let",    "me",      "think",   "about",    "edge",        "cases",   "carefully"};

uint64_t Next(uint64_t& s) {
  s ^= s << 13;
  s ^= s >> 7;
  s ^= s << 17;
  return s;
}

}  // namespace

void AddProse(TokenStream& stream, int tokens, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
  int emitted = 0;
  while (emitted < tokens) {
    const uint64_t r = Next(s);
    std::string word(kWords[r % kWords.size()]);
    switch ((r >> 8) % 23) {
      case 0:
        word += ",";
        break;
      case 1:
        word += ".";
        break;
      case 2:
        word = std::to_string((r >> 16) % 1000);
        break;
      case 3:
        word = "<" + word + ">";
        break;
      case 4:
        word += "\n";
        break;
      default:
        break;
    }
    // Leading space like BPE tokens; long words split in two pieces.
    std::string piece = " " + word;
    if (piece.size() > 8) {
      stream.Add(piece.substr(0, 5));
      stream.Add(piece.substr(5));
      emitted += 2;
    } else {
      stream.Add(piece);
      emitted += 1;
    }
  }
}

TokenStream ReasoningStream(const std::string& format, int reasoning_tokens, int answer_tokens) {
  TokenStream s;
  if (format == "think") {
    s.Add("<think>");
    s.Add("\n");
    AddProse(s, reasoning_tokens, 1);
    s.Add("\n");
    s.Add("</think>");
    s.Add("\n\n");
  } else if (format == "mistral") {
    s.Add("[THINK]");
    AddProse(s, reasoning_tokens, 1);
    s.Add("[/THINK]");
  } else if (format == "gemma4") {
    s.Add("<|channel>");
    s.Add("thought");
    s.Add("\n");
    AddProse(s, reasoning_tokens, 1);
    s.Add("<channel|>");
  } else if (format == "command_r7b") {
    s.Add("<|START_THINKING|>");
    AddProse(s, reasoning_tokens, 1);
    s.Add("<|END_THINKING|>");
  } else if (format == "apertus") {
    s.Add("<|inner_prefix|>");
    AddProse(s, reasoning_tokens, 1);
    s.Add("<|inner_suffix|>");
  } else if (format == "harmony") {
    s.Add("<|channel|>");
    s.Add("analysis");
    s.Add("<|message|>");
    AddProse(s, reasoning_tokens, 1);
    s.Add("<|end|>");
    s.Add("<|start|>");
    s.Add("assistant");
    s.Add("<|channel|>");
    s.Add("final");
    s.Add("<|message|>");
  }
  AddProse(s, answer_tokens, 2);
  if (format == "harmony") s.Add("<|return|>");
  return s;
}

TokenStream ToolStream(const parse::CallGrammar& grammar, int total_tokens, int calls) {
  TokenStream s;
  const int prose_per_gap = std::max(1, (total_tokens - calls * 30) / (calls + 1));
  for (int c = 0; c < calls; ++c) {
    AddProse(s, prose_per_gap, 10 + static_cast<uint64_t>(c));
    s.Add("\n");
    const std::string args = "{\"city\": \"Oslo " + std::to_string(c) +
                             "\", \"days\": " + std::to_string(c % 7) +
                             ", \"units\": \"metric\", \"query\": \"weather forecast for the "
                             "coming week with hourly detail\"}";
    const std::string text =
        parse::RenderToolCalls(grammar, {parse::ToolCall{"", "get_weather", args, true}});
    for (size_t pos = 0; pos < text.size(); pos += 4)
      s.Add(text.substr(pos, 4));
    s.Add("\n");
  }
  AddProse(s, prose_per_gap, 999);
  return s;
}

TokenStream ToolArgsStream(const parse::CallGrammar& grammar, int total_tokens, int calls) {
  std::vector<parse::ToolCall> list;
  // About 4 bytes per piece and 5 bytes per prose token; a call's fixed text is about 120
  // bytes.
  const int prose_tokens = std::max(1, (total_tokens * 4 / calls - 120) / 5);
  for (int c = 0; c < calls; ++c) {
    TokenStream prose;
    AddProse(prose, prose_tokens, 100 + static_cast<uint64_t>(c));
    std::string args = "{\"path\": \"notes/day" + std::to_string(c) + ".md\", \"content\": ";
    text::AppendJsonString(args, prose.text);
    args += "}";
    list.push_back(parse::ToolCall{"", "write_file", args, true});
  }
  TokenStream s;
  const std::string text = parse::RenderToolCalls(grammar, list);
  for (size_t pos = 0; pos < text.size(); pos += 4)
    s.Add(text.substr(pos, 4));
  return s;
}

}  // namespace crux::bench
