// Canonical events → OpenAI Chat Completions chunks, and the non-streaming body.
//
// Stream: a role chunk, one chunk per event (deltas `reasoning_content`, `content`,
// `tool_calls`), a chunk with the finish reason, the usage chunk (`choices: []`) when
// stream_options.include_usage is set, then `data: [DONE]`. A tool call the server ran
// itself (the MCP tool loop) is a chunk whose delta is {"mcp_call":{…}} (crux's extension;
// SDKs keep unknown delta fields), between the round that made it and the next one. The per-event
// chunk is written from a precomputed prefix and suffix, so only the delta is serialised per token.
#include "crux/text/ids.h"
#include "protocol/encoders.h"
#include "protocol/errors.h"
#include "protocol/json.h"
#include "protocol/sse.h"

namespace crux::protocol::internal {
namespace {

// Wire finish reason: tool_calls whenever the answer holds a call, else stop or length.
std::string_view FinishReasonFor(parse::FinishReason reason, bool has_calls) {
  if (has_calls) return "tool_calls";
  return reason == parse::FinishReason::kLength ? "length" : "stop";
}

Json UsageObject(const parse::Usage& usage) {
  Json u = Json::object();
  u["prompt_tokens"] = usage.prompt_tokens;
  u["completion_tokens"] = usage.completion_tokens;
  u["total_tokens"] = usage.prompt_tokens + usage.completion_tokens;
  u["prompt_tokens_details"] = {{"cached_tokens", usage.cached_tokens}};
  u["completion_tokens_details"] = {{"reasoning_tokens", usage.reasoning_tokens}};
  return u;
}

// {"id","server","name","arguments","output","is_error"}: one executed MCP call.
Json ExecutedJson(const ExecutedToolCall& call) {
  return {{"id", call.id},         {"server", call.server},
          {"name", call.tool},     {"arguments", call.arguments},
          {"output", call.output}, {"is_error", call.is_error}};
}

Json ChunkHead(const ChatRequest& request, const ResponseMeta& meta) {
  Json head = Json::object();
  head["id"] = meta.id;
  head["object"] = "chat.completion.chunk";
  head["created"] = meta.created;
  head["model"] = ResponseModel(request, meta);
  return head;
}

class ChatStreamEncoder final : public EncoderBase {
 public:
  ChatStreamEncoder(const ChatRequest& request, const ResponseMeta& meta)
      : include_usage_(request.include_usage), ids_(meta.id_seed) {
    head_ = ChunkHead(request, meta);
    std::string head = Dump(head_);
    head.pop_back();  // the closing brace
    prefix_ = head + ",\"choices\":[{\"index\":0,\"delta\":";
    suffix_ = ",\"logprobs\":null,\"finish_reason\":null}]";
    if (include_usage_) suffix_ += ",\"usage\":null";
    suffix_ += '}';
  }

  std::string_view KeepAlive() const override { return kSseKeepAlive; }

 protected:
  void OnBegin(std::string& out) override { Chunk(R"({"role":"assistant","content":""})", out); }

  void OnEvent(const parse::Event& event, std::string& out) override {
    switch (event.kind) {
      case parse::EventKind::kReasoning:
      case parse::EventKind::kContent:
        if (event.text.empty()) return;
        delta_ = event.kind == parse::EventKind::kReasoning ? R"({"reasoning_content":)"
                                                            : R"({"content":)";
        AppendJsonString(delta_, event.text);
        delta_ += '}';
        Chunk(delta_, out);
        return;
      case parse::EventKind::kToolCallBegin:
        BeginCall(event, out);
        return;
      case parse::EventKind::kToolCallArgs: {
        const int slot = slots_.Find(event.index);
        if (slot < 0 || event.text.empty()) return;
        delta_ =
            R"({"tool_calls":[{"index":)" + std::to_string(slot) + R"(,"function":{"arguments":)";
        AppendJsonString(delta_, event.text);
        delta_ += "}}]}";
        Chunk(delta_, out);
        return;
      }
      case parse::EventKind::kToolCallEnd:
        return;
      case parse::EventKind::kToolCallCancel:
        // Sent deltas cannot be taken back; the call keeps its slot and the next call gets
        // a new one, so the client never merges two calls.
        slots_.Cancel(event.index);
        return;
    }
  }

  void OnExecuted(const ExecutedToolCall& call, std::string& out) override {
    Chunk(Dump(Json{{"mcp_call", ExecutedJson(call)}}), out);
  }

  void OnEnd(const parse::Completion& completion, std::string& out) override {
    Json chunk = head_;
    chunk["choices"] = Json::array();
    chunk["choices"].push_back(
        {{"index", 0},
         {"delta", Json::object()},
         {"logprobs", nullptr},
         {"finish_reason", FinishReasonFor(completion.reason, slots_.live() > 0)}});
    if (include_usage_) chunk["usage"] = nullptr;
    AppendData(out, Dump(chunk));
    if (include_usage_) {
      Json usage = head_;
      usage["choices"] = Json::array();
      usage["usage"] = UsageObject(completion.usage);
      AppendData(out, Dump(usage));
    }
    out += kSseDone;
  }

  void OnFail(const Error& error, std::string& out) override {
    Json body = {{"error", OpenAiErrorObject(HttpStatusFor(error.code()), error.message(), "")}};
    AppendData(out, Dump(body));
    out += kSseDone;
  }

 private:
  void BeginCall(const parse::Event& event, std::string& out) {
    const int slot = next_slot_++;
    slots_.Begin(event.index, slot);
    delta_ = R"({"tool_calls":[{"index":)" + std::to_string(slot) + R"(,"id":)";
    AppendJsonString(delta_, event.id.empty() ? ids_.NextCallId() : event.id);
    delta_ += R"(,"type":"function","function":{"name":)";
    AppendJsonString(delta_, event.name);
    delta_ += R"(,"arguments":""}}]})";
    Chunk(delta_, out);
  }

  void Chunk(std::string_view delta, std::string& out) const {
    out += "data: ";
    out += prefix_;
    out += delta;
    out += suffix_;
    out += "\n\n";
  }

  bool include_usage_;
  text::IdGenerator ids_;
  Json head_;
  std::string prefix_;
  std::string suffix_;
  std::string delta_;  // scratch, reused per event
  CallSlots slots_;
  int next_slot_ = 0;
};

}  // namespace

std::unique_ptr<StreamEncoder> MakeChatStreamEncoder(const ChatRequest& request,
                                                     const ResponseMeta& meta) {
  return std::make_unique<ChatStreamEncoder>(request, meta);
}

std::string EncodeChatBody(const ChatRequest& request, const ResponseMeta& meta,
                           const std::vector<ExecutedToolCall>& executed,
                           const parse::ParseResult& result, const parse::Completion& completion) {
  text::IdGenerator ids(meta.id_seed);
  Json message = {{"role", "assistant"}};
  message["content"] = result.content ? Json(*result.content) : Json(nullptr);
  if (result.reasoning) message["reasoning_content"] = *result.reasoning;
  if (!result.tool_calls.empty()) {
    Json calls = Json::array();
    for (const parse::ToolCall& call : result.tool_calls) {
      calls.push_back({{"id", call.id.empty() ? ids.NextCallId() : call.id},
                       {"type", "function"},
                       {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    }
    message["tool_calls"] = std::move(calls);
  }
  if (!executed.empty()) {
    Json calls = Json::array();
    for (const ExecutedToolCall& call : executed)
      calls.push_back(ExecutedJson(call));
    message["mcp_calls"] = std::move(calls);
  }
  Json body = ChunkHead(request, meta);
  body["object"] = "chat.completion";
  body["choices"] = Json::array();
  body["choices"].push_back(
      {{"index", 0},
       {"message", std::move(message)},
       {"logprobs", nullptr},
       {"finish_reason", FinishReasonFor(completion.reason, !result.tool_calls.empty())}});
  body["usage"] = UsageObject(completion.usage);
  return Dump(body);
}

}  // namespace crux::protocol::internal
