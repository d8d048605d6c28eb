#include "call.h"

#include <spdlog/spdlog.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>

namespace crux::engine::upstream {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;

constexpr size_t kMaxErrorBodyBytes = 4096;
constexpr auto kPausePoll = std::chrono::milliseconds(5);  // re-ask a sink that is full

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Call::Call(CallContext context, std::string body, std::vector<std::string> stops,
           std::shared_ptr<GenerationSink> sink)
    : context_(context),
      body_(std::move(body)),
      stops_(stops),
      sink_(std::move(sink)),
      resolver_(*context.ioc),
      pause_(*context.ioc),
      tried_(context.balancer->size(), false) {}

void Call::Start() {
  deadline_ = std::chrono::steady_clock::now() + context_.options->request_timeout;
  TryNext();
}

void Call::Cancel() {
  net::post(*context_.ioc, [self = shared_from_this()] {
    if (self->finished_) return;
    self->cancelled_ = true;
    self->Finish(StopReason::kCancelled);
  });
}

std::string Call::Where() const {
  return upstream_ ? "upstream " + context_.balancer->target(*upstream_).url : "upstream";
}

void Call::TryNext() {
  if (cancelled_ || finished_) return;
  upstream_ = context_.balancer->Pick(tried_);
  if (!upstream_) {
    if (failures_.empty()) {
      Finish(StopReason::kError,
             "no upstream can take the request (" + context_.balancer->Failures() + ")", 503);
    } else {
      std::string why;
      for (const std::string& f : failures_)
        why += (why.empty() ? "" : "; ") + f;
      Finish(StopReason::kError, "every upstream tried failed the request: " + why, 502);
    }
    return;
  }
  tried_[*upstream_] = true;
  const Target& target = context_.balancer->target(*upstream_);
  resolver_.async_resolve(
      target.parsed.host, target.parsed.port,
      [self = shared_from_this()](beast::error_code ec, const tcp::resolver::results_type& r) {
        if (self->finished_) return;
        if (ec) return self->UpstreamFailed("cannot resolve: " + ec.message());
        self->Connect(r);
      });
}

void Call::Connect(const tcp::resolver::results_type& endpoints) {
  stream_.emplace(*context_.ioc);
  buffer_.clear();
  stream_->expires_at(
      std::min(deadline_, std::chrono::steady_clock::now() + context_.options->connect_timeout));
  stream_->async_connect(endpoints,
                         [self = shared_from_this()](beast::error_code ec, const tcp::endpoint&) {
                           if (self->finished_) return;
                           if (ec) return self->UpstreamFailed("cannot connect: " + ec.message());
                           beast::error_code ignored;
                           self->stream_->socket().set_option(tcp::no_delay(true), ignored);
                           self->Send();
                         });
}

void Call::Send() {
  const Target& target = context_.balancer->target(*upstream_);
  request_ = {http::verb::post, target.prefix + "/v1/completions", 11};
  request_.set(http::field::host, target.parsed.authority);
  request_.set(http::field::user_agent, "crux");
  request_.set(http::field::content_type, "application/json");
  request_.set(http::field::accept, "text/event-stream");
  if (!context_.options->api_key.empty()) {
    request_.set(http::field::authorization, "Bearer " + context_.options->api_key);
  }
  request_.keep_alive(false);
  request_.body() = body_;
  request_.prepare_payload();
  stream_->expires_at(deadline_);
  http::async_write(*stream_, request_, [self = shared_from_this()](beast::error_code ec, size_t) {
    if (self->finished_) return;
    if (ec) return self->UpstreamFailed("cannot send the request: " + ec.message());
    self->parser_.emplace();
    self->parser_->body_limit(boost::none);  // bounded per SSE event instead
    http::async_read_header(*self->stream_, self->buffer_, *self->parser_,
                            [self](beast::error_code rec, size_t) {
                              if (self->finished_) return;
                              if (rec == beast::error::timeout) {  // the deadline passed
                                return self->Finish(StopReason::kError,
                                                    self->Where() +
                                                        " did not answer within the request "
                                                        "timeout",
                                                    504);
                              }
                              if (rec) {
                                return self->UpstreamFailed("no answer: " + rec.message());
                              }
                              self->OnHeader();
                            });
  });
}

void Call::OnHeader() {
  const auto& response = parser_->get();
  const int status = static_cast<int>(response.result_int());
  if (status >= 300) return ReadErrorBody(status);
  const std::string type = Lower(response[http::field::content_type]);
  plain_.clear();
  if (type.starts_with("text/event-stream")) {
    sse_.emplace(context_.options->max_event_bytes,
                 [this](std::string_view, std::string_view data) { OnEvent(data); });
  } else {
    sse_.reset();  // a whole completion in one JSON body
  }
  ReadBody();
}

void Call::ReadErrorBody(int status) {
  plain_.clear();
  parser_->get().body().data = chunk_.data();
  parser_->get().body().size = chunk_.size();
  http::async_read_some(
      *stream_, buffer_, *parser_,
      [self = shared_from_this(), status](beast::error_code ec, size_t) {
        if (self->finished_) return;
        const size_t size = self->chunk_.size() - self->parser_->get().body().size;
        self->plain_.append(self->chunk_.data(), size);
        const bool more = (!ec || ec == http::error::need_buffer) && !self->parser_->is_done() &&
                          self->plain_.size() < kMaxErrorBodyBytes;
        if (more) return self->ReadErrorBody(status);
        self->OnErrorBody(status);
      });
}

void Call::OnErrorBody(int status) {
  const std::string message = "answered HTTP " + std::to_string(status) + ": " +
                              ErrorMessageOf(plain_.substr(0, kMaxErrorBodyBytes));
  if (status >= 500 || status == 429 || status == 408) return UpstreamFailed(message);
  // The upstream refused the request itself (a prompt longer than its context, a grammar it
  // does not take): every upstream would.
  Finish(StopReason::kError, Where() + " " + message, status);
}

void Call::ReadBody() {
  if (!sink_->Accepting()) {  // back-pressure: the upstream waits on its socket meanwhile
    if (std::chrono::steady_clock::now() >= deadline_) {
      return Finish(StopReason::kError, Where() + " did not finish within the request timeout",
                    504);
    }
    pause_.expires_after(kPausePoll);
    pause_.async_wait([self = shared_from_this()](beast::error_code) {
      if (!self->finished_) self->ReadBody();
    });
    return;
  }
  parser_->get().body().data = chunk_.data();
  parser_->get().body().size = chunk_.size();
  http::async_read_some(
      *stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, size_t) {
        if (self->finished_) return;
        if (ec == http::error::need_buffer) ec = {};
        const size_t size = self->chunk_.size() - self->parser_->get().body().size;
        if (ec == beast::error::timeout) {
          return self->Finish(StopReason::kError,
                              self->Where() + " did not finish within the request timeout", 504);
        }
        if (ec) return self->UpstreamFailed("the stream broke: " + ec.message());
        self->OnBody(size);
      });
}

void Call::OnBody(size_t size) {
  const std::string_view bytes(chunk_.data(), size);
  if (sse_) {
    if (Status fed = sse_->Feed(bytes); !fed.ok()) {
      return Finish(StopReason::kError, Where() + ": " + fed.error().message(), 502);
    }
  } else if (plain_.size() + size > context_.options->max_event_bytes) {
    return Finish(StopReason::kError, Where() + ": an answer above the size limit", 502);
  } else {
    plain_.append(bytes);
  }
  if (finished_) return;
  if (!parser_->is_done()) return ReadBody();
  if (!sse_) OnEvent(plain_);
  if (finished_) return;
  if (!done_event_) return UpstreamFailed("the stream ended before the completion did");
  const bool length = last_.finish_reason == "length";
  Finish(length ? StopReason::kMaxTokens : StopReason::kEndOfGeneration);
}

void Call::OnEvent(std::string_view data) {
  if (finished_) return;
  if (data == "[DONE]") {
    done_event_ = true;
    return;
  }
  auto chunk = ReadChunk(data);
  if (!chunk.ok()) {
    return Finish(StopReason::kError, Where() + ": " + chunk.error().message(), 502);
  }
  if (chunk->has_usage) {
    last_.has_usage = true;
    last_.prompt_tokens = chunk->prompt_tokens;
    last_.completion_tokens = chunk->completion_tokens;
    last_.cached_tokens = chunk->cached_tokens;
  }
  if (chunk->finish_reason) {
    last_.finish_reason = chunk->finish_reason;
    done_event_ = true;
  }
  if (!chunk->text.empty()) Deliver(chunk->text, 1);
}

void Call::Deliver(const std::string& text, int tokens) {
  std::string out;
  const bool stopped = stops_.Feed(text, out);
  tokens_ += tokens;
  if (stopped) {
    GenerationUpdate update;
    update.text = std::move(out);
    update.tokens = tokens;
    delivered_ = delivered_ || !update.text.empty();
    if (!update.text.empty() || update.tokens > 0) sink_->OnUpdate(std::move(update));
    return Finish(StopReason::kStopString);
  }
  if (out.empty() && tokens == 0) return;
  GenerationUpdate update;
  update.text = std::move(out);
  update.tokens = tokens;
  update.prompt_tokens = last_.prompt_tokens;
  delivered_ = true;
  sink_->OnUpdate(std::move(update));
}

// The upstream failed (not the request): out of the balance until a probe answers; the request
// moves on while the client has seen nothing.
void Call::UpstreamFailed(const std::string& reason) {
  const Target& target = context_.balancer->target(*upstream_);
  if (context_.balancer->MarkDown(*upstream_, reason, true)) {
    spdlog::warn("upstream {} taken out: {}", target.url, reason);
  }
  context_.balancer->Release(*upstream_);
  failures_.push_back(target.url + ": " + reason);
  beast::error_code ignored;
  if (stream_) stream_->socket().close(ignored);
  stream_.reset();
  parser_.reset();
  sse_.reset();
  last_ = Chunk{};
  done_event_ = false;
  if (delivered_ || cancelled_) {
    upstream_.reset();
    return Finish(StopReason::kError,
                  "upstream " + target.url + " failed mid-generation: " + reason, 502);
  }
  upstream_.reset();
  TryNext();
}

void Call::Finish(StopReason reason, std::string error, int status) {
  if (finished_) return;
  finished_ = true;
  GenerationUpdate update;
  if (reason != StopReason::kStopString) stops_.Finish(update.text);  // never lose held text
  update.finished = true;
  update.reason = reason;
  if (reason == StopReason::kStopString) update.stop_string = stops_.matched();
  update.error = std::move(error);
  update.error_status = status;
  if (last_.has_usage) {
    update.tokens = std::max(0, last_.completion_tokens - tokens_);
    update.prompt_tokens = last_.prompt_tokens;
    update.cached_tokens = last_.cached_tokens;
  }
  if (upstream_) {
    context_.balancer->Release(*upstream_);
    upstream_.reset();
  }
  beast::error_code ignored;
  pause_.cancel();
  resolver_.cancel();
  if (stream_) {
    stream_->socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_->socket().close(ignored);
  }
  sink_->OnUpdate(std::move(update));
  sink_.reset();
}

}  // namespace crux::engine::upstream
