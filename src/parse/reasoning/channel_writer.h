// Writes reasoning and content text to a sink with each channel trimmed the way complete
// extraction strips it: reasoning blocks are trimmed one by one and joined with "\n"; content
// is one section trimmed at both ends. Trailing whitespace is held until more text follows.
#pragma once

#include <string>
#include <string_view>

#include "crux/parse/events.h"
#include "crux/text/stream_buffer.h"

namespace crux::parse {

class ChannelWriter {
 public:
  void Reasoning(std::string_view text, EventSink& out) {
    scratch_.clear();
    reasoning_.Append(text, scratch_);
    out.Reasoning(scratch_);
  }
  void Content(std::string_view text, EventSink& out) {
    scratch_.clear();
    content_.Append(text, scratch_);
    out.Content(scratch_);
  }
  void Write(bool reasoning, std::string_view text, EventSink& out) {
    if (reasoning) {
      Reasoning(text, out);
    } else {
      Content(text, out);
    }
  }
  // A new reasoning block begins: joined to earlier ones with a newline.
  void StartReasoningBlock() { reasoning_.StartPart("\n"); }
  void Reset() {
    reasoning_.Reset();
    content_.Reset();
  }

 private:
  text::TrimStream reasoning_;
  text::TrimStream content_;
  std::string scratch_;
};

}  // namespace crux::parse
