// Request bodies through the three decoders: no crash, no sanitizer report, every rejection
// carries a message and encodes to a JSON error body; every accepted request can stream and
// encode a body for a fixed event sequence (all event kinds, a cancelled call, invalid UTF-8).
//
// Responses requests are decoded against a store that holds one earlier turn (response
// resp_seed with items rs_seed, msg_seed, fc_seed), so previous_response_id and
// item_reference resolve for real; every accepted Responses request is stored in turn (the
// store is bounded, so it stays small across runs).
//
// Input: one API selector byte (0 Chat Completions, 1 Anthropic Messages, 2 Responses,
// modulo 3), then the request body.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "crux/protocol/codec.h"
#include "crux/protocol/response_store.h"

namespace {

using crux::parse::Event;
using crux::parse::EventKind;

Event MakeEvent(EventKind kind, int index, std::string text, std::string id = {},
                std::string name = {}) {
  Event e;
  e.kind = kind;
  e.index = index;
  e.text = std::move(text);
  e.id = std::move(id);
  e.name = std::move(name);
  return e;
}

const std::vector<Event>& FixedEvents() {
  static const std::vector<Event> kEvents = {
      MakeEvent(EventKind::kReasoning, -1, "thinking \xff"),
      MakeEvent(EventKind::kContent, -1, "Hello \"world\"\n"),
      MakeEvent(EventKind::kToolCallBegin, 0, "", "call_a", "get_weather"),
      MakeEvent(EventKind::kToolCallArgs, 0, "{\"city\":"),
      MakeEvent(EventKind::kContent, -1, "held"),
      MakeEvent(EventKind::kToolCallArgs, 0, "\"Paris\"}"),
      MakeEvent(EventKind::kToolCallEnd, 0, ""),
      MakeEvent(EventKind::kToolCallBegin, 1, "", "", "broken"),
      MakeEvent(EventKind::kToolCallArgs, 1, "{\"x\": tr"),
      MakeEvent(EventKind::kToolCallCancel, 1, ""),
      MakeEvent(EventKind::kContent, -1, "<tool_call>{\"x\": tr"),
  };
  return kEvents;
}

void Check(bool ok) {
  if (!ok) std::abort();
}

crux::protocol::ResponseStore& Store() {
  static crux::protocol::ResponseStore* store = [] {
    crux::protocol::ResponseStoreOptions options;
    options.max_bytes = 256u << 10;
    auto* s = new crux::protocol::ResponseStore(options);
    const bool seeded = s->Put(
        {"resp_seed",
         R"({"id":"resp_seed","object":"response","output":[)"
         R"({"id":"rs_seed","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"Plan."}]},)"
         R"({"id":"msg_seed","type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me check."}]},)"
         R"({"id":"fc_seed","type":"function_call","call_id":"call_seed","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}]})",
         R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather?"}]}])",
         ""});
    Check(seeded);
    return s;
  }();
  return *store;
}

void Exercise(const crux::protocol::ChatRequest& request, uint8_t flags) {
  crux::protocol::ResponseMeta meta{"id", 1, (flags & 1) ? "" : "served", 3, 7};
  auto encoder = crux::protocol::MakeStreamEncoder(request, meta);
  std::string out;
  encoder->Begin(out);
  crux::parse::ResultBuilder builder;
  for (const Event& e : FixedEvents()) {
    encoder->Event(e, out);
    builder.Add(e);
  }
  crux::parse::Completion completion;
  completion.reason = static_cast<crux::parse::FinishReason>((flags >> 1) % 6);
  completion.stop_sequence = "END";
  if (flags & 0x10) {
    encoder->Fail(crux::Error(crux::ErrorCode::kUnavailable, "busy"), out);
  } else {
    encoder->End(completion, out);
  }
  Check(!out.empty() && out.ends_with("\n\n"));
  const std::string body = crux::protocol::EncodeBody(request, meta, builder.Take(), completion);
  Check(nlohmann::json::accept(body));
  if (request.api == crux::protocol::Api::kResponses && request.store) {
    Check(nlohmann::json::accept(request.input_items_json));
    static int n = 0;
    Store().Put({"resp_fuzz" + std::to_string(n++ % 64), body, request.input_items_json,
                 request.previous_response_id.value_or("")});
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto api = static_cast<crux::protocol::Api>(data[0] % 4);
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto request = crux::protocol::DecodeRequest(api, body, &Store());
  if (!request.ok()) {
    Check(!request.error().message().empty());
    const crux::protocol::HttpError http = crux::protocol::EncodeError(api, request.error());
    Check(http.status >= 400 && nlohmann::json::accept(http.body));
    return 0;
  }
  Check(request->api == api && !request->model.empty());
  Exercise(*request, data[0]);
  return 0;
}
