// Canonical events → OpenAI Responses stream events.
//
// response.created and response.in_progress first; then one output item per run of
// reasoning (reasoning item), text (message item) or tool call (function_call item), each
// added before it is filled and closed with its .done events; then response.completed (or
// response.incomplete) carrying the complete Response. `sequence_number` counts every event
// from 0. Only event types of the SDK's union are used; there is no [DONE]. When the request
// asks for a reasoning summary, a reasoning item's text is its summary: its events are
// reasoning_summary_part.added, reasoning_summary_text.delta/.done and
// reasoning_summary_part.done (summary_index 0) instead of the content-part ones.
#include "crux/text/ids.h"
#include "protocol/encoders.h"
#include "protocol/errors.h"
#include "protocol/responses/response.h"
#include "protocol/sse.h"

namespace crux::protocol::internal {
namespace {

using Type = OutputItem::Type;

// The events that fill the one part of a text-bearing item, and the key that addresses it.
struct PartEvents {
  std::string_view part_added;
  std::string_view delta;
  std::string_view text_done;
  std::string_view part_done;
  std::string_view index_key;
};

constexpr PartEvents kMessageEvents{"response.content_part.added", "response.output_text.delta",
                                    "response.output_text.done", "response.content_part.done",
                                    "content_index"};
constexpr PartEvents kReasoningEvents{
    "response.content_part.added", "response.reasoning_text.delta", "response.reasoning_text.done",
    "response.content_part.done", "content_index"};
constexpr PartEvents kSummaryEvents{"response.reasoning_summary_part.added",
                                    "response.reasoning_summary_text.delta",
                                    "response.reasoning_summary_text.done",
                                    "response.reasoning_summary_part.done", "summary_index"};

const PartEvents& EventsFor(const OutputItem& item) {
  if (item.type == Type::kMessage) return kMessageEvents;
  return item.summary ? kSummaryEvents : kReasoningEvents;
}

class ResponsesStreamEncoder final : public EncoderBase {
 public:
  ResponsesStreamEncoder(const ChatRequest& request, const ResponseMeta& meta)
      : response_(BaseResponse(request, meta)),
        ids_(meta.id_seed),
        summary_(!request.reasoning_summary.empty()) {}

  std::string_view KeepAlive() const override { return kSseKeepAlive; }
  std::string FinalObject() const override {
    auto it = final_event_.find("response");
    return it == final_event_.end() ? std::string() : Dump(*it);
  }

 protected:
  void OnBegin(std::string& out) override {
    for (const char* type : {"response.created", "response.in_progress"}) {
      Json event = Head(type);
      event["response"] = response_;
      Emit(event, out);
    }
  }

  void OnEvent(const parse::Event& event, std::string& out) override {
    switch (event.kind) {
      case parse::EventKind::kReasoning:
      case parse::EventKind::kContent:
        if (OpenIs(Type::kFunctionCall)) {
          held_.Add(event.kind, event.text);
        } else {
          Text(event.kind, event.text, out);
        }
        return;
      case parse::EventKind::kToolCallBegin:
        BeginCall(event, out);
        return;
      case parse::EventKind::kToolCallArgs:
        // As in the Anthropic encoder: only the open call's item can take fragments.
        if (OpenIs(Type::kFunctionCall) && slots_.Find(event.index) == open_ &&
            !event.text.empty()) {
          items_[static_cast<size_t>(open_)].arguments += event.text;
          DeltaEvent("response.function_call_arguments.delta", event.text, false, out);
        }
        return;
      case parse::EventKind::kToolCallEnd:
        if (OpenIs(Type::kFunctionCall) && slots_.Find(event.index) == open_) {
          CloseItem("completed", out);
        }
        return;
      case parse::EventKind::kToolCallCancel:
        if (const int item = slots_.Cancel(event.index); item >= 0 && item == open_) {
          CloseItem("incomplete", out);
        }
        return;
    }
  }

  // An executed MCP call: its mcp_call item, added (no output yet), arguments done, then
  // completed or failed, and done with its output.
  void OnExecuted(const ExecutedToolCall& call, std::string& out) override {
    OpenItem(McpCallItem(call, ItemId("mcp_", ids_)), out);
    Json progress = Head("response.mcp_call.in_progress");
    progress["item_id"] = Open().id;
    progress["output_index"] = open_;
    Emit(progress, out);
    CloseItem(call.is_error ? "failed" : "completed", out);
  }

  void OnEnd(const parse::Completion& completion, std::string& out) override {
    CloseAll(out);
    Json response = response_;
    SetOutput(response, items_);
    response["usage"] = UsageJson(completion.usage);
    const bool cut = completion.reason == parse::FinishReason::kLength;
    response["status"] = cut ? "incomplete" : "completed";
    if (cut) response["incomplete_details"] = {{"reason", "max_output_tokens"}};
    final_event_ = Head(cut ? "response.incomplete" : "response.completed");
    final_event_["response"] = std::move(response);
    Emit(final_event_, out);
  }

  void OnFail(const Error& error, std::string& out) override {
    const int status = HttpStatusFor(error.code());
    const std::string message = ErrorMessage(status, error.message());
    Json event = Head("error");
    event["code"] = ResponsesErrorCode(status);
    event["message"] = message;
    event["param"] = nullptr;
    Emit(event, out);
    for (OutputItem& item : items_) {
      if (item.status == "in_progress") item.status = "incomplete";
    }
    Json response = response_;
    SetOutput(response, items_);
    response["status"] = "failed";
    response["error"] = {{"code", ResponsesErrorCode(status)}, {"message", message}};
    Json failed = Head("response.failed");
    failed["response"] = std::move(response);
    Emit(failed, out);
  }

 private:
  Json Head(std::string_view type) { return {{"type", type}, {"sequence_number", sequence_++}}; }

  void Emit(const Json& event, std::string& out) {
    AppendEvent(out, event["type"].get_ref<const std::string&>(), Dump(event));
  }

  bool OpenIs(Type type) const {
    return open_ >= 0 && items_[static_cast<size_t>(open_)].type == type;
  }

  OutputItem& Open() { return items_[static_cast<size_t>(open_)]; }

  // A delta event of the open item, written without building a JSON object.
  void DeltaEvent(std::string_view type, std::string_view delta, bool text_part, std::string& out) {
    scratch_ = R"({"type":")";
    scratch_ += type;
    scratch_ += R"(","sequence_number":)" + std::to_string(sequence_++) + R"(,"item_id":)";
    AppendJsonString(scratch_, Open().id);
    scratch_ += R"(,"output_index":)" + std::to_string(open_);
    if (text_part) {
      scratch_ += R"(,")";
      scratch_ += EventsFor(Open()).index_key;
      scratch_ += R"(":0)";
    }
    scratch_ += R"(,"delta":)";
    AppendJsonString(scratch_, delta);
    if (type == "response.output_text.delta") scratch_ += R"(,"logprobs":[])";
    scratch_ += '}';
    AppendEvent(out, type, scratch_);
  }

  void OpenItem(OutputItem item, std::string& out) {
    CloseAll(out);
    items_.push_back(std::move(item));
    open_ = static_cast<int>(items_.size()) - 1;
    Json added = Head("response.output_item.added");
    added["output_index"] = open_;
    added["item"] = ItemJson(Open(), /*with_parts=*/false);
    Emit(added, out);
    if (Open().type == Type::kFunctionCall || Open().type == Type::kMcpCall) return;
    const PartEvents& events = EventsFor(Open());
    Json part = Head(events.part_added);
    part["item_id"] = Open().id;
    part["output_index"] = open_;
    part[events.index_key] = 0;
    part["part"] = PartJson(Open(), "");
    Emit(part, out);
  }

  void Text(parse::EventKind kind, const std::string& text, std::string& out) {
    if (text.empty()) return;
    const bool reasoning = kind == parse::EventKind::kReasoning;
    const Type want = reasoning ? Type::kReasoning : Type::kMessage;
    if (!OpenIs(want)) {
      OutputItem item;
      item.type = want;
      item.summary = reasoning && summary_;
      item.id = ItemId(reasoning ? "rs_" : "msg_", ids_);
      OpenItem(std::move(item), out);
    }
    Open().text += text;
    DeltaEvent(EventsFor(Open()).delta, text, true, out);
  }

  void BeginCall(const parse::Event& event, std::string& out) {
    OutputItem item;
    item.type = Type::kFunctionCall;
    item.id = ItemId("fc_", ids_);
    item.call_id = event.id.empty() ? ids_.NextCallId() : event.id;
    item.name = event.name;
    OpenItem(std::move(item), out);
    slots_.Begin(event.index, open_);
  }

  // The .done events of the open item; `status` "incomplete" on a function call marks a
  // cancelled call (no arguments.done: its arguments never became valid).
  void CloseItem(std::string_view status, std::string& out) {
    OutputItem& item = Open();
    item.status = status;
    if (item.type == Type::kMcpCall) {
      Json args_done = Head("response.mcp_call_arguments.done");
      args_done["item_id"] = item.id;
      args_done["output_index"] = open_;
      args_done["arguments"] = item.arguments;
      Emit(args_done, out);
      Json result =
          Head(status == "failed" ? "response.mcp_call.failed" : "response.mcp_call.completed");
      result["item_id"] = item.id;
      result["output_index"] = open_;
      Emit(result, out);
    } else if (item.type == Type::kFunctionCall) {
      if (status == "completed") {
        Json done = Head("response.function_call_arguments.done");
        done["item_id"] = item.id;
        done["output_index"] = open_;
        done["name"] = item.name;
        done["arguments"] = item.arguments;
        Emit(done, out);
      }
    } else {
      const bool reasoning = item.type == Type::kReasoning;
      const PartEvents& events = EventsFor(item);
      Json text_done = Head(events.text_done);
      text_done["item_id"] = item.id;
      text_done["output_index"] = open_;
      text_done[events.index_key] = 0;
      text_done["text"] = item.text;
      if (!reasoning) text_done["logprobs"] = Json::array();
      Emit(text_done, out);
      Json part_done = Head(events.part_done);
      part_done["item_id"] = item.id;
      part_done["output_index"] = open_;
      part_done[events.index_key] = 0;
      part_done["part"] = PartJson(item, item.text);
      Emit(part_done, out);
    }
    Json item_done = Head("response.output_item.done");
    item_done["output_index"] = open_;
    item_done["item"] = ItemJson(item);
    Emit(item_done, out);
    const bool was_call = item.type == Type::kFunctionCall;
    open_ = -1;
    if (was_call && !held_.empty()) {
      for (auto& [kind, text] : held_.Take())
        Text(kind, text, out);
    }
  }

  void CloseAll(std::string& out) {
    while (open_ >= 0)
      CloseItem("completed", out);
  }

  Json response_;  // the in-progress Response of response.created
  text::IdGenerator ids_;
  std::vector<OutputItem> items_;
  int open_ = -1;  // index of the open item in items_ (= its output_index)
  int sequence_ = 0;
  CallSlots slots_;  // canonical call index → output_index
  HeldText held_;
  std::string scratch_;
  Json final_event_;  // response.completed / .incomplete, once ended (FinalObject reads it)
  bool summary_;      // reasoning is reported as a summary
};

}  // namespace

std::unique_ptr<StreamEncoder> MakeResponsesStreamEncoder(const ChatRequest& request,
                                                          const ResponseMeta& meta) {
  return std::make_unique<ResponsesStreamEncoder>(request, meta);
}

}  // namespace crux::protocol::internal
