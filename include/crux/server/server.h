// The HTTP server: OpenAI Chat Completions, Anthropic Messages and OpenAI Responses endpoints
// over one engine, plus /v1/models, /health and /metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "crux/base/error.h"
#include "crux/engine/engine.h"
#include "crux/mcp/manager.h"
#include "crux/pipeline/pipeline.h"

namespace crux::server {

struct ServerConfig {
  std::string host = "127.0.0.1";
  int port = 8000;                  // 0: pick a free port (printed at startup)
  std::string api_key;              // empty: no authentication
  std::string served_model_name;    // name clients use; empty: the engine's model ids
  int max_concurrent_requests = 0;  // generations in flight; 0: unlimited; over → 429
  size_t max_body_bytes = 16u << 20;
  double request_timeout_s = 600;  // per-request deadline
  double keepalive_s = 10;         // SSE keep-alive after this much idle time
  int io_threads = 2;
  // Output waiting for a client that reads slower than the model writes (queued text and the
  // bytes being written); at the limit the generation pauses. 0: unlimited.
  size_t max_buffered_bytes = 1u << 20;
  double write_timeout_s = 30;  // a client that takes no bytes for this long is cut
  int max_connections = 0;      // open connections; 0: the open-file limit minus a reserve
  double idle_timeout_s = 60;   // a connection with no request in progress is closed after this
  double drain_timeout_s = 30;  // SIGTERM/SIGINT: in-flight requests get this long to finish
  // Browser protection (see docs/server.md): extra names allowed in Host (and Origin), and
  // the origins that get CORS headers ("*": any).
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> cors_origins;
  // The chat page at GET / and its files under /ui/ (when the binary embeds them: see
  // docs/webui.md). false (--no-webui): / answers one line of text naming the endpoints and
  // /ui/… is a 404.
  bool webui = true;
  pipeline::PipelineConfig pipeline;
  // MCP tools (--mcp-config): listed at /v1/mcp/tools and /v1/mcp/servers, executed at
  // /v1/mcp/execute. nullptr: MCP is off. Started by the caller before Run().
  std::shared_ptr<mcp::Manager> mcp;
  // POST /v1/mcp/execute and the tool loop run tools, so they need --api-key unless this is
  // set.
  bool mcp_allow_unauthenticated = false;
  // Requests may ask for the tool loop (`mcp_tools`): --mcp-tool-loop.
  bool mcp_tool_loop = false;
};

class Server {
 public:
  Server(ServerConfig config, engine::Engine& engine);
  ~Server();

  // Binds the listening socket. Errors: kIo with the address and the system's reason.
  Status Listen();
  // The bound port (after Listen).
  int port() const;
  // Serves until Stop() or SIGINT/SIGTERM. A signal starts a graceful shutdown: no new
  // connections, in-flight requests get --drain-timeout to finish, then every open stream ends
  // with its protocol's error event; a second signal exits the process at once.
  void Run();
  // Thread-safe: the same graceful shutdown.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crux::server
