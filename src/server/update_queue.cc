#include "server/update_queue.h"

#include <boost/asio/post.hpp>

namespace crux::server {

void UpdateQueue::OnUpdate(engine::GenerationUpdate update) {
  bool notify = false, overflow = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (overflowed_) return;
    queued_bytes_ += update.text.size() + kUpdateOverhead;
    if (limit_ > 0 && held_bytes_ > 0 && queued_bytes_ > 2 * limit_) {
      overflowed_ = overflow = true;
      updates_.clear();
    } else {
      updates_.push_back(std::move(update));
    }
    notify = !notified_ || overflow;
    notified_ = true;
  }
  if (overflow) {
    boost::asio::post(strand_, [self = shared_from_this()] {
      if (self->on_overflow_) self->on_overflow_();
      self->timer_.cancel();
    });
  } else if (notify) {
    Wake();
  }
}

bool UpdateQueue::Accepting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return limit_ == 0 || queued_bytes_ + held_bytes_ < limit_;
}

void UpdateQueue::Wake() {
  boost::asio::post(strand_, [self = shared_from_this()] { self->timer_.cancel(); });
}

void UpdateQueue::Drain(std::vector<engine::GenerationUpdate>& into) {
  into.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  notified_ = false;
  queued_bytes_ = 0;
  updates_.swap(into);
}

bool UpdateQueue::HasPending() {
  std::lock_guard<std::mutex> lock(mutex_);
  return notified_;
}

void UpdateQueue::Hold(size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  held_bytes_ = bytes;
}

bool UpdateQueue::overflowed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return overflowed_;
}

}  // namespace crux::server
