// The open connections of a server: how many there are (for --max-connections), which are
// idle (evicted first when the cap is reached) and the signals of a graceful shutdown. Each
// connection's session runs on its own strand; signals are posted to that strand.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace crux::server {

enum class ConnectionSignal : uint8_t {
  kEvict,  // the cap is reached: close if idle
  kDrain,  // shutting down: close if idle, else after the response in progress
  kAbort,  // the drain timed out: end the response in progress with a shutdown error
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using Handler = std::function<void(ConnectionSignal)>;

  explicit Connection(boost::asio::any_io_executor strand) : strand_(std::move(strand)) {}

  // On the connection's strand: who handles signals (nullptr when the session has ended).
  void SetHandler(Handler handler) { handler_ = std::move(handler); }

  // No request in progress: waiting for one, or receiving its header.
  void SetIdle(bool idle);
  bool idle() const { return idle_.load(); }
  int64_t idle_since_ns() const { return idle_since_ns_.load(); }

  // From any thread: runs the handler on the strand, if the session is still there.
  void Signal(ConnectionSignal signal);

 private:
  friend class ConnectionTable;
  boost::asio::any_io_executor strand_;
  Handler handler_;
  std::atomic<bool> idle_{true};
  std::atomic<int64_t> idle_since_ns_{0};
  std::atomic<bool> evicting_{false};  // signalled kEvict; cleared when it waits again
};

class ConnectionTable {
 public:
  // Registers a connection; it stays counted until Remove.
  std::shared_ptr<Connection> Add(boost::asio::any_io_executor strand);
  void Remove(const Connection* connection);
  size_t size() const;

  // Signals kEvict to the connection idle the longest (not already being evicted); false when
  // no connection is idle.
  bool EvictOldestIdle();
  void SignalAll(ConnectionSignal signal);

 private:
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<Connection>> connections_;
};

}  // namespace crux::server
