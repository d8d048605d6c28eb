// The Streamable HTTP transport of MCP, both eras: every JSON-RPC message crux sends is its own
// POST to the server's one endpoint, and what comes back is fed to the client.
//
// Requests. Each POST carries `Content-Type: application/json`, `Accept: application/json,
// text/event-stream`, the configured headers, `MCP-Protocol-Version` once SetProtocolVersion
// ran, and `Mcp-Session-Id` once a response carried one (the initialize response does). The
// answer is 202 (notifications and responses), an application/json body (one message) or a
// text/event-stream body whose `data:` events each carry one message (progress, server
// requests and the response, interleaved); every message goes to Handlers::on_line as it
// arrives. An SSE event without data (the 2025-11-25 "priming" event) is skipped.
//
// Threads and connections. Send() only queues: a small pool of worker threads posts the
// messages, each worker on its own keep-alive connection with its own io_context, growing on
// demand up to HttpOptions::max_connections (then messages wait in the queue). A request is
// not posted before every notification or response queued ahead of it has been accepted, so
// `notifications/initialized` reaches the server before the first tools/list. After the
// protocol version is set, one worker may hold the standalone GET stream for server-initiated
// messages (a 405 means the server offers none; the stream is not reopened when it ends).
//
// Resumption (legacy era only, SEP-1699). When a request's SSE stream ends without its answer
// after an event carried an `id:`, the worker waits the stream's `retry:` milliseconds (1 s when
// none came) and GETs the endpoint with `Last-Event-ID`; messages on that stream go to on_line
// until Handlers::is_pending says the request is answered. At most kMaxResumes attempts in a
// row that deliver nothing.
//
// The modern era (SetEra(kModern, "2026-07-28")): no session id is sent or kept, no GET stream,
// no resumption, no DELETE; every POST also carries `Mcp-Method` (the message's method) and,
// for tools/call and prompts/get, `Mcp-Name` (params.name), for resources/read params.uri.
// Send's extra headers (the client's Mcp-Param-*) are added as given.
//
// Failures. An HTTP error whose body is a JSON-RPC error response with an id (a modern server's
// 404 -32601, its 400 -32022) is delivered through on_line like any answer. A request whose POST
// fails, or whose stream ends without its answer, is reported through Handlers::on_request_failed
// (the client ignores it when the answer already came): an HTTP error status (kUnavailable, quoting
// the body), a body or SSE event above max_message_bytes (kLimit; memory stays bounded), a response
// that is neither JSON nor SSE. Losing the server ends the transport through on_close (once): a
// failed connect, or a 404 (or server-everything's 400 "No valid session ID") on a POST that
// carried a session id, which means the session expired. The GET stream failing ends nothing but
// that stream. Cancelling a request (`notifications/cancelled` sent through Send) also closes that
// request's stream.
//
// Timeouts. Connecting is bounded by connect_timeout; writing, and waiting for the answer to a
// notification or response, by io_timeout. A request's stream stays open until it is answered
// or cancelled (the client times requests out and cancels them) or Close() runs.
//
// Close() aborts every connection, joins the workers and then sends DELETE with the session
// id, bounded by close_timeout, ignoring failures: a stalled server cannot hang it.
//
// Only http:// URLs: this build has no TLS, so https:// is kUnsupported at Start.
//
// Thread-safety: Send, SetProtocolVersion, Close and the accessors may be called from any
// thread. The handlers run on the worker threads, possibly several at once; they must not
// call Close() (it joins those threads).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "crux/base/error.h"
#include "crux/mcp/jsonrpc.h"

namespace crux::mcp {

// Where a Streamable HTTP server is: its endpoint URL and extra request headers.
struct HttpSpec {
  std::string url;  // http://host[:port][/path]
  std::vector<std::pair<std::string, std::string>> headers;
};

struct HttpOptions {
  size_t max_message_bytes = size_t{64} << 20;  // one JSON body or one SSE event (kLimit)
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds io_timeout{10000};    // a write; the answer to a notification
  std::chrono::milliseconds close_timeout{1000};  // the DELETE that ends the session
  size_t max_connections = 32;                    // concurrent POSTs (and worker threads)
  bool open_get_stream = true;                    // GET the standalone server→client stream
};

class HttpTransport {
 public:
  struct Handlers {
    std::function<void(std::string_view message)> on_line;  // one JSON-RPC message
    std::function<void(const Error& reason)> on_close;      // once, when the server is lost
    // A request's POST ended without delivering its answer (see the file comment).
    std::function<void(const RequestId& id, const Error& error)> on_request_failed;
    // Whether the client still waits for request `id` (resumption stops when not); null: yes.
    std::function<bool(const RequestId& id)> is_pending;
  };

  using Headers = std::vector<std::pair<std::string, std::string>>;
  static constexpr int kMaxResumes = 5;

  // Parses the URL and resolves its host; connects lazily. kInvalidArgument for a malformed
  // URL, kUnsupported for https, kUnavailable when the host does not resolve.
  static Expected<std::unique_ptr<HttpTransport>> Start(const HttpSpec& spec, HttpOptions options,
                                                        Handlers handlers);

  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Queues one JSON-RPC message (without newline) to be posted. kInvalidArgument when it is
  // not one; kUnavailable after Close() or once the server was lost.
  // `headers` are added to that message's POST (checked as the configured ones are).
  Status Send(std::string_view message, Headers headers = {});

  // The era and version, sent as MCP-Protocol-Version from now on ("" sends none). In the
  // legacy era this also opens the GET stream when HttpOptions::open_get_stream is set and a
  // session id is known; the modern era works as the file comment says.
  void SetEra(ProtocolEra era, std::string version);
  // SetEra(kLegacy, version).
  void SetProtocolVersion(std::string version) { SetEra(ProtocolEra::kLegacy, std::move(version)); }

  // As described above. Idempotent; blocks for at most about close_timeout plus a moment.
  void Close();

  // The session id the server assigned ("" before the initialize response, or none).
  std::string session_id() const;

 private:
  struct State;
  explicit HttpTransport(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;
};

// One tool parameter mirrored into a request header (SEP-2243, 2026-07-28): the inputSchema
// property and the header name its `x-mcp-header` gives (sent as `Mcp-Param-<header>`).
struct HeaderParam {
  std::string property;
  std::string header;
};

// The x-mcp-header annotations of a tool's inputSchema properties, in property order. An Error
// (kInvalidArgument) names the first invalid one: empty; not a token of visible ASCII (no
// space, ':' or control character); on a type other than string, integer or boolean; or a
// case-insensitive duplicate. Clients must not use such a tool.
Expected<std::vector<HeaderParam>> ToolHeaderParams(const Json& input_schema);

// The Mcp-Param-* headers for a call with `arguments`: null and absent values are left out;
// integers and booleans as JSON text; a string as is when it is visible ASCII without leading or
// trailing whitespace, else as "=?base64?<base64 of its UTF-8>?=".
HttpTransport::Headers ParamHeaders(const std::vector<HeaderParam>& params, const Json& arguments);

}  // namespace crux::mcp
