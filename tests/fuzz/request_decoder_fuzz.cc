// Request bodies through the three decoders: no crash, no sanitizer report, every rejection
// carries a message and encodes to a JSON error body; every accepted request can stream and
// encode a body for a fixed event sequence (all event kinds, a cancelled call, invalid UTF-8).
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
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto api = static_cast<crux::protocol::Api>(data[0] % 3);
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto request = crux::protocol::DecodeRequest(api, body);
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
