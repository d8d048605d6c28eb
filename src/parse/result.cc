#include "crux/parse/result.h"

#include "crux/base/check.h"

namespace crux::parse {

void ResultBuilder::Add(const Event& event) {
  switch (event.kind) {
    case EventKind::kReasoning:
      if (!result_.reasoning) result_.reasoning.emplace();
      result_.reasoning->append(event.text);
      break;
    case EventKind::kContent:
      if (!result_.content) result_.content.emplace();
      result_.content->append(event.text);
      break;
    case EventKind::kToolCallBegin: {
      CRUX_CHECK(event.index >= 0);
      const auto index = static_cast<size_t>(event.index);
      if (result_.tool_calls.size() <= index) result_.tool_calls.resize(index + 1);
      result_.tool_calls[index] = ToolCall{event.id, event.name, "", event.declared};
      break;
    }
    case EventKind::kToolCallArgs:
      CRUX_CHECK(event.index >= 0 && static_cast<size_t>(event.index) < result_.tool_calls.size());
      result_.tool_calls[static_cast<size_t>(event.index)].arguments.append(event.text);
      break;
    case EventKind::kToolCallEnd:
      break;
    case EventKind::kToolCallCancel:
      CRUX_CHECK(event.index >= 0 && static_cast<size_t>(event.index) < result_.tool_calls.size());
      result_.tool_calls.erase(result_.tool_calls.begin() + event.index);
      break;
  }
}

ParseResult ResultBuilder::Take() {
  ParseResult out = std::move(result_);
  result_ = ParseResult{};
  if (out.reasoning && out.reasoning->empty()) out.reasoning.reset();
  if (out.content && out.content->empty()) out.content.reset();
  return out;
}

bool operator==(const ToolCall& a, const ToolCall& b) {
  return a.id == b.id && a.name == b.name && a.arguments == b.arguments && a.declared == b.declared;
}

bool operator==(const ParseResult& a, const ParseResult& b) {
  return a.reasoning == b.reasoning && a.content == b.content && a.tool_calls == b.tool_calls;
}

}  // namespace crux::parse
