#include "crux/mcp/http_transport.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace crux::mcp {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr size_t kChunkBytes = 16384;        // one read from a response body
constexpr size_t kMaxErrorBodyBytes = 2000;  // of an HTTP error body quoted in an Error

struct Url {
  std::string host;  // as written, brackets of an IPv6 literal removed
  std::string port = "80";
  std::string authority;  // the Host header
  std::string target = "/";
};

Expected<Url> ParseUrl(std::string_view url) {
  constexpr std::string_view kHttp = "http://";
  auto lower = std::string(url.substr(0, 8));
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.starts_with("https://")) {
    return Error(ErrorCode::kUnsupported,
                 "https MCP servers need TLS, which this build lacks: " + std::string(url));
  }
  if (!lower.starts_with(kHttp)) {
    return Error(ErrorCode::kInvalidArgument, "not an http:// URL: " + std::string(url));
  }
  std::string_view rest = url.substr(kHttp.size());
  rest = rest.substr(0, rest.find('#'));
  const size_t slash = std::min(rest.find('/'), rest.find('?'));
  Url out;
  out.authority = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) {
    out.target = rest[slash] == '/' ? std::string(rest.substr(slash))
                                    : "/" + std::string(rest.substr(slash));
  }
  std::string_view host = out.authority;
  if (host.empty() || host.find_first_of("@ \t\r\n") != std::string_view::npos) {
    return Error(ErrorCode::kInvalidArgument, "a malformed host in URL " + std::string(url));
  }
  size_t colon = host.rfind(':');
  if (host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) {
      return Error(ErrorCode::kInvalidArgument, "a malformed host in URL " + std::string(url));
    }
    colon = close + 1 < host.size() && host[close + 1] == ':' ? close + 1 : std::string_view::npos;
    out.host = std::string(host.substr(1, close - 1));
  } else {
    out.host = std::string(host.substr(0, colon));
  }
  if (colon != std::string_view::npos) {
    out.port = std::string(host.substr(colon + 1));
    if (out.port.empty() || out.port.size() > 5 ||
        out.port.find_first_not_of("0123456789") != std::string::npos) {
      return Error(ErrorCode::kInvalidArgument, "a malformed port in URL " + std::string(url));
    }
  }
  return out;
}

// Header names are RFC 9110 tokens; values hold no control characters but tab.
Status CheckHeader(const std::string& name, const std::string& value) {
  constexpr std::string_view kTokenChars =
      "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  if (name.empty() || name.find_first_not_of(kTokenChars) != std::string::npos) {
    return Error(ErrorCode::kInvalidArgument, "a malformed HTTP header name '" + name + "'");
  }
  for (unsigned char c : value) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      return Error(ErrorCode::kInvalidArgument,
                   "the value of HTTP header '" + name + "' holds a control character");
    }
  }
  return {};
}

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

enum class JobKind : uint8_t {
  kRequest,    // a JSON-RPC request: its answer comes back on this POST
  kMessage,    // a notification or response: the server answers 202
  kGetStream,  // the standalone GET stream
};

struct Job {
  JobKind kind = JobKind::kMessage;
  std::string body;
  std::optional<RequestId> id;  // kRequest only
  uint64_t seq = 0;
};

// One thread with its own io_context and keep-alive connection.
struct Worker {
  std::thread thread;
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;  // worker thread only
  beast::flat_buffer buffer;                // worker thread only
  uint64_t seq = 0;                         // the job in progress (0: none); guarded by mu
  std::optional<RequestId> request;         // its id when a request; guarded by mu
  uint64_t running_seq = 0;                 // worker thread only: for posted aborts
};

// Runs `ioc` until the operation `start` began has completed; returns its error.
template <class Start>
beast::error_code RunOn(net::io_context& ioc, Start start) {
  beast::error_code result = net::error::operation_aborted;
  start([&result](beast::error_code ec, auto&&...) { result = ec; });
  ioc.run();
  return result;
}

// Why one exchange failed, and whether a retry on a fresh connection may help.
struct Failure {
  Error error;
  bool stale = false;  // a reused connection failed before any answer arrived
  bool lost = false;   // the server (or the session) is gone
};

}  // namespace

struct HttpTransport::State {
  HttpSpec spec;
  HttpOptions options;
  Handlers handlers;
  Url url;
  tcp::resolver::results_type endpoints;

  mutable std::mutex mu;
  std::condition_variable wake;  // a job was queued, a message accepted, or stopping
  std::deque<Job> queue;
  std::vector<std::unique_ptr<Worker>> workers;
  size_t idle = 0;
  std::set<uint64_t> open_messages;  // seqs of kMessage jobs not yet answered
  uint64_t next_seq = 1;
  std::string session_id;
  std::string protocol_version;
  bool get_opened = false;
  bool stopping = false;
  bool lost = false;

  void EnqueueLocked(Job job);
  void AbortRequestLocked(const RequestId& id);
  void WorkerLoop(Worker& worker);
  void Perform(Worker& worker, const Job& job);
  std::optional<Failure> Exchange(Worker& worker, const Job& job);
  std::optional<Failure> Answer(Worker& worker, http::response_parser<http::buffer_body>& parser,
                                bool session_may_expire);
  Status ReadBody(Worker& worker, http::response_parser<http::buffer_body>& parser,
                  const std::function<Status(std::string_view)>& sink);
  http::request<http::string_body> BuildRequest(const Job& job, bool& sent_session) const;
  beast::error_code Connect(Worker& worker);
  void Lose(const Error& error);
  void SendDelete();

  template <class Start>
  beast::error_code Run(Worker& worker, Start start) {
    {
      std::lock_guard lock(mu);
      if (stopping) return net::error::operation_aborted;
      worker.ioc.restart();
    }
    return RunOn(worker.ioc, std::move(start));
  }
  std::string Name() const { return "MCP endpoint " + spec.url; }
};

void HttpTransport::State::EnqueueLocked(Job job) {
  job.seq = next_seq++;
  if (job.kind == JobKind::kMessage) open_messages.insert(job.seq);
  queue.push_back(std::move(job));
  if (queue.size() > idle && workers.size() < options.max_connections) {
    auto worker = std::make_unique<Worker>();
    Worker& ref = *worker;
    workers.push_back(std::move(worker));
    ref.thread = std::thread([this, &ref] { WorkerLoop(ref); });
  }
  wake.notify_all();
}

// Closes the connection that carries request `id`, if one does: the 2025-11-25 clients'
// way to stop a cancelled request's stream.
void HttpTransport::State::AbortRequestLocked(const RequestId& id) {
  for (auto& worker : workers) {
    if (!worker->request.has_value() || *worker->request != id) continue;
    Worker* target = worker.get();
    net::post(target->ioc, [target, seq = worker->seq] {
      if (target->running_seq == seq && target->stream) target->stream->close();
    });
  }
}

void HttpTransport::State::WorkerLoop(Worker& worker) {
  std::unique_lock lock(mu);
  for (;;) {
    ++idle;
    wake.wait(lock, [this] { return stopping || !queue.empty(); });
    --idle;
    if (stopping) return;
    Job job = std::move(queue.front());
    queue.pop_front();
    if (job.kind == JobKind::kRequest) {
      // Messages queued earlier are accepted first (initialized before tools/list).
      wake.wait(lock, [&] {
        return stopping || open_messages.empty() || *open_messages.begin() > job.seq;
      });
      if (stopping) return;
    }
    worker.seq = job.seq;
    worker.request = job.id;
    lock.unlock();
    worker.running_seq = job.seq;
    Perform(worker, job);
    lock.lock();
    worker.seq = 0;
    worker.request.reset();
    if (job.kind == JobKind::kMessage) {
      open_messages.erase(job.seq);
      wake.notify_all();
    }
  }
}

void HttpTransport::State::Perform(Worker& worker, const Job& job) {
  std::optional<Failure> failure;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = worker.stream.has_value();
    if (!reused) {
      if (beast::error_code ec = Connect(worker)) {
        worker.stream.reset();
        failure = Failure{
            Error(ErrorCode::kUnavailable, "cannot connect to " + Name() + ": " + ec.message()),
            false, true};
        break;
      }
    }
    failure = Exchange(worker, job);
    if (!failure || !failure->stale || !reused) break;
  }
  {
    std::lock_guard lock(mu);
    if (stopping) return;
  }
  if (failure && failure->lost) return Lose(failure->error);
  if (job.kind != JobKind::kRequest) return;
  // Ignored by the client when the answer already came.
  handlers.on_request_failed(
      *job.id, failure ? failure->error
                       : Error(ErrorCode::kUnavailable, Name() + " ended the response to request " +
                                                            RequestIdText(*job.id) +
                                                            " without answering it"));
}

beast::error_code HttpTransport::State::Connect(Worker& worker) {
  worker.stream.emplace(worker.ioc);
  worker.buffer.clear();
  worker.stream->expires_after(options.connect_timeout);
  beast::error_code ec = Run(
      worker, [&](auto handler) { worker.stream->async_connect(endpoints, std::move(handler)); });
  if (!ec) worker.stream->socket().set_option(tcp::no_delay(true), ec);
  return ec;
}

http::request<http::string_body> HttpTransport::State::BuildRequest(const Job& job,
                                                                    bool& sent_session) const {
  const bool get = job.kind == JobKind::kGetStream;
  http::request<http::string_body> request{get ? http::verb::get : http::verb::post, url.target,
                                           11};
  request.set(http::field::host, url.authority);
  request.set(http::field::user_agent, "crux-mcp");
  for (const auto& [name, value] : spec.headers)
    request.set(name, value);
  request.set(http::field::accept,
              get ? "text/event-stream" : "application/json, text/event-stream");
  {
    std::lock_guard lock(mu);
    if (!protocol_version.empty()) request.set("MCP-Protocol-Version", protocol_version);
    if (!session_id.empty()) request.set("Mcp-Session-Id", session_id);
    sent_session = !session_id.empty();
  }
  request.keep_alive(true);
  if (!get) {
    request.set(http::field::content_type, "application/json");
    request.body() = job.body;
  }
  request.prepare_payload();
  return request;
}

std::optional<Failure> HttpTransport::State::Exchange(Worker& worker, const Job& job) {
  bool sent_session = false;
  auto request = BuildRequest(job, sent_session);
  worker.stream->expires_after(options.io_timeout);
  beast::error_code ec = Run(worker, [&](auto handler) {
    http::async_write(*worker.stream, request, std::move(handler));
  });
  if (ec) {
    worker.stream.reset();
    return Failure{Error(ErrorCode::kUnavailable, "cannot send to " + Name() + ": " + ec.message()),
                   true};
  }
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(boost::none);  // bounded per message and per event instead
  if (job.kind == JobKind::kMessage) {
    worker.stream->expires_after(options.io_timeout);
  } else {
    worker.stream->expires_never();  // answered, cancelled, or closed by Close()
  }
  ec = Run(worker, [&](auto handler) {
    http::async_read_header(*worker.stream, worker.buffer, parser, std::move(handler));
  });
  if (ec) {
    worker.stream.reset();
    const bool stale = ec == http::error::end_of_stream || ec == net::error::connection_reset ||
                       ec == net::error::broken_pipe;
    return Failure{Error(ErrorCode::kUnavailable, Name() + " did not answer: " + ec.message()),
                   stale};
  }
  // A GET refused with 404 is a server without the GET route, not an expired session.
  auto failure = Answer(worker, parser, sent_session && job.kind != JobKind::kGetStream);
  if (failure || !parser.is_done() || !parser.keep_alive()) worker.stream.reset();
  return failure;
}

// Reads the body of an answer whose header has arrived, passing messages to on_line.
std::optional<Failure> HttpTransport::State::Answer(
    Worker& worker, http::response_parser<http::buffer_body>& parser, bool session_may_expire) {
  const auto& response = parser.get();
  const unsigned status = response.result_int();
  if (const auto it = response.find("mcp-session-id"); it != response.end()) {
    std::lock_guard lock(mu);
    if (session_id.empty()) session_id = std::string(it->value());
  }
  const std::string type = Lower(response[http::field::content_type]);
  if (status >= 300) {
    std::string body;
    Status read = ReadBody(worker, parser, [&body](std::string_view bytes) -> Status {
      body.append(bytes.substr(0, kMaxErrorBodyBytes - std::min(body.size(), kMaxErrorBodyBytes)));
      // Stop reading an error body at the quote limit (the connection is then dropped).
      if (body.size() >= kMaxErrorBodyBytes) return Error(ErrorCode::kLimit, "an error body");
      return {};
    });
    const bool expired =
        session_may_expire &&
        (status == 404 || (status == 400 && body.find("No valid session") != std::string::npos));
    std::string message = Name() + " answered HTTP " + std::to_string(status);
    if (expired) message += " (the session expired)";
    if (!body.empty()) message += ": " + body;
    if (!read.ok()) worker.stream.reset();
    return Failure{Error(ErrorCode::kUnavailable, std::move(message)), false, expired};
  }
  if (parser.is_done() || status == 202 || status == 204) return std::nullopt;
  Status read;
  if (type.starts_with("text/event-stream")) {
    SseParser sse(options.max_message_bytes, [this](std::string_view event, std::string_view data) {
      if (event == "message") handlers.on_line(data);
    });
    read = ReadBody(worker, parser, [&sse](std::string_view bytes) { return sse.Feed(bytes); });
  } else if (type.starts_with("application/json")) {
    std::string body;
    read = ReadBody(worker, parser, [&](std::string_view bytes) -> Status {
      if (body.size() + bytes.size() > options.max_message_bytes) {
        return Error(ErrorCode::kLimit,
                     "a JSON body above " + std::to_string(options.max_message_bytes) + " bytes");
      }
      body.append(bytes);
      return {};
    });
    if (read.ok() && body.find_first_not_of(" \t\r\n") != std::string::npos) handlers.on_line(body);
  } else {
    read = Error(ErrorCode::kUnavailable, "an answer of type '" + type + "'");
  }
  if (read.ok()) return std::nullopt;
  return Failure{read.error().WithContext(Name())};
}

Status HttpTransport::State::ReadBody(Worker& worker,
                                      http::response_parser<http::buffer_body>& parser,
                                      const std::function<Status(std::string_view)>& sink) {
  char chunk[kChunkBytes];
  while (!parser.is_done()) {
    parser.get().body().data = chunk;
    parser.get().body().size = sizeof chunk;
    beast::error_code ec = Run(worker, [&](auto handler) {
      http::async_read_some(*worker.stream, worker.buffer, parser, std::move(handler));
    });
    if (ec == http::error::need_buffer) ec = {};
    if (ec) return Error(ErrorCode::kUnavailable, "reading the answer: " + ec.message());
    const size_t size = sizeof chunk - parser.get().body().size;
    if (size == 0) continue;
    if (Status fed = sink(std::string_view(chunk, size)); !fed.ok()) return fed;
  }
  return {};
}

void HttpTransport::State::Lose(const Error& error) {
  {
    std::lock_guard lock(mu);
    if (lost || stopping) return;
    lost = true;
  }
  handlers.on_close(error);
}

// DELETE with the session id, on a fresh connection, everything bounded by close_timeout.
void HttpTransport::State::SendDelete() {
  std::string session;
  std::string version;
  {
    std::lock_guard lock(mu);
    if (lost) return;
    session = session_id;
    version = protocol_version;
  }
  if (session.empty()) return;
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(options.close_timeout);
  beast::error_code ec =
      RunOn(ioc, [&](auto handler) { stream.async_connect(endpoints, std::move(handler)); });
  if (ec) return;
  http::request<http::empty_body> request{http::verb::delete_, url.target, 11};
  request.set(http::field::host, url.authority);
  for (const auto& [name, value] : spec.headers)
    request.set(name, value);
  if (!version.empty()) request.set("MCP-Protocol-Version", version);
  request.set("Mcp-Session-Id", session);
  request.keep_alive(false);
  ioc.restart();
  ec = RunOn(ioc, [&](auto handler) { http::async_write(stream, request, std::move(handler)); });
  if (ec) return;
  beast::flat_buffer buffer;
  http::response_parser<http::empty_body> parser;
  ioc.restart();
  (void)RunOn(ioc, [&](auto handler) {
    http::async_read_header(stream, buffer, parser, std::move(handler));
  });
}

HttpTransport::HttpTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}

HttpTransport::~HttpTransport() {
  Close();
}

Expected<std::unique_ptr<HttpTransport>> HttpTransport::Start(const HttpSpec& spec,
                                                              HttpOptions options,
                                                              Handlers handlers) {
  auto url = ParseUrl(spec.url);
  if (!url.ok()) return url.error();
  for (const auto& [name, value] : spec.headers) {
    if (Status checked = CheckHeader(name, value); !checked.ok()) return checked.error();
  }
  auto state = std::make_unique<State>();
  state->spec = spec;
  state->options = std::move(options);
  state->options.max_connections = std::max<size_t>(1, state->options.max_connections);
  state->handlers = std::move(handlers);
  state->url = std::move(*url);
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::error_code ec;
  state->endpoints = resolver.resolve(state->url.host, state->url.port, ec);
  if (ec) {
    return Error(ErrorCode::kUnavailable,
                 "cannot resolve '" + state->url.host + "' of " + spec.url + ": " + ec.message());
  }
  return std::unique_ptr<HttpTransport>(new HttpTransport(std::move(state)));
}

Status HttpTransport::Send(std::string_view message) {
  auto decoded = DecodeMessage(message);
  if (!decoded.ok()) return decoded.error();
  Job job;
  job.body = std::string(message);
  std::optional<RequestId> cancelled;
  if (auto* request = std::get_if<Request>(&*decoded)) {
    job.kind = JobKind::kRequest;
    job.id = std::move(request->id);
  } else if (auto* notice = std::get_if<Notification>(&*decoded);
             notice != nullptr && notice->method == "notifications/cancelled" &&
             notice->params.has_value() && notice->params->is_object()) {
    const auto it = notice->params->find("requestId");
    if (it != notice->params->end() && it->is_number_integer()) cancelled = it->get<int64_t>();
    if (it != notice->params->end() && it->is_string()) cancelled = it->get<std::string>();
  }
  State& state = *state_;
  std::lock_guard lock(state.mu);
  if (state.stopping || state.lost) {
    return Error(ErrorCode::kUnavailable, state.Name() + " is closed");
  }
  state.EnqueueLocked(std::move(job));
  if (cancelled.has_value()) state.AbortRequestLocked(*cancelled);
  return {};
}

void HttpTransport::SetProtocolVersion(std::string version) {
  State& state = *state_;
  std::lock_guard lock(state.mu);
  state.protocol_version = std::move(version);
  if (state.options.open_get_stream && !state.get_opened && !state.session_id.empty() &&
      !state.stopping && !state.lost) {
    state.get_opened = true;
    Job job;
    job.kind = JobKind::kGetStream;
    state.EnqueueLocked(std::move(job));
  }
}

void HttpTransport::Close() {
  State& state = *state_;
  {
    std::lock_guard lock(state.mu);
    if (state.stopping) return;
    state.stopping = true;
    for (auto& worker : state.workers)
      worker->ioc.stop();
  }
  state.wake.notify_all();
  for (auto& worker : state.workers)
    if (worker->thread.joinable()) worker->thread.join();
  state.SendDelete();
}

std::string HttpTransport::session_id() const {
  std::lock_guard lock(state_->mu);
  return state_->session_id;
}

Status SseParser::Feed(std::string_view bytes) {
  if (failed_) return Error(ErrorCode::kLimit, "an SSE event above the limit");
  while (!bytes.empty()) {
    if (skip_lf_ && bytes.front() == '\n') bytes.remove_prefix(1);
    skip_lf_ = false;
    const size_t end = bytes.find_first_of("\r\n");
    if (end == std::string_view::npos) {
      if (line_.size() + data_.size() + bytes.size() > max_event_bytes_) break;
      line_.append(bytes);
      return {};
    }
    if (line_.size() + data_.size() + end > max_event_bytes_) break;
    skip_lf_ = bytes[end] == '\r';
    Status done;
    if (line_.empty()) {
      done = Line(bytes.substr(0, end));
    } else {
      line_.append(bytes.substr(0, end));
      done = Line(line_);
      line_.clear();
    }
    if (!done.ok()) {
      failed_ = true;
      return done;
    }
    bytes.remove_prefix(end + 1);
  }
  if (bytes.empty()) return {};
  failed_ = true;
  return Error(ErrorCode::kLimit,
               "an SSE event above " + std::to_string(max_event_bytes_) + " bytes");
}

Status SseParser::Line(std::string_view line) {
  if (line.empty()) {                      // the event ends
    if (!data_.empty()) data_.pop_back();  // the "\n" after the last data line
    // An event without data (the 2025-11-25 priming event) carries nothing.
    if (!data_.empty()) {
      on_event_(type_.empty() ? std::string_view("message") : std::string_view(type_), data_);
    }
    data_.clear();
    type_.clear();
    return {};
  }
  const size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  if (field == "data") {
    if (data_.size() + value.size() + 1 > max_event_bytes_) {
      return Error(ErrorCode::kLimit,
                   "an SSE event above " + std::to_string(max_event_bytes_) + " bytes");
    }
    data_.append(value);
    data_.push_back('\n');
  } else if (field == "event") {
    type_ = value;
  }
  return {};  // comments (":…"), id, retry and unknown fields
}

}  // namespace crux::mcp
