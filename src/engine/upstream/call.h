// One generation sent upstream (private to engine/upstream/): a streaming POST to
// /v1/completions on the upstream the balancer picks, its SSE chunks turned into
// GenerationUpdates. Every method but Cancel runs on the engine's I/O thread.
//
// Retries: until the first output reaches the sink, a failure of the upstream (no connection,
// a 5xx or 429 answer, a stream cut before any text) moves the request to another healthy
// upstream it has not tried; after it, the generation ends with kError (502). An upstream
// that refuses the request itself (4xx) ends it with that status and the upstream's message.
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "balancer.h"
#include "crux/engine/engine.h"
#include "crux/engine/upstream_engine.h"
#include "crux/text/http.h"
#include "crux/text/stop_matcher.h"
#include "wire.h"

namespace crux::engine::upstream {

// What a call shares with the engine.
struct CallContext {
  boost::asio::io_context* ioc = nullptr;
  Balancer* balancer = nullptr;
  const UpstreamOptions* options = nullptr;
};

class Call : public std::enable_shared_from_this<Call> {
 public:
  Call(CallContext context, std::string body, std::vector<std::string> stops,
       std::shared_ptr<GenerationSink> sink);

  void Start();   // I/O thread
  void Cancel();  // any thread
  bool finished() const { return finished_; }

 private:
  using tcp = boost::asio::ip::tcp;
  void TryNext();
  void Connect(const tcp::resolver::results_type& endpoints);
  void Send();
  void OnHeader();
  void ReadErrorBody(int status);
  void OnErrorBody(int status);
  void ReadBody();
  void OnBody(size_t size);
  void OnEvent(std::string_view data);
  void Deliver(const std::string& text, int tokens);
  void UpstreamFailed(const std::string& reason);
  void Finish(StopReason reason, std::string error = {}, int status = 0);
  std::string Where() const;

  CallContext context_;
  std::string body_;
  text::StopMatcher stops_;
  std::shared_ptr<GenerationSink> sink_;
  tcp::resolver resolver_;
  std::optional<boost::beast::tcp_stream> stream_;
  boost::asio::steady_timer pause_;
  boost::beast::flat_buffer buffer_;
  boost::beast::http::request<boost::beast::http::string_body> request_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
  std::array<char, 16384> chunk_{};
  std::optional<text::SseParser> sse_;
  std::string plain_;  // an answer that is not SSE (a non-streamed completion) or an error body
  std::vector<bool> tried_;
  std::optional<size_t> upstream_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<std::string> failures_;  // "url: why" of each upstream that failed this request
  Chunk last_;                         // usage and finish reason, when they came
  int tokens_ = 0;                     // delivered so far
  bool delivered_ = false;             // any text reached the sink
  bool done_event_ = false;            // [DONE] or a finish reason arrived
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace crux::engine::upstream
