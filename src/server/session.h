// One HTTP connection: reads requests, routes them, writes responses (JSON or SSE).
#pragma once

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <string>
#include <vector>

#include "crux/engine/engine.h"
#include "crux/server/server.h"
#include "server/connections.h"
#include "server/http_guard.h"
#include "server/metrics.h"

namespace crux::server {

// What every session shares: immutable configuration plus thread-safe state.
struct ServerState {
  ServerConfig config;
  engine::Engine* engine = nullptr;
  std::vector<engine::ModelInfo> models;  // as clients see them (served name applied)
  Metrics metrics;
  HostPolicy hosts;
  ConnectionTable connections;
  size_t max_connections = 0;             // the cap in force (resolved at Listen)
  std::atomic<bool> draining{false};      // a graceful shutdown has begun
  std::atomic<bool> trim_pending{false};  // a return of freed memory to the system is due
  // Runs MCP tool calls, which block, off the I/O threads (set when config.mcp is).
  std::unique_ptr<boost::asio::thread_pool> tool_pool;
};

enum class SessionMode : uint8_t {
  kServe,
  kRefuse,  // over --max-connections with nothing to evict: read one request, answer 503
};

// `connection` is the session's entry in state.connections (nullptr for kRefuse).
boost::asio::awaitable<void> RunSession(boost::asio::ip::tcp::socket socket, ServerState& state,
                                        std::shared_ptr<Connection> connection, SessionMode mode);

}  // namespace crux::server
