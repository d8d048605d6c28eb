// One HTTP connection: reads requests, routes them, writes responses (JSON or SSE).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "crux/engine/engine.h"
#include "crux/server/server.h"
#include "server/metrics.h"

namespace crux::server {

// What every session shares: immutable configuration plus thread-safe counters.
struct ServerState {
  ServerConfig config;
  engine::Engine* engine = nullptr;
  std::vector<engine::ModelInfo> models;  // as clients see them (served name applied)
  Metrics metrics;
};

boost::asio::awaitable<void> RunSession(boost::asio::ip::tcp::socket socket, ServerState& state);

}  // namespace crux::server
