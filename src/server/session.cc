// HTTP session: request parsing, routing, authentication, limits, and the JSON / SSE
// responses. Each session runs on its own strand; engine updates reach it through
// UpdateQueue, which wakes the session's coroutine from the engine thread.
#include "server/session.h"

#include <spdlog/spdlog.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>

#include "crux/pipeline/pipeline.h"
#include "crux/protocol/codec.h"

namespace crux::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;
using Request = http::request<http::string_body>;
constexpr auto kAwait = net::as_tuple(net::use_awaitable);

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Engine updates of one generation, handed from the engine thread to the session's strand.
// The session waits on `timer()`; a push (or Wake) cancels the wait. Both the wake-up and the
// session's drain-then-wait run on the strand, so no wake-up is lost.
class UpdateQueue final : public engine::GenerationSink,
                          public std::enable_shared_from_this<UpdateQueue> {
 public:
  explicit UpdateQueue(net::any_io_executor strand) : strand_(std::move(strand)), timer_(strand_) {}

  void OnUpdate(engine::GenerationUpdate update) override {
    bool notify = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      updates_.push_back(std::move(update));
      notify = !notified_;
      notified_ = true;
    }
    if (notify) Wake();
  }

  // Wakes the session (from any thread).
  void Wake() {
    net::post(strand_, [self = shared_from_this()] { self->timer_.cancel(); });
  }

  std::deque<engine::GenerationUpdate> Drain() {
    std::lock_guard<std::mutex> lock(mutex_);
    notified_ = false;
    return std::exchange(updates_, {});
  }

  // Whether updates arrived since the last Drain(). Checked before each wait: the wake-up for
  // them may have run while the session was not waiting (during a write), and cancelled nothing.
  bool HasPending() {
    std::lock_guard<std::mutex> lock(mutex_);
    return notified_;
  }

  net::steady_timer& timer() { return timer_; }

 private:
  net::any_io_executor strand_;
  net::steady_timer timer_;
  std::mutex mutex_;
  std::deque<engine::GenerationUpdate> updates_;
  bool notified_ = false;
};

// Watches the socket while a response is being generated: the client sends nothing after
// its request, so a completed read means it went away (or pipelined a next request).
struct Watch {
  bool done = false;
  bool gone = false;
  std::string data;  // bytes of a pipelined request, for the next read
};

class Session {
 public:
  Session(tcp::socket socket, ServerState& state) : stream_(std::move(socket)), state_(state) {}

  net::awaitable<void> Run() {
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(state_.config.max_body_bytes);
      parser.header_limit(64 * 1024);
      stream_.expires_after(std::chrono::seconds(120));
      auto [ec, n] = co_await http::async_read(stream_, buffer_, parser, kAwait);
      if (ec == http::error::body_limit) {
        start_ = Clock::now();
        method_ = parser.get().method();
        allow_ = {};
        co_await WriteJson(http::status::payload_too_large, TooLargeBody(parser.get()), false);
        break;
      }
      if (ec) break;
      start_ = Clock::now();
      Request req = parser.release();
      const bool keep = co_await Handle(req);
      if (!keep || !req.keep_alive()) break;
    }
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

 private:
  static protocol::Api ApiForTarget(std::string_view target) {
    if (target.find("/messages") != std::string_view::npos)
      return protocol::Api::kAnthropicMessages;
    if (target.find("/responses") != std::string_view::npos) return protocol::Api::kResponses;
    return protocol::Api::kChatCompletions;
  }

  std::string TooLargeBody(const Request& req) {
    const auto api = ApiForTarget(std::string_view(req.target().data(), req.target().size()));
    endpoint_ = Metrics::kOther;
    return protocol::EncodeError(api, 413,
                                 "request body is larger than the limit of " +
                                     std::to_string(state_.config.max_body_bytes) + " bytes")
        .body;
  }

  // The resource a target names, with the methods it answers.
  enum class Resource { kNone, kRoot, kHealth, kMetrics, kModels, kModel, kApi, kStoredResponse };

  struct Route {
    Resource resource = Resource::kNone;
    protocol::Api api = protocol::Api::kChatCompletions;  // kApi, kStoredResponse
    std::string id;                                       // kModel, kStoredResponse
  };

  static Route RouteFor(std::string_view target) {
    auto under = [&](std::string_view prefix, std::string& id) {
      for (std::string_view p : {std::string_view("/v1"), std::string_view("")}) {
        const std::string full = std::string(p) + std::string(prefix);
        if (target.size() > full.size() && target.starts_with(full) &&
            target.substr(full.size()).find('/') == std::string_view::npos) {
          id = std::string(target.substr(full.size()));
          return true;
        }
      }
      return false;
    };
    Route route;
    if (target == "/") {
      route.resource = Resource::kRoot;
    } else if (target == "/health" || target == "/v1/health") {
      route.resource = Resource::kHealth;
    } else if (target == "/metrics") {
      route.resource = Resource::kMetrics;
    } else if (target == "/v1/models" || target == "/models") {
      route.resource = Resource::kModels;
    } else if (target == "/v1/chat/completions" || target == "/chat/completions") {
      route = {Resource::kApi, protocol::Api::kChatCompletions, ""};
    } else if (target == "/v1/messages" || target == "/messages") {
      route = {Resource::kApi, protocol::Api::kAnthropicMessages, ""};
    } else if (target == "/v1/responses" || target == "/responses") {
      route = {Resource::kApi, protocol::Api::kResponses, ""};
    } else if (under("/responses/", route.id)) {
      route.resource = Resource::kStoredResponse;
      route.api = protocol::Api::kResponses;
    } else if (under("/models/", route.id)) {
      route.resource = Resource::kModel;
    }
    return route;
  }

  // The methods a resource answers, for `Allow` (HEAD wherever GET is; OPTIONS everywhere).
  static std::string_view AllowFor(Resource resource) {
    switch (resource) {
      case Resource::kApi:
        return "POST, OPTIONS";
      case Resource::kStoredResponse:
        return "GET, HEAD, DELETE, OPTIONS";
      default:
        return "GET, HEAD, OPTIONS";
    }
  }

  static bool Allows(Resource resource, http::verb method) {
    switch (resource) {
      case Resource::kApi:
        return method == http::verb::post;
      case Resource::kStoredResponse:
        return method == http::verb::get || method == http::verb::head ||
               method == http::verb::delete_;
      default:
        return method == http::verb::get || method == http::verb::head;
    }
  }

  net::awaitable<bool> Handle(const Request& req) {
    std::string_view target(req.target().data(), req.target().size());
    target = target.substr(0, target.find('?'));
    version_ = req.version();
    method_ = req.method();
    allow_ = {};
    endpoint_ = Metrics::kOther;
    const Route route = RouteFor(target);
    if (route.resource == Resource::kNone) {
      co_return co_await WriteError(ApiForTarget(target), 404,
                                    "no route for " + std::string(target));
    }
    if (route.resource == Resource::kApi) endpoint_ = EndpointFor(route.api);
    allow_ = AllowFor(route.resource);
    if (method_ == http::verb::options) {
      co_return co_await WriteBody(204, "", "text/plain");
    }
    if (!Allows(route.resource, method_)) {
      co_return co_await WriteError(route.api, 405,
                                    std::string(target) + " does not accept " +
                                        std::string(req.method_string()) +
                                        " (allowed: " + std::string(allow_) + ")");
    }
    switch (route.resource) {
      case Resource::kRoot:
        co_return co_await WriteText(
            http::status::ok,
            "crux serve: OpenAI Chat Completions at /v1/chat/completions, Anthropic Messages at "
            "/v1/messages, OpenAI Responses at /v1/responses\n",
            "text/plain; charset=utf-8");
      case Resource::kHealth:
        co_return co_await WriteJson(http::status::ok, R"({"status":"ok"})", true);
      case Resource::kMetrics:
        co_return co_await WriteText(http::status::ok, state_.metrics.Render(),
                                     "text/plain; version=0.0.4; charset=utf-8");
      case Resource::kModels:
      case Resource::kModel:
        if (!Authorized(req)) co_return co_await WriteAuthError(ApiForHeaders(req), req);
        co_return co_await WriteModels(route, ApiForHeaders(req));
      case Resource::kStoredResponse:
        if (!Authorized(req)) co_return co_await WriteAuthError(route.api, req);
        co_return co_await WriteStoredResponse(route.id);
      case Resource::kApi:
        co_return co_await HandleApi(req, route.api);
      case Resource::kNone:
        break;
    }
    co_return false;
  }

  static Metrics::Endpoint EndpointFor(protocol::Api api) {
    switch (api) {
      case protocol::Api::kChatCompletions:
        return Metrics::kChat;
      case protocol::Api::kAnthropicMessages:
        return Metrics::kMessages;
      case protocol::Api::kResponses:
        return Metrics::kResponses;
    }
    return Metrics::kOther;
  }

  // Model listings are shared by the OpenAI and Anthropic SDKs; a client that sends
  // `anthropic-version` gets Anthropic's error shape.
  static protocol::Api ApiForHeaders(const Request& req) {
    return req.find("anthropic-version") != req.end() ? protocol::Api::kAnthropicMessages
                                                      : protocol::Api::kChatCompletions;
  }

  net::awaitable<bool> WriteModels(const Route& route, protocol::Api api) {
    if (route.resource == Resource::kModels) {
      co_return co_await WriteJson(http::status::ok, ModelsBody(), true);
    }
    for (const engine::ModelInfo& m : state_.models) {
      if (m.id == route.id)
        co_return co_await WriteJson(http::status::ok, ModelJson(m).dump(), true);
    }
    co_return co_await WriteError(api, UnknownModel(api, route.id));
  }

  // GET, HEAD or DELETE of a stored response.
  net::awaitable<bool> WriteStoredResponse(const std::string& id) {
    protocol::ResponseStore* store = state_.config.pipeline.response_store.get();
    std::optional<std::string> stored;
    if (store != nullptr) stored = store->Get(id);
    if (!stored) {
      co_return co_await WriteError(protocol::Api::kResponses, protocol::ResponseNotFoundError(id));
    }
    if (method_ == http::verb::delete_) {
      store->Delete(id);
      co_return co_await WriteJson(http::status::ok, protocol::EncodeDeletedResponse(id), true);
    }
    co_return co_await WriteJson(http::status::ok, std::move(*stored), true);
  }

  Error UnknownModel(protocol::Api api, const std::string& model) const {
    std::string available;
    for (const auto& m : state_.models)
      available += (available.empty() ? "" : ", ") + m.id;
    return protocol::UnknownModelError(api, model, available);
  }

  net::awaitable<bool> WriteAuthError(protocol::Api api, const Request& req) {
    const bool given =
        req.find(http::field::authorization) != req.end() || req.find("x-api-key") != req.end();
    co_return co_await WriteError(api, protocol::UnauthorizedError(api, given));
  }

  static bool ConstantTimeEquals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < a.size(); ++i)
      diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
  }

  bool Authorized(const Request& req) const {
    const std::string& key = state_.config.api_key;
    if (key.empty()) return true;
    if (auto it = req.find(http::field::authorization); it != req.end()) {
      std::string_view v(it->value().data(), it->value().size());
      if (v.size() > 7 && (v.substr(0, 7) == "Bearer " || v.substr(0, 7) == "bearer ")) {
        if (ConstantTimeEquals(v.substr(7), key)) return true;
      }
    }
    if (auto it = req.find("x-api-key"); it != req.end()) {
      if (ConstantTimeEquals(std::string_view(it->value().data(), it->value().size()), key)) {
        return true;
      }
    }
    return false;
  }

  std::string ModelsBody() const {
    Json data = Json::array();
    for (const engine::ModelInfo& m : state_.models)
      data.push_back(ModelJson(m));
    return Json{{"object", "list"}, {"data", data}, {"has_more", false}}.dump();
  }

  // A model in both the OpenAI and the Anthropic shape (their SDKs each read their fields).
  static Json ModelJson(const engine::ModelInfo& m) {
    return {{"id", m.id},           {"object", "model"},
            {"created", m.created}, {"owned_by", m.owned_by},
            {"type", "model"},      {"display_name", m.id}};
  }

  // The engine's id for the model a request names; nullopt when not served.
  std::optional<std::string> ResolveModel(const std::string& requested) const {
    const auto models = state_.engine->Models();
    for (size_t i = 0; i < state_.models.size() && i < models.size(); ++i) {
      if (state_.models[i].id == requested) return models[i].id;
    }
    return std::nullopt;
  }

  static pipeline::ParserOverrides Overrides(const std::string& body) {
    pipeline::ParserOverrides o;
    if (body.find("_parser\"") == std::string::npos) return o;
    Json j = Json::parse(body, nullptr, false);
    if (!j.is_object()) return o;
    if (auto it = j.find("reasoning_parser"); it != j.end() && it->is_string()) {
      o.reasoning_parser = it->get<std::string>();
    }
    if (auto it = j.find("tool_call_parser"); it != j.end() && it->is_string()) {
      o.tool_parser = it->get<std::string>();
    }
    return o;
  }

  net::awaitable<bool> HandleApi(const Request& req, protocol::Api api) {
    if (!Authorized(req)) co_return co_await WriteAuthError(api, req);
    auto decoded =
        protocol::DecodeRequest(api, req.body(), state_.config.pipeline.response_store.get());
    if (!decoded.ok()) co_return co_await WriteError(api, decoded.error());
    protocol::ChatRequest request = std::move(*decoded);
    const std::string requested_model = request.model;
    auto engine_model = ResolveModel(request.model);
    if (!engine_model) co_return co_await WriteError(api, UnknownModel(api, request.model));
    protocol::ResponseMeta meta{protocol::NewResponseId(api),
                                std::chrono::duration_cast<std::chrono::seconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count(),
                                requested_model};
    request.model = *engine_model;
    auto created = pipeline::RequestPipeline::Create(request, state_.config.pipeline,
                                                     Overrides(req.body()), meta, *state_.engine);
    if (!created.ok()) co_return co_await WriteError(api, created.error());
    auto& pipe = **created;
    const int limit = state_.config.max_concurrent_requests;
    if (limit > 0 && state_.metrics.active_generations() >= limit) {
      co_return co_await WriteError(
          api, 429,
          "too many concurrent requests (limit " + std::to_string(limit) + "); retry shortly");
    }
    auto queue = std::make_shared<UpdateQueue>(co_await net::this_coro::executor);
    auto submitted = state_.engine->Submit(pipe.generate_request(), queue);
    if (!submitted.ok()) co_return co_await WriteError(api, submitted.error());
    state_.metrics.GenerationStarted();
    std::unique_ptr<engine::Generation> generation = std::move(*submitted);
    generation_open_ = true;
    bool keep = false;
    if (request.stream) {
      keep = co_await Stream(pipe, *queue, *generation);
    } else {
      keep = co_await Complete(pipe, *queue, *generation, api);
    }
    EndGeneration(pipe);
    co_return keep;
  }

  // Starts watching the socket for the client going away.
  std::shared_ptr<Watch> StartWatch(UpdateQueue& queue) {
    auto watch = std::make_shared<Watch>();
    stream_.expires_never();
    net::co_spawn(
        stream_.get_executor(),
        [this, watch, q = queue.shared_from_this()]() -> net::awaitable<void> {
          char buf[1024];
          auto [ec, n] = co_await stream_.socket().async_read_some(net::buffer(buf), kAwait);
          if (n > 0) watch->data.append(buf, n);
          if (ec && ec != net::error::operation_aborted) watch->gone = true;
          watch->done = true;
          q->Wake();
        },
        net::detached);
    return watch;
  }

  // Ends the watch and keeps any pipelined bytes for the next request.
  net::awaitable<void> StopWatch(Watch& watch, UpdateQueue& queue) {
    beast::error_code ec;
    stream_.socket().cancel(ec);
    while (!watch.done) {
      queue.timer().expires_after(std::chrono::seconds(5));
      co_await queue.timer().async_wait(kAwait);
    }
    if (!watch.data.empty()) {
      auto dest = buffer_.prepare(watch.data.size());
      net::buffer_copy(dest, net::buffer(watch.data));
      buffer_.commit(watch.data.size());
    }
  }

  // Waits until the queue has updates, the client left, or `until`. Runs on the strand that
  // delivers wake-ups, so one posted after the check below cancels this wait.
  net::awaitable<void> Wait(UpdateQueue& queue, Clock::time_point until) {
    if (queue.HasPending()) co_return;
    queue.timer().expires_at(until);
    co_await queue.timer().async_wait(kAwait);
  }

  net::awaitable<bool> Stream(pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                              engine::Generation& generation) {
    state_.metrics.StreamStarted();
    http::response<http::empty_body> res{http::status::ok, version_};
    res.set(http::field::content_type, "text/event-stream; charset=utf-8");
    res.set(http::field::cache_control, "no-cache");
    res.set("x-accel-buffering", "no");
    res.chunked(true);
    res.keep_alive(true);
    http::response_serializer<http::empty_body> serializer{res};
    auto [hec, hn] = co_await http::async_write_header(stream_, serializer, kAwait);
    if (hec) {
      generation.Cancel();
      EndGeneration(pipe);
      state_.metrics.StreamEnded();
      co_return false;
    }
    std::string out;
    pipe.Begin(out);
    const auto deadline =
        start_ + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(state_.config.request_timeout_s));
    const auto keepalive = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(state_.config.keepalive_s));
    auto watch = StartWatch(queue);
    auto last_write = Clock::now();
    bool first_output = false, ok = true;
    while (ok) {
      for (auto& update : queue.Drain())
        pipe.OnUpdate(update, out);
      if (!pipe.finished() && Clock::now() >= deadline) {
        generation.Cancel();
        pipe.Fail(
            Error(ErrorCode::kLimit, "the request exceeded its deadline of " +
                                         std::to_string(state_.config.request_timeout_s) + " s"),
            out);
      }
      if (!out.empty()) {
        if (!first_output && pipe.produced_output()) {
          first_output = true;
          state_.metrics.FirstByte(SecondsSince(start_));
        }
        auto [ec, n] =
            co_await net::async_write(stream_, http::make_chunk(net::buffer(out)), kAwait);
        out.clear();
        last_write = Clock::now();
        if (ec) ok = false;
      }
      if (pipe.finished() || watch->gone || !ok) break;
      if (Clock::now() - last_write >= keepalive) {
        const std::string_view ping = StreamKeepAlive(pipe);
        auto [ec, n] =
            co_await net::async_write(stream_, http::make_chunk(net::buffer(ping)), kAwait);
        last_write = Clock::now();
        if (ec) ok = false;
        continue;
      }
      co_await Wait(queue, std::min(deadline, last_write + keepalive));
    }
    if (!pipe.finished() || watch->gone || !ok) {
      generation.Cancel();
      state_.metrics.Cancelled();
      ok = false;
    }
    co_await StopWatch(*watch, queue);
    // Bookkeeping before the last bytes: a client that has its whole response sees it in
    // /metrics.
    EndGeneration(pipe);
    state_.metrics.StreamEnded();
    Log(200, pipe);
    state_.metrics.RequestDone(endpoint_, 200, SecondsSince(start_));
    if (ok) {
      auto [ec, n] = co_await net::async_write(stream_, http::make_chunk_last(), kAwait);
      ok = !ec;
    }
    co_return ok;
  }

  static std::string_view StreamKeepAlive(const pipeline::RequestPipeline& pipe) {
    return pipe.request().api == protocol::Api::kAnthropicMessages
               ? std::string_view("event: ping\ndata: {\"type\":\"ping\"}\n\n")
               : std::string_view(": keep-alive\n\n");
  }

  net::awaitable<bool> Complete(pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                                engine::Generation& generation, protocol::Api api) {
    const auto deadline =
        start_ + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(state_.config.request_timeout_s));
    auto watch = StartWatch(queue);
    std::string unused;
    while (!pipe.finished() && !watch->gone && Clock::now() < deadline) {
      for (auto& update : queue.Drain())
        pipe.OnUpdate(update, unused);
      if (pipe.finished()) break;
      co_await Wait(queue, deadline);
    }
    const bool gone = watch->gone;
    const bool timed_out = !pipe.finished() && !gone;
    if (!pipe.finished()) {
      generation.Cancel();
      state_.metrics.Cancelled();
    }
    co_await StopWatch(*watch, queue);
    EndGeneration(pipe);
    if (gone) co_return false;
    if (timed_out) {
      co_return co_await WriteError(api, 504,
                                    "the request exceeded its deadline of " +
                                        std::to_string(state_.config.request_timeout_s) + " s");
    }
    Log(200, pipe);
    co_return co_await WriteJson(http::status::ok, pipe.Body(), true);
  }

  // Counts a generation as ended, with its tokens (once per generation).
  void EndGeneration(const pipeline::RequestPipeline& pipe) {
    if (!generation_open_) return;
    generation_open_ = false;
    state_.metrics.GenerationEnded();
    const auto& usage = pipe.completion().usage;
    state_.metrics.Tokens(usage.prompt_tokens, usage.completion_tokens);
  }

  void Log(int status, const pipeline::RequestPipeline& pipe) const {
    const auto& c = pipe.completion();
    spdlog::info(
        "{} {} {} {:.3f}s prompt={} completion={} finish={}", protocol::ApiName(pipe.request().api),
        status, pipe.request().stream ? "stream" : "json", SecondsSince(start_),
        c.usage.prompt_tokens, c.usage.completion_tokens, parse::FinishReasonName(c.reason));
  }

  net::awaitable<bool> WriteError(protocol::Api api, const Error& error) {
    const protocol::HttpError e = protocol::EncodeError(api, error);
    co_return co_await WriteBody(e.status, e.body, "application/json");
  }

  net::awaitable<bool> WriteError(protocol::Api api, int status, std::string_view message) {
    const protocol::HttpError e = protocol::EncodeError(api, status, message);
    co_return co_await WriteBody(e.status, e.body, "application/json");
  }

  net::awaitable<bool> WriteJson(http::status status, std::string body, bool keep) {
    co_return co_await WriteBody(static_cast<int>(status), std::move(body), "application/json",
                                 keep);
  }

  net::awaitable<bool> WriteText(http::status status, std::string body, const char* type) {
    co_return co_await WriteBody(static_cast<int>(status), std::move(body), type);
  }

  // Writes a whole response. As RFC 9110 requires, a HEAD response has the headers a GET
  // would have (Content-Length included) and no body, a 204 has neither body nor
  // Content-Length, and a 405 (or OPTIONS) says what is allowed.
  net::awaitable<bool> WriteBody(int status, std::string body, const char* type, bool keep = true) {
    const bool no_content = status == 204 || status == 304;
    http::response<http::string_body> res{static_cast<http::status>(status), version_};
    if (!no_content) res.set(http::field::content_type, type);
    if (status >= 400) res.set("x-should-retry", status == 429 || status == 503 ? "true" : "false");
    if (status == 429) res.set(http::field::retry_after, "1");
    if ((status == 405 || method_ == http::verb::options) && !allow_.empty()) {
      res.set(http::field::allow, allow_);
    }
    res.keep_alive(keep);
    if (!no_content) {
      res.body() = std::move(body);
      res.prepare_payload();
    }
    // Counted before the write: a client that has its response sees it in /metrics.
    if (endpoint_ != Metrics::kOther || status >= 400) {
      state_.metrics.RequestDone(endpoint_, status, SecondsSince(start_));
    }
    if (status >= 400) spdlog::info("{} {}", status, res.body().substr(0, 300));
    stream_.expires_after(std::chrono::seconds(60));
    beast::error_code ec;
    if (method_ == http::verb::head || no_content) {
      http::response_serializer<http::string_body> serializer{res};
      std::tie(ec, std::ignore) = co_await http::async_write_header(stream_, serializer, kAwait);
    } else {
      std::tie(ec, std::ignore) = co_await http::async_write(stream_, res, kAwait);
    }
    co_return !ec && keep;
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  ServerState& state_;
  Clock::time_point start_ = Clock::now();
  bool generation_open_ = false;  // a submitted generation not yet counted as ended
  unsigned version_ = 11;
  http::verb method_ = http::verb::get;  // of the request being answered
  std::string_view allow_;               // its resource's methods, for Allow
  Metrics::Endpoint endpoint_ = Metrics::kOther;
};

}  // namespace

net::awaitable<void> RunSession(tcp::socket socket, ServerState& state) {
  Session session(std::move(socket), state);
  co_await session.Run();
}

}  // namespace crux::server
