#include "crux/server/server.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <thread>
#include <vector>

#include "server/session.h"

namespace crux::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

struct Server::Impl {
  ServerState state;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  net::signal_set signals{ioc, SIGINT, SIGTERM};
  int port = 0;

  net::awaitable<void> Accept() {
    for (;;) {
      // Each connection gets its own strand, used by the socket and by every coroutine of its
      // session (the request, the disconnect watch, the wake-ups from engine threads).
      auto [ec, socket] =
          co_await acceptor.async_accept(net::make_strand(ioc), net::as_tuple(net::use_awaitable));
      if (ec) {
        if (ec == net::error::operation_aborted) co_return;
        continue;  // e.g. too many open files: keep serving the others
      }
      socket.set_option(tcp::no_delay(true));
      auto executor = socket.get_executor();
      net::co_spawn(executor, RunSession(std::move(socket), state), net::detached);
    }
  }
};

Server::Server(ServerConfig config, engine::Engine& engine) : impl_(std::make_unique<Impl>()) {
  impl_->state.config = std::move(config);
  impl_->state.engine = &engine;
  for (engine::ModelInfo m : engine.Models()) {
    if (!impl_->state.config.served_model_name.empty() && impl_->state.models.empty()) {
      m.id = impl_->state.config.served_model_name;
    }
    impl_->state.models.push_back(std::move(m));
  }
}

Server::~Server() = default;

Status Server::Listen() {
  boost::system::error_code ec;
  const auto address = net::ip::make_address(impl_->state.config.host, ec);
  if (ec) {
    return Error(ErrorCode::kInvalidArgument,
                 "--host " + impl_->state.config.host + " is not an IP address: " + ec.message());
  }
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(impl_->state.config.port));
  auto& acc = impl_->acceptor;
  acc.open(endpoint.protocol(), ec);
  if (!ec) acc.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(endpoint, ec);
  if (!ec) acc.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error(ErrorCode::kIo, "cannot listen on " + impl_->state.config.host + ":" +
                                     std::to_string(impl_->state.config.port) + ": " +
                                     ec.message());
  }
  impl_->port = acc.local_endpoint().port();
  return {};
}

int Server::port() const {
  return impl_->port;
}

void Server::Run() {
  auto& impl = *impl_;
  impl.signals.async_wait([this](const boost::system::error_code& ec, int) {
    if (!ec) Stop();
  });
  net::co_spawn(impl.ioc, impl.Accept(), net::detached);
  const int threads = std::max(1, impl.state.config.io_threads);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back([&impl] { impl.ioc.run(); });
  impl.ioc.run();
  for (auto& t : pool)
    t.join();
}

void Server::Stop() {
  net::post(impl_->ioc, [impl = impl_.get()] {
    boost::system::error_code ec;
    impl->acceptor.close(ec);
    impl->signals.cancel(ec);
    impl->ioc.stop();
  });
}

}  // namespace crux::server
