#include "server/connections.h"

#include <algorithm>
#include <boost/asio/post.hpp>

namespace crux::server {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void Connection::SetIdle(bool idle) {
  if (idle) {
    idle_since_ns_.store(NowNs());
    evicting_.store(false);  // an eviction that found it busy is void
  }
  idle_.store(idle);
}

void Connection::Signal(ConnectionSignal signal) {
  // The strand runs the handler after any update the session made to it, so a session that
  // has ended (handler cleared) is never called.
  boost::asio::post(strand_, [self = shared_from_this(), signal] {
    if (self->handler_) self->handler_(signal);
  });
}

std::shared_ptr<Connection> ConnectionTable::Add(boost::asio::any_io_executor strand) {
  auto connection = std::make_shared<Connection>(std::move(strand));
  connection->SetIdle(true);
  std::lock_guard<std::mutex> lock(mutex_);
  connections_.push_back(connection);
  return connection;
}

void ConnectionTable::Remove(const Connection* connection) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find_if(connections_.begin(), connections_.end(),
                         [&](const auto& c) { return c.get() == connection; });
  if (it == connections_.end()) return;
  *it = std::move(connections_.back());
  connections_.pop_back();
}

size_t ConnectionTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return connections_.size();
}

bool ConnectionTable::EvictOldestIdle() {
  std::shared_ptr<Connection> oldest;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& c : connections_) {
      if (c->evicting_.load() || !c->idle()) continue;
      if (!oldest || c->idle_since_ns() < oldest->idle_since_ns()) oldest = c;
    }
    if (!oldest) return false;
    oldest->evicting_.store(true);
  }
  oldest->Signal(ConnectionSignal::kEvict);
  return true;
}

void ConnectionTable::SignalAll(ConnectionSignal signal) {
  std::vector<std::shared_ptr<Connection>> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    all = connections_;
  }
  for (const auto& c : all)
    c->Signal(signal);
}

}  // namespace crux::server
