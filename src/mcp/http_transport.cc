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

#include "crux/text/http.h"

namespace crux::mcp {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr size_t kChunkBytes = 16384;        // one read from a response body
constexpr size_t kMaxErrorBodyBytes = 2000;  // of an HTTP error body quoted in an Error
constexpr std::chrono::milliseconds kDefaultRetry{1000};  // resumption without `retry:`
constexpr std::chrono::milliseconds kMaxRetry{30000};     // a larger `retry:` is capped

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
  std::optional<RequestId> id;  // kRequest, and a kGetStream that resumes one
  uint64_t seq = 0;
  std::string method;              // Mcp-Method (modern era)
  std::string name;                // Mcp-Name (modern era; "" for none)
  HttpTransport::Headers headers;  // the caller's extra headers
  std::string last_event_id;       // a resuming kGetStream: Last-Event-ID
};

// How an SSE answer ended: what resuming it needs.
struct StreamEnd {
  bool sse = false;
  std::string last_event_id;
  int64_t retry_ms = -1;
};

// The answer was delivered: stops reading a resumed stream.
constexpr std::string_view kAnsweredTag = "answered";

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
  text::HttpUrl url;
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
  bool modern = false;
  bool stopping = false;
  bool lost = false;

  void EnqueueLocked(Job job);
  void AbortRequestLocked(const RequestId& id);
  void WorkerLoop(Worker& worker);
  void Perform(Worker& worker, const Job& job);
  std::optional<Failure> Attempt(Worker& worker, const Job& job, StreamEnd& end);
  std::optional<Failure> Resume(Worker& worker, const Job& job, StreamEnd end);
  bool Pending(const RequestId& id) const {
    return !handlers.is_pending || handlers.is_pending(id);
  }
  std::optional<Failure> Exchange(Worker& worker, const Job& job, StreamEnd& end);
  std::optional<Failure> Answer(Worker& worker, http::response_parser<http::buffer_body>& parser,
                                const Job& job, bool session_may_expire, StreamEnd& end);
  Status ReadSse(Worker& worker, http::response_parser<http::buffer_body>& parser, const Job& job,
                 StreamEnd& end);
  void DeliverErrorBody(const std::string& body);
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

// One exchange, retried once on a fresh connection when a reused one turned out stale.
std::optional<Failure> HttpTransport::State::Attempt(Worker& worker, const Job& job,
                                                     StreamEnd& end) {
  std::optional<Failure> failure;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool reused = worker.stream.has_value();
    if (!reused) {
      if (beast::error_code ec = Connect(worker)) {
        worker.stream.reset();
        return Failure{
            Error(ErrorCode::kUnavailable, "cannot connect to " + Name() + ": " + ec.message()),
            false, true};
      }
    }
    end = StreamEnd{};
    failure = Exchange(worker, job, end);
    if (!failure || !failure->stale || !reused) break;
  }
  return failure;
}

// SEP-1699: a request stream that ended without the answer is resumed with GET and
// Last-Event-ID after the server's retry delay, while the client still waits.
std::optional<Failure> HttpTransport::State::Resume(Worker& worker, const Job& job, StreamEnd end) {
  int idle_attempts = 0;
  while (end.sse && !end.last_event_id.empty() && idle_attempts < kMaxResumes && Pending(*job.id)) {
    const auto delay = end.retry_ms < 0
                           ? kDefaultRetry
                           : std::min(kMaxRetry, std::chrono::milliseconds(end.retry_ms));
    {
      std::unique_lock lock(mu);
      if (modern || wake.wait_for(lock, delay, [this] { return stopping; })) return std::nullopt;
    }
    Job get;
    get.kind = JobKind::kGetStream;
    get.id = job.id;
    get.last_event_id = end.last_event_id;
    StreamEnd next;
    if (auto failure = Attempt(worker, get, next)) return failure;
    idle_attempts = next.last_event_id == end.last_event_id ? idle_attempts + 1 : 0;
    if (next.last_event_id.empty()) next.last_event_id = end.last_event_id;
    if (next.retry_ms < 0) next.retry_ms = end.retry_ms;
    end = std::move(next);
  }
  return std::nullopt;
}

void HttpTransport::State::Perform(Worker& worker, const Job& job) {
  StreamEnd end;
  std::optional<Failure> failure = Attempt(worker, job, end);
  if (!failure && job.kind == JobKind::kRequest) failure = Resume(worker, job, std::move(end));
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
    sent_session = !modern && !session_id.empty();
    if (sent_session) request.set("Mcp-Session-Id", session_id);
    if (modern && !get) {
      request.set("Mcp-Method", job.method);
      if (!job.name.empty()) request.set("Mcp-Name", job.name);
    }
  }
  for (const auto& [name, value] : job.headers)
    request.set(name, value);
  if (!job.last_event_id.empty()) request.set("Last-Event-ID", job.last_event_id);
  request.keep_alive(true);
  if (!get) {
    request.set(http::field::content_type, "application/json");
    request.body() = job.body;
  }
  request.prepare_payload();
  return request;
}

std::optional<Failure> HttpTransport::State::Exchange(Worker& worker, const Job& job,
                                                      StreamEnd& end) {
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
  auto failure = Answer(worker, parser, job, sent_session && job.kind != JobKind::kGetStream, end);
  if (failure || !parser.is_done() || !parser.keep_alive()) worker.stream.reset();
  return failure;
}

// Reads the body of an answer whose header has arrived, passing messages to on_line.
std::optional<Failure> HttpTransport::State::Answer(
    Worker& worker, http::response_parser<http::buffer_body>& parser, const Job& job,
    bool session_may_expire, StreamEnd& end) {
  const auto& response = parser.get();
  const unsigned status = response.result_int();
  if (const auto it = response.find("mcp-session-id"); it != response.end()) {
    std::lock_guard lock(mu);
    if (session_id.empty() && !modern) session_id = std::string(it->value());
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
    if (!expired && type.starts_with("application/json") && read.ok()) DeliverErrorBody(body);
    std::string message = Name() + " answered HTTP " + std::to_string(status);
    if (expired) message += " (the session expired)";
    if (!body.empty()) message += ": " + body;
    if (!read.ok()) worker.stream.reset();
    return Failure{Error(ErrorCode::kUnavailable, std::move(message)), false, expired};
  }
  if (parser.is_done() || status == 202 || status == 204) return std::nullopt;
  Status read;
  if (type.starts_with("text/event-stream")) {
    read = ReadSse(worker, parser, job, end);
    if (!read.ok() && read.error().tag() == kAnsweredTag) {
      worker.stream.reset();  // a resumed stream the server keeps open
      return std::nullopt;
    }
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

Status HttpTransport::State::ReadSse(Worker& worker,
                                     http::response_parser<http::buffer_body>& parser,
                                     const Job& job, StreamEnd& end) {
  // A resumed request stream is read only until the client has its answer.
  const bool resumed = job.kind == JobKind::kGetStream && job.id.has_value();
  bool answered = false;
  text::SseParser sse(options.max_message_bytes,
                      [&](std::string_view event, std::string_view data) {
                        if (event != "message") return;
                        handlers.on_line(data);
                        if (resumed && !Pending(*job.id)) answered = true;
                      });
  end.sse = true;
  Status read = ReadBody(worker, parser, [&](std::string_view bytes) -> Status {
    if (Status fed = sse.Feed(bytes); !fed.ok()) return fed;
    if (answered)
      return Error(ErrorCode::kCancelled, "answered").WithTag(std::string(kAnsweredTag));
    return {};
  });
  end.last_event_id = sse.last_event_id();
  end.retry_ms = sse.retry_ms();
  return read;
}

// An HTTP error whose body is a JSON-RPC error for a request (a modern server's 404 -32601 or
// 400 -32022) answers that request.
void HttpTransport::State::DeliverErrorBody(const std::string& body) {
  auto message = DecodeMessage(body);
  if (!message.ok()) return;
  const auto* error = std::get_if<ErrorResponse>(&*message);
  if (error != nullptr && error->id.has_value()) handlers.on_line(body);
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
  auto url = text::ParseHttpUrl(spec.url);
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

// Mcp-Name: what a request names (SEP-2243).
std::string NameOf(const Request& request) {
  if (!request.params.has_value() || !request.params->is_object()) return {};
  const char* key = request.method == "resources/read" ? "uri" : "name";
  if (request.method != "tools/call" && request.method != "prompts/get" &&
      request.method != "resources/read") {
    return {};
  }
  const auto it = request.params->find(key);
  return it != request.params->end() && it->is_string() ? it->get<std::string>() : std::string();
}

Status HttpTransport::Send(std::string_view message, Headers headers) {
  auto decoded = DecodeMessage(message);
  if (!decoded.ok()) return decoded.error();
  for (const auto& [name, value] : headers) {
    if (Status checked = CheckHeader(name, value); !checked.ok()) return checked.error();
  }
  Job job;
  job.body = std::string(message);
  job.headers = std::move(headers);
  std::optional<RequestId> cancelled;
  if (auto* request = std::get_if<Request>(&*decoded)) {
    job.kind = JobKind::kRequest;
    job.id = std::move(request->id);
    job.method = request->method;
    job.name = NameOf(*request);
  } else if (auto* notice = std::get_if<Notification>(&*decoded)) {
    job.method = notice->method;
  }
  if (auto* notice = std::get_if<Notification>(&*decoded);
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
  // The modern era cancels by closing the request's stream alone.
  if (!cancelled.has_value() || !state.modern) state.EnqueueLocked(std::move(job));
  if (cancelled.has_value()) state.AbortRequestLocked(*cancelled);
  return {};
}

void HttpTransport::SetEra(ProtocolEra era, std::string version) {
  State& state = *state_;
  std::lock_guard lock(state.mu);
  state.protocol_version = std::move(version);
  state.modern = era == ProtocolEra::kModern;
  if (state.modern) state.session_id.clear();
  if (!state.modern && !state.protocol_version.empty() && state.options.open_get_stream &&
      !state.get_opened && !state.session_id.empty() && !state.stopping && !state.lost) {
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

namespace {

bool IsHeaderToken(std::string_view name) {
  constexpr std::string_view kTokenChars =
      "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return !name.empty() && name.find_first_not_of(kTokenChars) == std::string_view::npos;
}

// Only primitive types other than number may be mirrored into a header (SEP-2243).
bool HeaderableType(const Json& property) {
  const auto type = property.find("type");
  if (type == property.end() || !type->is_string()) return false;
  const std::string& name = type->get_ref<const std::string&>();
  return name == "string" || name == "integer" || name == "boolean";
}

std::string Base64(std::string_view bytes) {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      chunk |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) chunk |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

// Plain when every byte is visible ASCII or an inner space; else the base64 form.
std::string HeaderValue(const std::string& text) {
  const bool plain = std::all_of(text.begin(), text.end(),
                                 [](unsigned char c) { return c >= 0x20 && c <= 0x7e; }) &&
                     (text.empty() || (text.front() != ' ' && text.back() != ' '));
  return plain ? text : "=?base64?" + Base64(text) + "?=";
}

}  // namespace

Expected<std::vector<HeaderParam>> ToolHeaderParams(const Json& input_schema) {
  std::vector<HeaderParam> params;
  const auto properties = input_schema.find("properties");
  if (properties == input_schema.end() || !properties->is_object()) return params;
  std::set<std::string> seen;
  for (const auto& [property, schema] : properties->items()) {
    if (!schema.is_object()) continue;
    const auto header = schema.find("x-mcp-header");
    if (header == schema.end()) continue;
    const std::string where = "x-mcp-header of property '" + property + "'";
    if (!header->is_string() || !IsHeaderToken(header->get_ref<const std::string&>())) {
      return Error(ErrorCode::kInvalidArgument,
                   where + " is not a header name token: " + header->dump());
    }
    if (!HeaderableType(schema)) {
      return Error(ErrorCode::kInvalidArgument,
                   where + " is on a type other than string, integer or boolean");
    }
    const std::string& name = header->get_ref<const std::string&>();
    if (!seen.insert(Lower(name)).second) {
      return Error(ErrorCode::kInvalidArgument, where + " repeats the header name '" + name + "'");
    }
    params.push_back({property, name});
  }
  return params;
}

HttpTransport::Headers ParamHeaders(const std::vector<HeaderParam>& params, const Json& arguments) {
  HttpTransport::Headers headers;
  if (!arguments.is_object()) return headers;
  for (const HeaderParam& param : params) {
    const auto value = arguments.find(param.property);
    if (value == arguments.end() || value->is_null()) continue;
    std::string text;
    if (value->is_string()) {
      text = HeaderValue(value->get_ref<const std::string&>());
    } else if (value->is_boolean() || value->is_number_integer()) {
      text = value->dump();
    } else {
      continue;  // a value of the wrong type is the server's to reject
    }
    headers.emplace_back("Mcp-Param-" + param.header, std::move(text));
  }
  return headers;
}

}  // namespace crux::mcp
