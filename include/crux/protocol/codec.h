// Wire codecs of the three protocols: request decoding with validation, streaming encoders
// driven by canonical events, non-streaming bodies, and error bodies.
//
// Every rule in the SDK contract holds: each Chat Completions tool-call delta carries `index`,
// the first delta of a call carries `id`, `type:"function"` and `function.name`; Anthropic
// events all have an `event:` line matching `data.type`; Responses events have
// `sequence_number`, items are added before they are filled, and the terminal event carries
// the complete output. The terminal frames are always sent, also when a parser consumed the
// model's last delta.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/events.h"
#include "crux/parse/result.h"
#include "crux/protocol/request.h"

namespace crux::protocol {

class ResponseStore;

// Decodes and validates a request body. Errors (kParse for invalid JSON, kInvalidArgument for
// a bad field) name the offending field (e.g. "messages[2].content must be a string or an
// array of content parts").
// A Responses request resolves `previous_response_id` and `item_reference` items from
// `store` (nullptr: no store, so both are 404s, and `store` is answered false).
Expected<ChatRequest> DecodeChatCompletions(std::string_view body);
Expected<ChatRequest> DecodeAnthropicMessages(std::string_view body);
Expected<ChatRequest> DecodeResponses(std::string_view body, ResponseStore* store = nullptr);
Expected<ChatRequest> DecodeCompletions(std::string_view body);
Expected<ChatRequest> DecodeRequest(Api api, std::string_view body, ResponseStore* store = nullptr);

// Identity of one response, chosen by the server.
struct ResponseMeta {
  std::string id;         // chatcmpl-…, msg_…, resp_…
  int64_t created = 0;    // unix seconds
  std::string model;      // the served model name ("" = the request's model)
  int prompt_tokens = 0;  // prompt length, when known before generation (Anthropic
                          // message_start reports it; End() reports Completion.usage)
  uint64_t id_seed = 0;   // seeds the ids the encoders make (Responses items, missing tool
                          // call ids); 0 draws one from the OS, tests fix it
};

// A new response id in the protocol's style ("chatcmpl-" + 24, "msg_" + 24, "resp_" + 32).
std::string NewResponseId(Api api);

// A tool call the server ran itself (the MCP tool loop), as the encoders report it: Chat
// Completions as a `mcp_call` delta (non-streaming: message.mcp_calls), Anthropic as an
// `mcp_tool_use` block followed by its `mcp_tool_result` block, Responses as an `mcp_call`
// output item.
struct ExecutedToolCall {
  std::string id;          // the call id the model's call got
  std::string server;      // the MCP server
  std::string tool;        // the tool's own name
  std::string arguments;   // JSON text of an object
  std::string output;      // the result as text (cut to the server's max_output_bytes)
  bool is_error = false;   // output then says what went wrong
  double duration_ms = 0;  // the call's own time
};

// Turns canonical events into SSE frames for one streamed response. Not thread-safe.
class StreamEncoder {
 public:
  virtual ~StreamEncoder() = default;
  // Frames before any model output (role chunk / message_start / response.created +
  // response.in_progress).
  virtual void Begin(std::string& out) = 0;
  // Frames for one canonical event (reasoning/content/tool-call events).
  virtual void Event(const parse::Event& event, std::string& out) = 0;
  // Frames for a tool call the server ran (between a round's events and the next round's).
  virtual void Executed(const ExecutedToolCall& call, std::string& out) = 0;
  // Terminal frames: finish reason and usage, then [DONE] / message_stop /
  // response.completed (or .incomplete) with the complete output.
  virtual void End(const parse::Completion& completion, std::string& out) = 0;
  // A failure after the first byte: the protocol's in-stream error event, then whatever
  // terminal frame the protocol requires.
  virtual void Fail(const Error& error, std::string& out) = 0;
  // A keep-alive frame for an idle stream (an SSE comment, or Anthropic's ping event).
  virtual std::string_view KeepAlive() const = 0;
  // After End(): the complete response object the stream ended with, as JSON (Responses: the
  // Response of response.completed, which the store keeps); "" for the other protocols.
  virtual std::string FinalObject() const { return {}; }
};

std::unique_ptr<StreamEncoder> MakeStreamEncoder(const ChatRequest& request,
                                                 const ResponseMeta& meta);

// The non-streaming response body.
// `executed`: the tool calls the server ran before the final answer, in order.
std::string EncodeBody(const ChatRequest& request, const ResponseMeta& meta,
                       const parse::ParseResult& result, const parse::Completion& completion,
                       const std::vector<ExecutedToolCall>& executed = {});

// An error before the first byte: HTTP status and the vendor's error JSON body
// (OpenAI {"error":{"message","type","param","code"}}, Anthropic
// {"type":"error","error":{"type","message"}}).
struct HttpError {
  int status = 500;
  std::string body;
};
HttpError EncodeError(Api api, const Error& error);
HttpError EncodeError(Api api, int status, std::string_view message);

// HTTP status for an error code (400, 401, 404, 413, 429, 500, 503, 504).
int HttpStatusFor(ErrorCode code);

// Errors that clients recognise by their words, in each vendor's wording. An unknown model:
// OpenAI's "The model `X` does not exist or you do not have access to it." (code
// model_not_found), Anthropic's "model: X"; `available` lists the served models.
Error UnknownModelError(Api api, std::string_view model, std::string_view available);
// A missing (`key_given` false) or wrong API key, as each vendor words it.
Error UnauthorizedError(Api api, bool key_given);
// A Responses id the store does not hold (code response_not_found).
Error ResponseNotFoundError(std::string_view id);
// The body of `DELETE /v1/responses/{id}`: {"id","object":"response","deleted":true}.
std::string EncodeDeletedResponse(std::string_view id);

}  // namespace crux::protocol
