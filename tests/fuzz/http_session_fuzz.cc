// Raw bytes into an HTTP session, as a client on a socket would send them: request lines,
// headers, chunked and fixed bodies, pipelined requests, Expect, HTTP/1.0, garbage. The
// session runs for real (browser protection, routing, the three APIs on a mock engine,
// streaming and JSON answers). No crash, no sanitizer report, no hang: every input ends with
// the server closing the connection, and whatever it wrote parses as HTTP responses that
// each begin with a status line.
//
// The client writes the input and then closes its sending side, which a session must treat
// as a half-close (it answers what it has read, then closes).
#include <spdlog/spdlog.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "crux/engine/mock_engine.h"
#include "server/session.h"

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

struct Harness {
  net::io_context ioc;
  tcp::acceptor acceptor{ioc, tcp::endpoint(net::ip::make_address("127.0.0.1"), 0)};
  std::unique_ptr<crux::engine::Engine> engine;
  crux::server::ServerState state;

  Harness() {
    spdlog::set_level(spdlog::level::off);
    crux::engine::MockEngineOptions options;
    options.scripts.push_back(
        {"mock",
         {"<think>plan</think>Hello <tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
          "{\"city\": \"Paris\"}}\n</tool_call>"}});
    options.default_max_tokens = 64;
    engine = crux::engine::MakeMockEngine(std::move(options));
    state.engine = engine.get();
    state.models = engine->Models();
    state.config.host = "127.0.0.1";
    state.config.max_body_bytes = 64 * 1024;
    state.config.request_timeout_s = 5;
    state.config.idle_timeout_s = 5;
    state.config.write_timeout_s = 5;
    state.config.keepalive_s = 1;
    state.config.pipeline.reasoning_parser = "qwen3";
    state.config.pipeline.tool_parser = "hermes";
    state.hosts = crux::server::HostPolicy::For("127.0.0.1", {}, {"http://app.example"});
    state.max_connections = 1024;
  }
};

// Every response the server wrote starts with a status line; chunked or sized bodies are
// not re-parsed here (the e2e suites check them), only that the output is HTTP at all.
void CheckOutput(const std::string& out) {
  if (out.empty()) return;
  if (out.rfind("HTTP/1.", 0) != 0) {
    std::fprintf(stderr, "server output does not start with a status line: %.80s\n", out.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Harness* h = new Harness();
  h->ioc.restart();
  // Connected asynchronously: libFuzzer's timer signals interrupt blocking calls (EINTR),
  // which the io_context's own loop retries.
  tcp::socket client(h->ioc);
  std::optional<tcp::socket> accepted;
  bool connected = false;
  boost::system::error_code connect_ec;
  client.async_connect(h->acceptor.local_endpoint(), [&](boost::system::error_code ec) {
    connect_ec = ec;
    connected = true;
  });
  h->acceptor.async_accept(net::make_strand(h->ioc),
                           [&](boost::system::error_code ec, tcp::socket socket) {
                             if (ec) {
                               std::fprintf(stderr, "accept failed: %s\n", ec.message().c_str());
                               std::abort();
                             }
                             accepted.emplace(std::move(socket));
                           });
  // run_for returns (and the context stops) whenever it runs out of work: restart each time.
  auto run_a_little = [&](std::chrono::milliseconds ms) {
    if (h->ioc.stopped()) h->ioc.restart();
    h->ioc.run_for(ms);
  };
  while (!(connected && accepted))
    run_a_little(std::chrono::milliseconds(10));
  if (connect_ec) {
    std::fprintf(stderr, "connect failed: %s\n", connect_ec.message().c_str());
    std::abort();
  }
  tcp::socket server = std::move(*accepted);
  auto executor = server.get_executor();
  bool session_done = false;
  net::co_spawn(
      executor,
      crux::server::RunSession(std::move(server), h->state, h->state.connections.Add(executor),
                               crux::server::SessionMode::kServe),
      [&](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
        session_done = true;
      });
  const std::string input(reinterpret_cast<const char*>(data), size);
  net::async_write(client, net::buffer(input), [&](boost::system::error_code, size_t) {
    boost::system::error_code ec;
    client.shutdown(tcp::socket::shutdown_send, ec);
  });
  std::string out;
  bool read_done = false;
  net::async_read(client, net::dynamic_buffer(out),
                  [&](boost::system::error_code, size_t) { read_done = true; });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!(session_done && read_done)) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::fprintf(stderr, "the session did not end within 20 s\n");
      std::abort();
    }
    run_a_little(std::chrono::milliseconds(50));
  }
  CheckOutput(out);
  return 0;
}
