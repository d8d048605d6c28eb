// An MCP client for one server over stdio or Streamable HTTP, in either era: the legacy
// (2025-11-25) handshake that every installable reference server speaks, or the stateless
// modern (2026-07-28) revision.
//
// Start() launches the server (stdio), Connect() reaches it at a URL (HttpTransport: one POST
// per message, JSON or SSE answers, Mcp-Session-Id and MCP-Protocol-Version); both then pick
// the era and everything below is the same for both transports.
//
// Era probing (unless ClientOptions::protocol_version pins one): server/discover with the
// modern _meta envelope (protocolVersion "2026-07-28", clientCapabilities, clientInfo).
//   - a DiscoverResult (supportedVersions naming 2026-07-28) → modern;
//   - error -32022 (unsupported version) → modern when its data.supported names 2026-07-28:
//     discover again with it; else kUnsupported;
//   - any other error, a result that is no DiscoverResult, or no answer within probe_timeout →
//     legacy. The reference servers answer -32601 at once, so this costs one round trip.
// Modern: every request carries _meta {protocolVersion, clientCapabilities, clientInfo}; no
// initialize, initialized, session, ping or GET stream; results carry resultType (absent means
// "complete"); an "input_required" result (MRTR) is answered when every input it asks for is
// one the client can give (elicitation/create with on_elicitation set) and the request is sent
// again with a new id, inputResponses and the server's requestState echoed verbatim (at most
// kMaxInputRounds times); else it fails with kUnsupported naming what was asked. Over HTTP the
// requests also carry Mcp-Method, Mcp-Name and the Mcp-Param-* headers of the tool's
// x-mcp-header parameters; a tool with an invalid x-mcp-header is left out of the list.
// Legacy:
//   initialize {protocolVersion "2025-11-25", capabilities {}, clientInfo}
//   → the answered version must be one of kSupportedProtocolVersions, else the server is shut
//     down and Start fails (kUnsupported)
//   → notifications/initialized → tools/list, following nextCursor across pages.
// All of it must finish within ClientOptions::startup_timeout.
//
// While running, the client
//   - answers the server's `ping` with {}, `elicitation/create` through on_elicitation when
//     set (then it declares the elicitation capability), and every other server request with
//     -32601 (it declares no other capability, so it owes no roots or sampling);
//   - re-lists all pages on notifications/tools/list_changed, in the background, then bumps
//     tools_generation() and calls on_tools_changed (changes during a listing re-list again);
//   - ignores logging and other notifications, and drops undecodable lines (logged);
//   - sends every tools/call with _meta.progressToken; a progress notification for a pending
//     call pushes its deadline to `timeout` from then, up to max_timeout_factor × timeout
//     after the call began. A call that times out gets notifications/cancelled; its late
//     progress and late response are dropped.
// When the server dies (or its stdout ends), pending and later calls fail with kUnavailable
// naming the server, its exit status and the tail of its stderr. Over HTTP the same happens
// when the server cannot be reached or its session expired (404); an HTTP error answering one
// request fails that call alone. A client does not restart its server or renew a session:
// make a new one.
//
// Error shapes of tools/call. A result with isError:true is a value (ToolResult::is_error);
// a JSON-RPC error response is an Error tagged kServerErrorTag whose message starts
// "MCP error <code>: " (ServerErrorCode() reads the code back); timeouts are kTimeout and a
// dead server kUnavailable, both untagged.
//
// Thread-safety: every public method may be called from any thread, concurrently. Callbacks
// in ClientOptions run on the client's own threads and must not call Stop() or destroy the
// client. Cost: a call is one line each way plus a map insertion; no polling.
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/mcp/http_transport.h"
#include "crux/mcp/jsonrpc.h"
#include "crux/mcp/stdio_transport.h"

namespace crux::mcp {

// The version crux asks for, and every version it accepts in the answer.
inline constexpr std::string_view kProtocolVersion = "2025-11-25";
inline constexpr std::array<std::string_view, 4> kSupportedProtocolVersions = {
    "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
// The stateless revision crux probes for first.
inline constexpr std::string_view kModernProtocolVersion = "2026-07-28";
// How many input_required rounds one modern request may take.
inline constexpr int kMaxInputRounds = 8;

// Error::tag() of an Error made from a JSON-RPC error response.
inline constexpr std::string_view kServerErrorTag = "mcp_server_error";

// One tool as the server lists it. Descriptions, titles and annotations are untrusted text.
struct ToolInfo {
  std::string name;
  std::string title;                         // "" when the server gives none
  std::string description;                   // "" when the server gives none
  Json input_schema = {{"type", "object"}};  // an object; the default when absent or not one
  std::optional<Json> output_schema;
  std::optional<Json> annotations;
  std::vector<HeaderParam> header_params;  // x-mcp-header parameters (modern era, HTTP)
};

// The answer to tools/call (CallToolResult).
struct ToolResult {
  std::vector<Json> content;  // content blocks as sent (text, image, audio, resource_link, …)
  std::optional<Json> structured_content;
  bool is_error = false;  // the tool failed; `content` says why
};

// What the server said about itself in its initialize result.
struct ServerInfo {
  std::string name;
  std::string version;
  std::string protocol_version;  // the negotiated one ("2026-07-28" in the modern era)
  ProtocolEra era = ProtocolEra::kLegacy;
  std::string instructions;  // untrusted text
  Json capabilities = Json::object();
};

struct ClientOptions {
  std::string server_name = "mcp";  // names the server in errors and log lines
  std::string client_name = "crux";
  std::string client_version = "0.1.0";
  std::chrono::milliseconds startup_timeout{10000};  // spawn + initialize + the first listing
  std::chrono::milliseconds request_timeout{60000};  // tools/list pages and other requests
  int max_timeout_factor = 4;  // progress extends a call's deadline up to this × its timeout
  // "" probes the era (see above); a legacy version skips the probe and asks initialize for
  // it; kModernProtocolVersion speaks only the modern era.
  std::string protocol_version;
  std::chrono::milliseconds probe_timeout{3000};  // server/discover before falling back
  // Answers an elicitation/create request (its params; form mode) with an ElicitResult
  // ({action, content?}); an Error declines to answer. Set, it makes crux declare the
  // elicitation capability. Runs on a client thread (legacy) or the calling one (modern).
  std::function<Expected<Json>(const Json& params)> on_elicitation;
  StdioOptions transport;  // Start() only
  HttpOptions http;        // Connect() only
  // After each completed re-listing, with the new generation: on the client's worker thread
  // (list_changed), or on the thread that called RefreshTools().
  std::function<void(uint64_t generation)> on_tools_changed;
  // Diagnostics: dropped lines, late answers, re-listing failures (any client thread).
  std::function<void(std::string_view)> on_log;
};

class Client {
 public:
  // Launches `spec` and runs the handshake described above. The error names the server:
  // kNotFound or kIo when it cannot be spawned, kTimeout when the handshake is too slow,
  // kUnavailable when it died, kUnsupported for a protocol version crux does not speak.
  static Expected<std::unique_ptr<Client>> Start(const LaunchSpec& spec,
                                                 ClientOptions options = {});

  // Connects to a Streamable HTTP server and runs the same handshake (startup_timeout bounds
  // it). kInvalidArgument for a malformed URL or header, kUnsupported for https (no TLS in
  // this build), kUnavailable when the server cannot be reached, and as Start otherwise.
  static Expected<std::unique_ptr<Client>> Connect(const HttpSpec& spec,
                                                   ClientOptions options = {});

  // Stops the server (Stop()).
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Calls tool `name` with `arguments` (an object; null means {}). Blocks until the answer,
  // the timeout, or the server's death; see the file comment for the error shapes.
  Expected<ToolResult> CallTool(std::string_view name, const Json& arguments,
                                std::chrono::milliseconds timeout);

  // Sends any request and returns its result (a JSON-RPC error becomes a tagged Error).
  Expected<Json> Request(std::string_view method, const Json& params,
                         std::chrono::milliseconds timeout);

  // The current tool list: an immutable snapshot, cheap to take.
  std::shared_ptr<const std::vector<ToolInfo>> Tools() const;
  // 1 after Start's listing; +1 per completed re-listing.
  uint64_t tools_generation() const;
  // Re-lists all pages now (synchronously) and bumps the generation.
  Status RefreshTools();

  const ServerInfo& server_info() const;
  // False once the server has died or Stop() ran.
  bool alive() const;
  // The server's pid, which is also its process-group id; 0 for an HTTP server.
  pid_t pid() const;

  // Fails pending calls (kCancelled), then shuts the server down (close stdin, SIGTERM,
  // SIGKILL: see StdioTransport) or ends the HTTP session (DELETE, at most about 1 s).
  // Idempotent; blocks up to about 4 s for a stubborn server.
  void Stop();

 private:
  class Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  template <class OpenLink>
  static Expected<std::unique_ptr<Client>> Begin(ClientOptions options, OpenLink open);
  std::unique_ptr<Impl> impl_;
};

// The server's JSON-RPC error code of an Error that CallTool or Request made from an error
// response (kServerErrorTag); nullopt for every other Error.
std::optional<int64_t> ServerErrorCode(const Error& error);

// Renders a result for a model, one line per content block: text as is; image and audio as
// "[image: image/png, N bytes base64]"; resource_link as "[resource link: name <uri>]"; an
// embedded resource as its text, or "[resource blob: uri mime, N bytes base64]"; any other
// block as its JSON. When there is structuredContent and no text block, its JSON follows.
std::string ContentToText(const ToolResult& result);

}  // namespace crux::mcp
