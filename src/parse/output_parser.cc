#include "crux/parse/output_parser.h"

namespace crux::parse {

void OutputParser::Feed(std::string_view delta, EventSink& out) {
  if (reasoning_ == nullptr) {
    if (tools_ != nullptr) {
      tools_->Feed(delta, out);
    } else {
      out.Content(delta);
    }
    return;
  }
  stage_.Clear();
  reasoning_->Feed(delta, stage_);
  Route(out);
}

void OutputParser::Finish(EventSink& out) {
  if (reasoning_ != nullptr) {
    stage_.Clear();
    reasoning_->Finish(stage_);
    Route(out);
  }
  if (tools_ != nullptr) tools_->Finish(out);
}

void OutputParser::Reset() {
  if (reasoning_ != nullptr) reasoning_->Reset();
  if (tools_ != nullptr) tools_->Reset();
  stage_.Clear();
}

void OutputParser::Route(EventSink& out) {
  for (const Event& e : stage_.events()) {
    if (e.kind == EventKind::kContent && tools_ != nullptr) {
      tools_->Feed(e.text, out);
    } else {
      out.Add(e);
    }
  }
}

std::optional<DeltaMessage> DeltaAdapter::ToDelta(const std::vector<Event>& events) {
  DeltaMessage msg;
  for (const Event& e : events) {
    switch (e.kind) {
      case EventKind::kReasoning:
        if (!msg.reasoning) msg.reasoning.emplace();
        msg.reasoning->append(e.text);
        break;
      case EventKind::kContent:
        if (!msg.content) msg.content.emplace();
        msg.content->append(e.text);
        break;
      case EventKind::kToolCallBegin:
        msg.tool_calls.push_back({e.index, e.id, e.name, ""});
        break;
      case EventKind::kToolCallArgs:
        if (!msg.tool_calls.empty() && msg.tool_calls.back().index == e.index) {
          msg.tool_calls.back().arguments.append(e.text);
        } else {
          msg.tool_calls.push_back({e.index, "", "", e.text});
        }
        break;
      case EventKind::kToolCallEnd:
      case EventKind::kToolCallCancel:
        break;
    }
  }
  if (msg.empty()) return std::nullopt;
  return msg;
}

std::optional<DeltaMessage> DeltaAdapter::ExtractStreaming(std::string_view /*previous_text*/,
                                                           std::string_view /*current_text*/,
                                                           std::string_view delta_text) {
  sink_.Clear();
  parser_.Feed(delta_text, sink_);
  return ToDelta(sink_.events());
}

std::optional<DeltaMessage> DeltaAdapter::Finalize() {
  sink_.Clear();
  parser_.Finish(sink_);
  return ToDelta(sink_.events());
}

}  // namespace crux::parse
