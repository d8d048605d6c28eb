#include "crux/parse/events.h"

#include <array>

namespace crux::parse {

std::string_view EventKindName(EventKind kind) {
  static constexpr std::array<std::string_view, 6> kNames = {"reasoning",       "content",
                                                             "tool_call_begin", "tool_call_args",
                                                             "tool_call_end",   "tool_call_cancel"};
  return kNames[static_cast<size_t>(kind)];
}

std::string_view FinishReasonName(FinishReason reason) {
  static constexpr std::array<std::string_view, 6> kNames = {
      "stop", "length", "stop_sequence", "tool_calls", "cancelled", "error"};
  return kNames[static_cast<size_t>(reason)];
}

void EventSink::AppendText(EventKind kind, int index, std::string_view text) {
  if (text.empty()) return;
  if (!events_.empty()) {
    Event& last = events_.back();
    if (last.kind == kind && last.index == index) {
      last.text.append(text);
      return;
    }
  }
  Event& e = events_.emplace_back();
  e.kind = kind;
  e.index = index;
  e.text.assign(text);
}

void EventSink::ToolCallBegin(int index, std::string id, std::string name, bool declared) {
  Event& e = events_.emplace_back();
  e.kind = EventKind::kToolCallBegin;
  e.index = index;
  e.id = std::move(id);
  e.name = std::move(name);
  e.declared = declared;
}

void EventSink::ToolCallEnd(int index) {
  Event& e = events_.emplace_back();
  e.kind = EventKind::kToolCallEnd;
  e.index = index;
}

void EventSink::ToolCallCancel(int index) {
  Event& e = events_.emplace_back();
  e.kind = EventKind::kToolCallCancel;
  e.index = index;
}

void EventSink::Add(const Event& event) {
  switch (event.kind) {
    case EventKind::kReasoning:
    case EventKind::kContent:
    case EventKind::kToolCallArgs:
      AppendText(event.kind, event.index, event.text);
      break;
    default:
      events_.push_back(event);
      break;
  }
}

}  // namespace crux::parse
