#include "crux/server/server.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "server/session.h"

namespace crux::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kAwait = net::as_tuple(net::use_awaitable);

// Descriptors kept for everything that is not a client connection (model files, logs, the
// engine, MCP peers) when the connection cap is derived from the open-file limit.
constexpr rlim_t kReservedDescriptors = 64;
// Idle connections closed at once when descriptors run out.
constexpr int kEvictBatch = 16;
// Sessions that only answer 503 at the cap; beyond them a connection is closed unanswered.
constexpr int kMaxRefusing = 64;

// The answer to a connection accepted with the spare descriptor when descriptors ran out: no
// request has been read, so its shape suits the OpenAI and Anthropic SDKs alike.
constexpr std::string_view kOutOfDescriptors =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
    "x-should-retry: true\r\nConnection: close\r\nContent-Length: 132\r\n\r\n"
    R"({"type":"error","error":{"type":"overloaded_error","message":"the server has no file descriptors left; retry shortly","code":null}})";

// Accept errors are system errors. Only their numbers and strerror_r are used here: with no
// descriptors left, nothing on this path may need one (or a virtual call a sanitizer checks
// by opening a pipe).
bool OutOfDescriptors(const boost::system::error_code& ec) {
  const int e = ec.value();
  return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

std::string SystemMessage(int error) {
  char buffer[256];
  const auto* text = strerror_r(error, buffer, sizeof buffer);  // the GNU variant
  return text != nullptr ? std::string(text) : "error " + std::to_string(error);
}

// Raises the soft open-file limit to the hard one; returns the soft limit in force.
rlim_t RaiseDescriptorLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max == RLIM_INFINITY ? 1u << 20 : limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return limit.rlim_cur;
}

}  // namespace

struct Server::Impl {
  ServerState state;
  net::io_context ioc;
  // The acceptor, the signals and the shutdown run on one strand.
  net::strand<net::io_context::executor_type> strand = net::make_strand(ioc);
  tcp::acceptor acceptor{strand};
  net::signal_set signals{strand, SIGINT, SIGTERM};
  int port = 0;
  int spare_fd = -1;  // closed to accept one connection when descriptors run out
  bool stopping = false;
  std::atomic<int> refusing{0};

  net::awaitable<void> Accept() {
    net::steady_timer backoff_timer(strand);
    auto backoff = std::chrono::milliseconds(0);
    auto last_accept_log = Clock::time_point();
    uint64_t accept_failures = 0;
    for (;;) {
      // Each connection gets its own strand, used by the socket and by every coroutine of its
      // session (the request, the disconnect watch, the wake-ups from engine threads).
      auto [ec, socket] = co_await acceptor.async_accept(net::make_strand(ioc), kAwait);
      if (ec == net::error::operation_aborted || !acceptor.is_open()) co_return;
      if (ec) {
        // Never spin: wait before the next accept, longer while the failures go on.
        backoff =
            std::clamp(backoff * 2, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
        if (OutOfDescriptors(ec)) {
          // Free a batch: the backlog may hold many connections, /health among them.
          int evicted = 0;
          while (evicted < kEvictBatch && state.connections.EvictOldestIdle())
            ++evicted;
          if (evicted == 0) RefuseWithSpare();
        }
        ++accept_failures;
        if (Clock::now() - last_accept_log > std::chrono::seconds(5)) {
          spdlog::warn("accept failed ({} time(s) since the last report): {}; backing off",
                       accept_failures, SystemMessage(ec.value()));
          last_accept_log = Clock::now();
          accept_failures = 0;
        }
        backoff_timer.expires_after(backoff);
        co_await backoff_timer.async_wait(kAwait);
        continue;
      }
      backoff = std::chrono::milliseconds(0);
      boost::system::error_code opt_ec;
      socket.set_option(tcp::no_delay(true), opt_ec);
      auto executor = socket.get_executor();
      if (state.connections.size() >= state.max_connections &&
          !state.connections.EvictOldestIdle()) {
        state.metrics.ConnectionRefused();
        if (refusing.load() >= kMaxRefusing) continue;  // closed by the socket's destructor
        ++refusing;
        net::co_spawn(executor, RunSession(std::move(socket), state, nullptr, SessionMode::kRefuse),
                      [this](std::exception_ptr) { --refusing; });
        continue;
      }
      auto connection = state.connections.Add(executor);
      net::co_spawn(
          executor,
          RunSession(std::move(socket), state, std::move(connection), SessionMode::kServe),
          net::detached);
    }
  }

  // Out of descriptors with no idle connection to close: frees the spare descriptor to
  // accept one waiting connection, answers it 503 and closes it, so that clients are told
  // rather than left waiting in the backlog.
  void RefuseWithSpare() {
    if (spare_fd < 0) return;
    ::close(spare_fd);
    const int fd = ::accept4(acceptor.native_handle(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) {
      state.metrics.ConnectionRefused();
      ::send(fd, kOutOfDescriptors.data(), kOutOfDescriptors.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::shutdown(fd, SHUT_WR);
      ::close(fd);
    }
    spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  }

  void WaitForSignal() {
    signals.async_wait([this](const boost::system::error_code& ec, int signo) {
      if (ec) return;
      if (stopping) {
        spdlog::warn("second signal ({}): exiting now", signo);
        std::_Exit(128 + signo);
      }
      spdlog::info("signal {}: shutting down (a second signal exits at once)", signo);
      BeginShutdown();
      WaitForSignal();
    });
  }

  // On the io_context: stop accepting, close idle connections, let the others finish.
  void BeginShutdown() {
    if (stopping) return;
    stopping = true;
    state.draining.store(true);
    boost::system::error_code ec;
    acceptor.close(ec);
    state.connections.SignalAll(ConnectionSignal::kDrain);
    net::co_spawn(strand, Drain(), net::detached);
  }

  net::awaitable<void> Drain() {
    const auto start = Clock::now();
    const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(state.config.drain_timeout_s));
    net::steady_timer tick(strand);
    auto wait_until = [&](Clock::time_point until) -> net::awaitable<void> {
      while (state.connections.size() > 0 && Clock::now() < until) {
        tick.expires_after(std::chrono::milliseconds(10));
        co_await tick.async_wait(kAwait);
      }
    };
    co_await wait_until(deadline);
    if (const size_t open = state.connections.size(); open > 0) {
      spdlog::warn("drain timeout: ending {} open connection(s) with a shutdown error", open);
      state.connections.SignalAll(ConnectionSignal::kAbort);
      // Time to write the terminal events; a client that does not read them is not waited for.
      co_await wait_until(Clock::now() + std::chrono::seconds(2));
    }
    spdlog::info("stopped after a {:.3f} s drain",
                 std::chrono::duration<double>(Clock::now() - start).count());
    boost::system::error_code ec;
    signals.cancel(ec);
    ioc.stop();
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
  const ServerConfig& c = impl_->state.config;
  impl_->state.hosts = HostPolicy::For(c.host, c.allowed_hosts, c.cors_origins);
  if (c.mcp) {
    // The manager bounds concurrent calls; the pool only keeps waiting ones off I/O threads.
    const int threads = std::max(c.mcp->config().max_concurrency, 4);
    impl_->state.tool_pool = std::make_unique<net::thread_pool>(threads);
  }
}

Server::~Server() {
  if (impl_->state.tool_pool) impl_->state.tool_pool->join();
  if (impl_->spare_fd >= 0) ::close(impl_->spare_fd);
}

Status Server::Listen() {
  ServerConfig& config = impl_->state.config;
  boost::system::error_code ec;
  const auto address = net::ip::make_address(config.host, ec);
  if (ec) {
    return Error(ErrorCode::kInvalidArgument,
                 "--host " + config.host + " is not an IP address: " + ec.message());
  }
  const rlim_t files = RaiseDescriptorLimit();
  impl_->state.max_connections =
      config.max_connections > 0
          ? static_cast<size_t>(config.max_connections)
          : static_cast<size_t>(files > kReservedDescriptors + 16 ? files - kReservedDescriptors
                                                                  : 16);
  const tcp::endpoint endpoint(address, static_cast<unsigned short>(config.port));
  auto& acc = impl_->acceptor;
  acc.open(endpoint.protocol(), ec);
  if (!ec) acc.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acc.bind(endpoint, ec);
  if (!ec) acc.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Error(ErrorCode::kIo, "cannot listen on " + config.host + ":" +
                                     std::to_string(config.port) + ": " + ec.message());
  }
  impl_->port = acc.local_endpoint().port();
  impl_->spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  spdlog::info("at most {} connections; Host allowed: {}", impl_->state.max_connections,
               impl_->state.hosts.Describe());
  return {};
}

int Server::port() const {
  return impl_->port;
}

void Server::Run() {
  auto& impl = *impl_;
  impl.WaitForSignal();
  net::co_spawn(impl.strand, impl.Accept(), net::detached);
  const int threads = std::max(1, impl.state.config.io_threads);
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i)
    pool.emplace_back([&impl] { impl.ioc.run(); });
  impl.ioc.run();
  for (auto& t : pool)
    t.join();
}

void Server::Stop() {
  net::post(impl_->strand, [impl = impl_.get()] { impl->BeginShutdown(); });
}

}  // namespace crux::server
