// Engine updates of one generation, handed from the engine thread to the session's strand,
// with a bound on how much output may wait for a client that does not read.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "crux/engine/engine.h"

namespace crux::server {

// The session waits on `timer()`; a push (or Wake) cancels the wait. Both the wake-up and the
// session's drain-then-wait run on the strand, so no wake-up is lost.
//
// Output waits here while the session is blocked writing to its client. Counted are the
// queued text (plus a per-update allowance for its wire framing) and the encoded bytes the
// session is writing (Hold). At `limit` the queue stops accepting, which pauses the
// generation in an engine that can pause (back-pressure: a slow reader slows the model down
// instead of growing memory). An engine that keeps delivering overflows the queue when the
// text queued behind a write in progress passes twice the limit (a pausing engine stays
// within one update of it; the write itself may be larger than the limit, being encoded):
// the queue keeps nothing more and runs the overflow handler on the strand, which cuts the
// client.
class UpdateQueue final : public engine::GenerationSink,
                          public std::enable_shared_from_this<UpdateQueue> {
 public:
  // Framing an update typically costs on the wire (an SSE event around a delta).
  static constexpr size_t kUpdateOverhead = 160;

  UpdateQueue(boost::asio::any_io_executor strand, size_t limit)
      : strand_(std::move(strand)), timer_(strand_), limit_(limit) {}

  void OnUpdate(engine::GenerationUpdate update) override;
  bool Accepting() const override;

  // Wakes the session (from any thread).
  void Wake();

  // Moves the queued updates into `into` (cleared first). The two buffers swap, so after the
  // first few wake-ups neither allocates.
  void Drain(std::vector<engine::GenerationUpdate>& into);

  // Whether updates arrived since the last Drain(). Checked before each wait: the wake-up for
  // them may have run while the session was not waiting (during a write), and cancelled nothing.
  bool HasPending();

  // Encoded bytes the session is writing (replaces the previous figure).
  void Hold(size_t bytes);
  bool overflowed();
  // On the strand: what to do on overflow (cleared with nullptr before the session ends).
  void SetOverflowHandler(std::function<void()> handler) { on_overflow_ = std::move(handler); }

  boost::asio::steady_timer& timer() { return timer_; }

 private:
  boost::asio::any_io_executor strand_;
  boost::asio::steady_timer timer_;
  const size_t limit_;
  std::function<void()> on_overflow_;  // strand only
  mutable std::mutex mutex_;
  std::vector<engine::GenerationUpdate> updates_;
  size_t queued_bytes_ = 0;
  size_t held_bytes_ = 0;
  bool notified_ = false;
  bool overflowed_ = false;
};

}  // namespace crux::server
