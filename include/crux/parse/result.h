// The accumulated result of a parse: what a non-streaming response carries.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "crux/parse/events.h"

namespace crux::parse {

struct ToolCall {
  std::string id;
  std::string name;
  std::string arguments;  // JSON text of an object
  bool declared = true;
};

struct ParseResult {
  std::optional<std::string> reasoning;  // nullopt when the output had no reasoning text
  std::optional<std::string> content;    // nullopt when the output had no content text
  std::vector<ToolCall> tool_calls;
};

// Folds events into a ParseResult. Feeding the events of any chunking of one output gives the
// same result as feeding those of the complete parse.
class ResultBuilder {
 public:
  void Add(const Event& event);
  void AddAll(const std::vector<Event>& events) {
    for (const Event& e : events)
      Add(e);
  }
  ParseResult Take();
  const ParseResult& result() const { return result_; }

 private:
  ParseResult result_;
};

bool operator==(const ToolCall& a, const ToolCall& b);
bool operator==(const ParseResult& a, const ParseResult& b);

}  // namespace crux::parse
