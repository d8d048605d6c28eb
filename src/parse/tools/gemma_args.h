// The value syntax of Gemma's tool calls (Gemma 4, FunctionGemma): a literal dict converted to
// JSON as it streams. Shared by the families that write it (gemma4.cc, functiongemma.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crux/text/marker_set.h"
#include "parse/tools/toolkit.h"

namespace crux::parse::tools {

// Converts one Gemma literal dict (from its '{' to the matching '}') to JSON text, streaming:
// bare keys (or quoted ones), strings between `quote` delimiters (Gemma 4's `<|"|>`,
// FunctionGemma's `<escape>`) streamed as escaped JSON strings, JSON "strings", bare numbers
// and true/false/null, nested {} and []; any other bare value is a string. Per instance state
// (not thread-safe); `quote` (a set of one marker) must outlive it.
class GemmaArgs {
 public:
  using Status = text::FeedStatus;

  explicit GemmaArgs(const text::MarkerSet& quote) : quote_(&quote) {}

  // Consumes from `text`, appending JSON to `out`; `consumed` counts the bytes used (for
  // kDone up to and including the closing brace; for kNeedMore the rest may be a partial
  // quote that must be offered again with more bytes).
  Status Feed(std::string_view text, bool at_end, size_t& consumed, std::string& out);
  void Reset() {
    state_ = State::kOpen;
    stack_.clear();
    key_.clear();
    bare_.clear();
    string_.Reset();
    pending_comma_ = false;
  }

 private:
  enum class State : uint8_t {
    kOpen,
    kKey,
    kKeyBare,
    kKeyQuoted,
    kKeyJson,
    kColon,
    kValue,
    kQuoted,
    kJsonString,
    kBare,
    kAfterValue,
    kDone,
    kError
  };
  // Returned by a step that needs more bytes before it can consume anything.
  static constexpr size_t kWait = static_cast<size_t>(-1);

  size_t Fail() {
    state_ = State::kError;
    return 0;
  }
  void Comma(std::string& out) {
    if (pending_comma_) out.append(", ");
    pending_comma_ = false;
  }
  // `rest` starts a quoted string: 1 yes, 0 cannot tell yet, -1 no.
  int QuoteAt(std::string_view rest, bool at_end) const {
    const std::string_view quote = quote_->marker(0);
    if (rest.starts_with(quote)) return 1;
    if (!at_end && rest.size() < quote.size() && quote.starts_with(rest)) return 0;
    return -1;
  }
  bool Close(char c, std::string& out) {
    if (stack_.empty() || (c != '}' && c != ']') || (c == '}') != (stack_.back() == '{')) {
      return false;  // not a closer, or not this container's
    }
    out.push_back(c);
    stack_.pop_back();
    pending_comma_ = false;
    state_ = stack_.empty() ? State::kDone : State::kAfterValue;
    return true;
  }
  size_t KeyStart(std::string_view rest, bool at_end, std::string& out);
  size_t ValueStart(std::string_view rest, bool at_end, std::string& out);
  size_t KeyBareStep(char c, std::string& out);
  size_t QuotedStep(std::string_view rest, bool at_end, std::string& out);
  size_t JsonStringStep(std::string_view rest, std::string& out);
  size_t BareStep(char c, std::string& out);
  size_t PunctuationStep(char c, std::string& out);
  void WriteKey(std::string& out);
  void WriteBare(std::string& out);

  const text::MarkerSet* quote_;
  State state_ = State::kOpen;
  std::vector<char> stack_;
  std::string key_;
  std::string bare_;
  std::string decoded_;
  JsonStringDecoder string_;
  size_t key_raw_ = 0;  // input bytes of the JSON-string key being read
  bool pending_comma_ = false;
};

// Appends the JSON value `json` in the Gemma literal syntax (how the grammars write
// arguments): bare keys, strings between `Quote` marks (`<|"|>` for Gemma 4, `<escape>` for
// FunctionGemma), JSON's structure otherwise: {k:<|"|>v<|"|>,n:1}.
template <const std::string_view& Quote>
void AppendGemmaLiteral(std::string& out, std::string_view json) {
  static constexpr LiteralStyle kStyle{
      .item_separator = ",",
      .key_separator = ":",
      .string =
          [](std::string& text, std::string_view s, bool key) {
            if (!key) text.append(Quote);
            text.append(s);
            if (!key) text.append(Quote);
          },
      .true_text = "true",
      .false_text = "false",
      .null_text = "null",
  };
  AppendLiteral(out, json, kStyle);
}

}  // namespace crux::parse::tools
