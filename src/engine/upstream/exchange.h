// One short HTTP exchange with an upstream (private to engine/upstream/): a health probe, the
// model list, /props, /tokenize. Connect, send, read the whole answer (bounded), all within
// one timeout; the callback runs once, on the io_context's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <string>

#include "balancer.h"

namespace crux::engine::upstream {

struct Answer {
  int status = 0;    // 0: no answer (then `error` says why)
  std::string body;  // at most kMaxAnswerBytes
  std::string error;
};

inline constexpr size_t kMaxAnswerBytes = size_t{8} << 20;

// GET (empty `body`) or POST (JSON `body`) `path` (after the target's prefix).
void Exchange(boost::asio::io_context& ioc, const Target& target, const std::string& api_key,
              std::string path, std::string body, std::chrono::milliseconds timeout,
              std::function<void(Answer)> done);

}  // namespace crux::engine::upstream
