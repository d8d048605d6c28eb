// The HTTP server: OpenAI Chat Completions, Anthropic Messages and OpenAI Responses endpoints
// over one engine, plus /v1/models, /health and /metrics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "crux/base/error.h"
#include "crux/engine/engine.h"
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
  pipeline::PipelineConfig pipeline;
};

class Server {
 public:
  Server(ServerConfig config, engine::Engine& engine);
  ~Server();

  // Binds the listening socket. Errors: kIo with the address and the system's reason.
  Status Listen();
  // The bound port (after Listen).
  int port() const;
  // Serves until Stop() or SIGINT/SIGTERM; returns after in-flight work is cancelled.
  void Run();
  // Thread-safe.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crux::server
