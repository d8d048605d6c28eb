// OpenAI legacy Completions (`POST /v1/completions`): a raw prompt in, text out. No chat
// template, no reasoning or tool parsing: the text is what the model wrote.
#include "crux/protocol/codec.h"
#include "protocol/decode.h"
#include "protocol/errors.h"
#include "protocol/json.h"

namespace crux::protocol {
namespace {

using internal::Json;
using internal::Member;
using internal::MustBe;

// `prompt`: a string, or an array holding one string.
Status ReadPrompt(const Json& body, ChatRequest& request) {
  const Json* prompt = Member(body, "prompt");
  if (prompt == nullptr) return Error(ErrorCode::kInvalidArgument, "prompt is required");
  if (prompt->is_string()) {
    request.prompt_text = prompt->get<std::string>();
    return Status();
  }
  if (prompt->is_array() && prompt->size() == 1 && (*prompt)[0].is_string()) {
    request.prompt_text = (*prompt)[0].get<std::string>();
    return Status();
  }
  if (prompt->is_array() && prompt->size() > 1) {
    return Error(ErrorCode::kUnsupported,
                 "prompt holds " + std::to_string(prompt->size()) +
                     " prompts; send one per request (batched prompts are not supported)");
  }
  return MustBe("prompt", "a string (or an array of one string)");
}

Status ReadUnsupported(const Json& body) {
  std::optional<int64_t> count;
  CRUX_PROTO_TRY(internal::ReadInt(body, "n", "n", 1, 128, count));
  if (count && *count != 1) return Error(ErrorCode::kUnsupported, "n must be 1");
  CRUX_PROTO_TRY(internal::ReadInt(body, "best_of", "best_of", 1, 128, count));
  if (count && *count != 1) return Error(ErrorCode::kUnsupported, "best_of must be 1");
  if (const Json* logprobs = Member(body, "logprobs");
      logprobs != nullptr && !logprobs->is_null() && !(logprobs->is_number() && *logprobs == 0)) {
    return Error(ErrorCode::kUnsupported, "logprobs are not supported");
  }
  if (const Json* suffix = Member(body, "suffix");
      suffix != nullptr && !suffix->is_null() &&
      !(suffix->is_string() && suffix->get_ref<const std::string&>().empty())) {
    return Error(ErrorCode::kUnsupported, "suffix (insertion) is not supported");
  }
  return Status();
}

}  // namespace

Expected<ChatRequest> DecodeCompletions(std::string_view body_text) {
  auto body = internal::ParseObject(body_text);
  if (!body.ok()) return body.error();
  ChatRequest request;
  request.api = Api::kCompletions;
  CRUX_PROTO_TRY(internal::ReadModel(*body, request));
  CRUX_PROTO_TRY(ReadPrompt(*body, request));
  CRUX_PROTO_TRY(ReadUnsupported(*body));
  request.max_tokens = 16;  // OpenAI's default for this endpoint
  CRUX_PROTO_TRY(internal::ReadMaxTokens(*body, "max_tokens", request));
  CRUX_PROTO_TRY(internal::ReadStop(*body, "stop", request));
  CRUX_PROTO_TRY(internal::ReadSampling(*body, 2.0, request));
  CRUX_PROTO_TRY(internal::ReadBool(*body, "stream", "stream", request.stream));
  if (const Json* options = Member(*body, "stream_options")) {
    if (!options->is_object()) return MustBe("stream_options", "an object");
    CRUX_PROTO_TRY(internal::ReadBool(*options, "include_usage", "stream_options.include_usage",
                                      request.include_usage));
  }
  CRUX_PROTO_TRY(internal::ReadBool(*body, "echo", "echo", request.echo));
  CRUX_PROTO_TRY(internal::ReadString(*body, "user", "user", request.user));
  return request;
}

}  // namespace crux::protocol
