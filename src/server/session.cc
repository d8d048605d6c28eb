// HTTP session: request parsing, browser protection, routing, authentication, limits, and the
// JSON / SSE responses. Each session runs on its own strand; engine updates reach it through
// UpdateQueue, which wakes the session's coroutine from the engine thread. Every write goes
// through Send, which cuts a client that stops taking bytes.
#include "server/session.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crux/pipeline/pipeline.h"
#include "crux/protocol/codec.h"
#include "server/mcp_endpoints.h"
#include "server/routes.h"
#include "server/update_queue.h"
#include "server/webui.h"

namespace crux::server {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;
using Request = http::request<http::string_body>;
using RequestHeader = http::request_header<>;
constexpr auto kAwait = net::as_tuple(net::use_awaitable);
constexpr size_t kHeaderLimit = 64 * 1024;
constexpr size_t kWideRead = 64 * 1024;  // the read size for a long request body
// After a client closes its side: the gaps before each keep-alive that tells a client gone
// from one that only half-closed (see Stream).
constexpr std::array<std::chrono::milliseconds, 5> kClosedProbeGaps{
    std::chrono::milliseconds(0), std::chrono::milliseconds(100), std::chrono::milliseconds(200),
    std::chrono::milliseconds(400), std::chrono::milliseconds(800)};
// Seconds a stream's last events (after its generation ended) may take to be written.
constexpr double kLastEventsGraceSeconds = 2;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Clock::duration Seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string_view FieldValue(const RequestHeader& header, http::field field) {
  auto it = header.find(field);
  return it == header.end() ? std::string_view() : std::string_view(it->value());
}

// The serialized start line and fields of a response, up to and including the blank line.
std::string Head(const http::response_header<>& header) {
  std::ostringstream os;
  os << header;
  return std::move(os).str();
}

// Beast's syntax errors (answered 400), as opposed to a connection that ended or timed out.
bool IsSyntaxError(const beast::error_code& ec) {
  if (ec.category() != make_error_code(http::error::bad_method).category()) return false;
  return ec != http::error::end_of_stream && ec != http::error::partial_message &&
         ec != http::error::short_read && ec != http::error::need_more &&
         ec != http::error::stale_parser;
}

// Watches the socket while a response is being generated: a client sends nothing after its
// request, so a completed read means it closed its side (end of file: a half-close, which
// still gets its response), pipelined a next request, or went away (an error).
struct Watch {
  bool done = false;
  bool gone = false;
  bool half_closed = false;
  std::string data;  // bytes of a pipelined request, for the next read
};

// The generation of the current round: the MCP tool loop replaces it between rounds, and
// cancelling cancels whichever runs.
class RoundGeneration final : public engine::Generation {
 public:
  explicit RoundGeneration(std::unique_ptr<engine::Generation> generation)
      : generation_(std::move(generation)) {}
  void Cancel() override {
    if (generation_) generation_->Cancel();
  }
  void Replace(std::unique_ptr<engine::Generation> generation) {
    generation_ = std::move(generation);
  }

 private:
  std::unique_ptr<engine::Generation> generation_;
};

class Session {
 public:
  Session(tcp::socket socket, ServerState& state, std::shared_ptr<Connection> connection,
          SessionMode mode)
      : stream_(std::move(socket)), state_(state), conn_(std::move(connection)), mode_(mode) {}

  net::awaitable<void> Run() {
    if (conn_) {
      state_.metrics.ConnectionOpened();
      conn_->SetHandler([this](ConnectionSignal signal) { OnSignal(signal); });
    }
    while (!state_.draining.load()) {
      if (!co_await Serve()) break;
    }
    co_await Close();
    if (conn_) {
      conn_->SetHandler(nullptr);
      state_.connections.Remove(conn_.get());
      state_.metrics.ConnectionClosed();
    }
    if (was_cut_) ReturnFreedMemorySoon(stream_.get_executor(), state_);
  }

  // The output a cut client left behind is freed, but glibc keeps freed heap for reuse; half
  // a second after the last cut (once the sessions have ended) it goes back to the system, so
  // a burst of stalled clients does not leave the process large.
  static void ReturnFreedMemorySoon(net::any_io_executor executor, ServerState& state) {
    if (state.trim_pending.exchange(true)) return;
    net::co_spawn(
        executor,
        [&state, executor]() -> net::awaitable<void> {
          net::steady_timer timer(executor, std::chrono::milliseconds(500));
          co_await timer.async_wait(kAwait);
          state.trim_pending.store(false);
          malloc_trim(0);
        },
        net::detached);
  }

 private:
  // On the strand: a signal from the server (see ConnectionSignal).
  void OnSignal(ConnectionSignal signal) {
    if (signal == ConnectionSignal::kAbort) aborting_ = true;
    if (idle_) {
      CloseSocket();
    } else if (signal == ConnectionSignal::kAbort && active_queue_) {
      active_queue_->timer().cancel();
    }
  }

  void CloseSocket() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  void SetIdle(bool idle) {
    idle_ = idle;
    if (conn_) conn_->SetIdle(idle);
  }

  // Ends the connection. After an answer that left request bytes unread, reads and discards
  // them for a moment first, so that closing does not reset the connection before the client
  // has read the answer.
  net::awaitable<void> Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (!linger_ || !stream_.socket().is_open()) co_return;
    stream_.expires_after(std::chrono::seconds(2));
    char discard[4096];
    for (size_t total = 0; total < (1u << 20);) {
      auto [rec, n] = co_await stream_.async_read_some(net::buffer(discard), kAwait);
      if (rec) break;
      total += n;
    }
  }

  // Reads and answers one request; false when the connection should close.
  net::awaitable<bool> Serve() {
    http::request_parser<http::string_body> parser;
    parser.body_limit(state_.config.max_body_bytes);
    parser.header_limit(kHeaderLimit);
    SetIdle(true);
    // A connection refused at the cap gets a few seconds to say what it wanted.
    stream_.expires_after(mode_ == SessionMode::kRefuse
                              ? std::min(Seconds(5), Seconds(state_.config.idle_timeout_s))
                              : Seconds(state_.config.idle_timeout_s));
    auto [ec, n] = co_await http::async_read_header(stream_, buffer_, parser, kAwait);
    SetIdle(false);
    start_ = Clock::now();
    const RequestHeader& header = parser.get().base();
    version_ = header.version() == 10 ? 10 : 11;
    method_ = header.method();
    allow_ = {};
    endpoint_ = Metrics::kOther;
    cors_origin_.clear();
    keep_alive_ = false;
    if (ec) co_return co_await AnswerReadError(ec, header);
    keep_alive_ = parser.get().keep_alive();
    const std::string_view target = Path(header);
    const protocol::Api api = ApiForTarget(target);
    const Route route = RouteFor(target);
    // Refusals count against the endpoint asked for.
    if (route.resource == Resource::kApi) endpoint_ = EndpointFor(route.api);
    if (mode_ == SessionMode::kRefuse) {
      linger_ = !parser.is_done();
      co_return co_await WriteError(api, 503,
                                    "too many open connections (limit " +
                                        std::to_string(state_.max_connections) + "); retry shortly",
                                    false);
    }
    if (auto refusal = Refuse(header, route)) {
      linger_ = !parser.is_done();
      co_return co_await WriteError(api, refusal->first, refusal->second, false);
    }
    if (!parser.is_done()) {
      if (version_ >= 11 &&
          beast::iequals(FieldValue(header, http::field::expect), "100-continue")) {
        if (!co_await Send("HTTP/1.1 100 Continue\r\n\r\n")) co_return false;
      }
      stream_.expires_after(Seconds(state_.config.request_timeout_s));
      // Beast reads as much as the buffer holds (at least 512 bytes): a long body read into a
      // small buffer costs a read, a poll and a timer update per 512 bytes. Room for 64 KB
      // reads it in as few reads as the client's sends allow; the room is given back after.
      const auto length = parser.content_length_remaining();
      const bool widen = length && *length > kWideRead && buffer_.capacity() < kWideRead;
      if (widen) buffer_.reserve(kWideRead);
      std::tie(ec, n) = co_await http::async_read(stream_, buffer_, parser, kAwait);
      if (widen) buffer_.shrink_to_fit();
      if (ec) co_return co_await AnswerReadError(ec, header);
    }
    stream_.expires_never();
    Request req = parser.release();
    const bool keep = co_await Handle(req, route);
    co_return keep&& keep_alive_ && !state_.draining.load();
  }

  static std::string_view Path(const RequestHeader& header) {
    std::string_view target(header.target());
    return target.substr(0, target.find('?'));
  }

  // A request that could not be read: 413 for a body over the limit, 431 for a header over
  // its limit, 400 for malformed HTTP; a connection that ended or timed out gets nothing.
  net::awaitable<bool> AnswerReadError(const beast::error_code& ec, const RequestHeader& header) {
    const protocol::Api api = ApiForTarget(Path(header));
    linger_ = true;
    if (ec == http::error::body_limit) {
      co_return co_await WriteError(api, 413,
                                    "request body is larger than the limit of " +
                                        std::to_string(state_.config.max_body_bytes) + " bytes",
                                    false);
    }
    if (ec == http::error::header_limit) {
      co_return co_await WriteError(
          api, 431, "request header is larger than " + std::to_string(kHeaderLimit) + " bytes",
          false);
    }
    if (IsSyntaxError(ec)) {
      co_return co_await WriteError(api, 400, "malformed HTTP request: " + ec.message(), false);
    }
    linger_ = false;
    co_return false;
  }

  // Checks on the header alone, before any body is read: a shutdown in progress, browser
  // protection (Host, Origin, the JSON media type) and transfer or content codings crux does
  // not decode. Returns the status and message of the refusal.
  std::optional<std::pair<int, std::string>> Refuse(const RequestHeader& header,
                                                    const Route& route) {
    using Refusal = std::pair<int, std::string>;
    if (state_.draining.load()) return Refusal{503, "the server is shutting down"};
    const size_t hosts = header.count(http::field::host);
    if (hosts > 1) return Refusal{400, "more than one Host header"};
    if (hosts == 0 && version_ >= 11) return Refusal{400, "missing Host header (HTTP/1.1)"};
    if (hosts == 1) {
      if (auto why = state_.hosts.CheckHost(FieldValue(header, http::field::host))) {
        return Refusal{403, *why};
      }
    }
    if (auto it = header.find(http::field::origin); it != header.end()) {
      const std::string_view origin(it->value());
      if (auto why = state_.hosts.CheckOrigin(origin)) return Refusal{403, *why};
      if (state_.hosts.CorsAllowed(origin)) cors_origin_ = std::string(origin);
    }
    if (auto it = header.find(http::field::transfer_encoding); it != header.end()) {
      if (!beast::iequals(beast::string_view(it->value()), "chunked")) {
        return Refusal{501, "Transfer-Encoding '" + std::string(it->value()) +
                                "' is not supported (only chunked)"};
      }
    }
    if (auto it = header.find(http::field::content_encoding); it != header.end()) {
      if (!beast::iequals(beast::string_view(it->value()), "identity")) {
        return Refusal{415, "Content-Encoding '" + std::string(it->value()) +
                                "' is not supported; send the body uncompressed"};
      }
    }
    if (header.method() == http::verb::post &&
        (route.resource == Resource::kApi || route.resource == Resource::kMcpExecute)) {
      auto it = header.find(http::field::content_type);
      const auto type =
          it == header.end() ? std::nullopt : std::optional<std::string_view>(it->value());
      if (auto why = CheckJsonContentType(type)) return Refusal{415, *why};
    }
    return std::nullopt;
  }

  net::awaitable<bool> Handle(const Request& req, const Route& route) {
    const std::string_view target = Path(req.base());
    if (route.resource == Resource::kNone ||
        (route.resource == Resource::kWebAsset && PageAsset(route) == nullptr)) {
      co_return co_await WriteError(ApiForTarget(target), 404,
                                    "no route for " + std::string(target));
    }
    allow_ = AllowFor(route.resource);
    if (method_ == http::verb::options) {
      preflight_headers_.clear();
      if (auto it = req.find(http::field::access_control_request_headers); it != req.end()) {
        preflight_headers_ = std::string(it->value());
      }
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
      case Resource::kWebAsset:
        co_return co_await HandlePage(req, route);
      case Resource::kHealth:
        co_return co_await WriteJson(http::status::ok, HealthBody(), true);
      case Resource::kMetrics:
        co_return co_await WriteText(http::status::ok, MetricsText(),
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
      case Resource::kTokenize:
      case Resource::kDetokenize:
        if (!Authorized(req)) co_return co_await WriteAuthError(route.api, req);
        co_return co_await HandleTokens(req, route.resource == Resource::kTokenize);
      case Resource::kMcpTools:
      case Resource::kMcpServers:
        co_return co_await HandleMcpListing(req, route.resource);
      case Resource::kMcpExecute:
        co_return co_await HandleMcpExecute(req);
      case Resource::kNone:
        break;
    }
    co_return false;
  }

  // The chat page's file a route asks for: "/" for the root, the path under /ui/; nullptr
  // when the page is off (--no-webui), not built in, or has no such file.
  const WebAsset* PageAsset(const Route& route) const {
    if (!state_.config.webui) return nullptr;
    if (route.resource == Resource::kRoot) return FindWebAsset("/");
    if (route.resource == Resource::kWebAsset) return FindWebAsset(route.id);
    return nullptr;
  }

  // GET / and /ui/…: a file of the chat page (Handle has answered 404 for a missing one
  // under /ui/); without the page, / answers one line of text naming the endpoints.
  net::awaitable<bool> HandlePage(const Request& req, const Route& route) {
    if (const WebAsset* asset = PageAsset(route)) co_return co_await WriteAsset(req, *asset);
    co_return co_await WriteText(
        http::status::ok,
        "crux serve: OpenAI Chat Completions at /v1/chat/completions, Anthropic Messages at "
        "/v1/messages, OpenAI Responses at /v1/responses, OpenAI Completions at "
        "/v1/completions\n",
        "text/plain; charset=utf-8");
  }

  // Writes a file of the page from its static bytes (no copy): gzip when the request admits
  // it, a 304 with no body when If-None-Match holds its ETag, the headers alone for HEAD.
  // Vary and the page's security headers go on every answer, 304 included.
  net::awaitable<bool> WriteAsset(const Request& req, const WebAsset& asset) {
    const bool gzip = AcceptsGzip(FieldValue(req, http::field::accept_encoding));
    const std::string_view body = gzip ? asset.gzip : asset.identity;
    // Each encoding has its own validator (RFC 9110 8.8.3): the gzip bytes' tag ends in -gz.
    std::string etag(asset.etag);
    if (gzip) etag.insert(etag.size() - 1, "-gz");
    const bool not_modified = EtagMatches(FieldValue(req, http::field::if_none_match), etag);
    const int status = not_modified ? 304 : 200;
    http::response<http::empty_body> res{static_cast<http::status>(status), version_};
    if (!not_modified) {
      res.set(http::field::content_type, asset.content_type);
      if (gzip) res.set(http::field::content_encoding, "gzip");
      res.content_length(body.size());
    }
    res.set(http::field::etag, etag);
    for (const WebHeaderField& field : kWebPageHeaders)
      res.set(field.name, field.value);
    Decorate(res, status);
    // Decorate's `Vary: Origin` (a CORS origin) is kept beside ours.
    const auto vary = res.find(http::field::vary);
    res.set(http::field::vary, vary == res.end()
                                   ? std::string("Accept-Encoding")
                                   : std::string(vary->value()) + ", Accept-Encoding");
    if (!keep_alive_ && version_ < 11) res.set(http::field::connection, "close");
    CountResponse(status);
    bool ok = co_await Send(Head(res.base()));
    if (ok && method_ != http::verb::head && !not_modified) ok = co_await Send(body);
    if (!ok) ReportWriteFailure();
    co_return ok&& keep_alive_;
  }

  static Metrics::Endpoint EndpointFor(protocol::Api api) {
    switch (api) {
      case protocol::Api::kChatCompletions:
        return Metrics::kChat;
      case protocol::Api::kAnthropicMessages:
        return Metrics::kMessages;
      case protocol::Api::kResponses:
        return Metrics::kResponses;
      case protocol::Api::kCompletions:
        return Metrics::kCompletions;
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
      // The scheme is case-insensitive (RFC 9110 11.1), the separator any run of spaces.
      std::string_view v(it->value().data(), it->value().size());
      if (v.size() > 7 && beast::iequals(v.substr(0, 6), "bearer") &&
          (v[6] == ' ' || v[6] == '\t')) {
        std::string_view token = v.substr(7);
        while (!token.empty() && (token.front() == ' ' || token.front() == '\t'))
          token.remove_prefix(1);
        if (ConstantTimeEquals(token, key)) return true;
      }
    }
    if (auto it = req.find("x-api-key"); it != req.end()) {
      if (ConstantTimeEquals(std::string_view(it->value().data(), it->value().size()), key)) {
        return true;
      }
    }
    return false;
  }

  std::string MetricsText() const {
    std::string out = state_.metrics.Render();
    state_.engine->AppendMetrics(out);
    return out;
  }

  // GET /v1/mcp/tools and /v1/mcp/servers.
  net::awaitable<bool> HandleMcpListing(const Request& req, Resource resource) {
    if (!Authorized(req)) co_return co_await WriteAuthError(protocol::Api::kChatCompletions, req);
    std::string body = resource == Resource::kMcpTools ? McpToolsBody(state_.config.mcp.get())
                                                       : McpServersBody(state_.config.mcp.get());
    co_return co_await WriteJson(http::status::ok, std::move(body), true);
  }

  std::string HealthBody() const {
    if (!state_.config.mcp) return R"({"status":"ok"})";
    return R"({"status":"ok","mcp":)" + McpHealthJson(state_.config.mcp.get()) + "}";
  }

  // POST /v1/mcp/execute: one call through the executor (policy, limits, timeout, output
  // cap, audit), on the tool pool so a slow tool never holds an I/O thread.
  net::awaitable<bool> HandleMcpExecute(const Request& req) {
    const protocol::Api api = protocol::Api::kChatCompletions;
    if (!Authorized(req)) co_return co_await WriteAuthError(api, req);
    if (!state_.config.mcp) {
      co_return co_await WriteError(api, 503, "MCP not configured. Start server with --mcp-config");
    }
    if (state_.config.api_key.empty() && !state_.config.mcp_allow_unauthenticated) {
      co_return co_await WriteError(
          api, 403,
          "/v1/mcp/execute runs tools on this machine, so it needs an API key: start crux serve "
          "with --api-key (or --mcp-allow-unauthenticated to allow it without one)");
    }
    Expected<McpCall> call = DecodeMcpCall(req.body());
    if (!call.ok()) co_return co_await WriteError(api, call.error());
    std::shared_ptr<mcp::Manager> manager = state_.config.mcp;
    McpCall request = std::move(*call);
    mcp::ExecResult result = co_await net::co_spawn(
        state_.tool_pool->get_executor(), ExecuteOneOnPool(manager, request), net::use_awaitable);
    state_.metrics.McpCall(result.is_error, result.duration_ms / 1000);
    co_return co_await WriteJson(http::status::ok, McpExecuteBody(request, result), true);
  }

  // llama-server's /tokenize ({"content", "add_special", "parse_special", "with_pieces"} →
  // {"tokens"}) and /detokenize ({"tokens"} → {"content"}), on the default model.
  net::awaitable<bool> HandleTokens(const Request& req, bool tokenize) {
    auto body = TokensBody(*state_.engine, req.body(), tokenize);
    if (!body.ok()) co_return co_await WriteError(protocol::Api::kChatCompletions, body.error());
    co_return co_await WriteJson(http::status::ok, std::move(*body), true);
  }

  static Expected<std::string> TokensBody(const engine::Engine& engine, std::string_view text,
                                          bool tokenize) {
    const auto invalid = [](const char* what) { return Error(ErrorCode::kInvalidArgument, what); };
    Json body = Json::parse(text, nullptr, false);
    if (body.is_discarded() || !body.is_object()) return invalid("the body must be a JSON object");
    const std::string model = engine.Models().front().id;
    // A piece may be part of a character: invalid UTF-8 is written as U+FFFD.
    const auto dump = [](const Json& j) {
      return j.dump(-1, ' ', false, Json::error_handler_t::replace);
    };
    if (!tokenize) {
      if (!body.contains("tokens") || !body["tokens"].is_array()) {
        return invalid("tokens must be an array of token ids");
      }
      std::vector<int32_t> ids;
      for (const Json& t : body["tokens"]) {
        if (!t.is_number_integer()) return invalid("tokens must be an array of token ids");
        ids.push_back(static_cast<int32_t>(std::clamp<int64_t>(t.get<int64_t>(), -1, INT32_MAX)));
      }
      auto content = engine.Detokenize(model, ids);
      if (!content.ok()) return content.error();
      return dump(Json{{"content", *content}});
    }
    if (!body.contains("content") || !body["content"].is_string()) {
      return invalid("content must be a string");
    }
    const auto flag = [&body](const char* key, bool fallback) {
      return body.contains(key) && body[key].is_boolean() ? body[key].get<bool>() : fallback;
    };
    auto tokens = engine.Tokenize(model, body["content"].get<std::string>(),
                                  flag("add_special", false), flag("parse_special", true));
    if (!tokens.ok()) return tokens.error();
    const bool pieces = flag("with_pieces", false);
    Json list = Json::array();
    for (const engine::TokenPiece& t : *tokens) {
      if (pieces) {
        list.push_back(Json{{"id", t.id}, {"piece", t.piece}});
      } else {
        list.push_back(t.id);
      }
    }
    return dump(Json{{"tokens", list}});
  }

  std::string ModelsBody() const {
    Json data = Json::array();
    for (const engine::ModelInfo& m : state_.models)
      data.push_back(ModelJson(m));
    return Json{{"object", "list"}, {"data", data}, {"has_more", false}}.dump();
  }

  // A model in both the OpenAI and the Anthropic shape (their SDKs each read their fields).
  static Json ModelJson(const engine::ModelInfo& m) {
    Json j = {{"id", m.id},           {"object", "model"},
              {"created", m.created}, {"owned_by", m.owned_by},
              {"type", "model"},      {"display_name", m.id}};
    if (m.context_length > 0) {
      j["max_model_len"] = m.context_length;  // vLLM's name for it
      j["meta"] = {
          {"n_ctx", m.context_length}, {"n_vocab", m.vocabulary_size}, {"n_params", m.parameters}};
    }
    return j;
  }

  // The engine's id for the model a request names; nullopt when not served.
  std::optional<std::string> ResolveModel(const std::string& requested) const {
    const auto models = state_.engine->Models();
    for (size_t i = 0; i < state_.models.size() && i < models.size(); ++i) {
      if (state_.models[i].id == requested) return models[i].id;
    }
    return std::nullopt;
  }

  net::awaitable<bool> HandleApi(const Request& req, protocol::Api api) {
    if (!Authorized(req)) co_return co_await WriteAuthError(api, req);
    const auto received = std::chrono::steady_clock::now();
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
    if (request.mcp_tools) {
      if (std::optional<std::pair<int, Error>> refused = McpLoopRefusal(req, request)) {
        co_return co_await WriteError(api, refused->first, refused->second.message());
      }
    }
    const bool stream = request.stream;
    auto created = pipeline::RequestPipeline::Create(std::move(request), state_.config.pipeline,
                                                     meta, *state_.engine);
    if (!created.ok()) co_return co_await WriteError(api, created.error());
    auto& pipe = **created;
    constraint_ = pipe.constraint();
    struct ClearConstraint {
      std::string& header;
      ~ClearConstraint() { header.clear(); }
    } clear_constraint{constraint_};
    const int limit = state_.config.max_concurrent_requests;
    if (limit > 0 && state_.metrics.active_generations() >= limit) {
      co_return co_await WriteError(
          api, 429,
          "too many concurrent requests (limit " + std::to_string(limit) + "); retry shortly");
    }
    auto queue = std::make_shared<UpdateQueue>(co_await net::this_coro::executor,
                                               state_.config.max_buffered_bytes);
    auto submitted = state_.engine->Submit(pipe.generate_request(), queue);
    if (!submitted.ok()) co_return co_await WriteError(api, submitted.error());
    state_.metrics.Prepared(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - received).count());
    state_.metrics.GenerationStarted();
    RoundGeneration generation(std::move(*submitted));
    generation_open_ = true;
    active_queue_ = queue;
    bool keep = false;
    if (stream) {
      keep = co_await Stream(pipe, *queue, generation);
    } else {
      keep = co_await Complete(pipe, *queue, generation, api);
    }
    active_queue_.reset();
    EndGeneration(pipe);
    co_return keep;
  }

  // Whether a request that asks for the tool loop may have it; adds the MCP tools when so.
  std::optional<std::pair<int, Error>> McpLoopRefusal(const Request& req,
                                                      protocol::ChatRequest& request) {
    const auto refuse = [](int status, std::string message) {
      return std::make_pair(status, Error(ErrorCode::kInvalidArgument, std::move(message)));
    };
    if (!state_.config.mcp) {
      return refuse(400, "mcp_tools: MCP is not configured (start crux serve with --mcp-config)");
    }
    if (!state_.config.mcp_tool_loop) {
      return refuse(400,
                    "mcp_tools: the server-side tool loop is off (start crux serve with "
                    "--mcp-tool-loop)");
    }
    if (state_.config.api_key.empty() && !state_.config.mcp_allow_unauthenticated) {
      return refuse(403,
                    "mcp_tools runs tools on this machine, so it needs an API key: start "
                    "crux serve with --api-key (or --mcp-allow-unauthenticated)");
    }
    (void)req;
    if (Status added = AddMcpTools(*state_.config.mcp, request); !added.ok()) {
      return std::make_pair(400, added.error());
    }
    return std::nullopt;
  }

  // Coroutines the tool pool runs. Their parameters are copies held in their own frames (a
  // capturing coroutine lambda would read its captures from a closure that is gone).
  static net::awaitable<std::vector<protocol::ExecutedToolCall>> ExecuteOnPool(
      std::shared_ptr<mcp::Manager> manager, std::vector<parse::ToolCall> calls) {
    co_return ExecuteMcpCalls(*manager, calls);
  }
  static net::awaitable<mcp::ExecResult> ExecuteOneOnPool(std::shared_ptr<mcp::Manager> manager,
                                                          McpCall call) {
    co_return manager->Execute(call.tool_name, call.arguments);
  }

  // The tool loop: runs the round's MCP calls on the tool pool, hands the results to the
  // pipeline and submits the next round into the same queue (or ends the response).
  net::awaitable<void> RunTools(pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                                RoundGeneration& generation, std::string& out) {
    std::shared_ptr<mcp::Manager> manager = state_.config.mcp;
    std::vector<protocol::ExecutedToolCall> results = co_await net::co_spawn(
        state_.tool_pool->get_executor(), ExecuteOnPool(manager, pipe.pending_tool_calls()),
        net::use_awaitable);
    for (const protocol::ExecutedToolCall& result : results) {
      state_.metrics.McpCall(result.is_error, result.duration_ms / 1000);
    }
    Status next = pipe.ContinueWithResults(std::move(results), out);
    if (next.ok() && !pipe.finished()) {
      auto submitted = state_.engine->Submit(pipe.generate_request(), queue.shared_from_this());
      if (submitted.ok()) {
        generation.Replace(std::move(*submitted));
      } else {
        next = submitted.error();
      }
    }
    if (!next.ok()) pipe.Fail(next.error(), out);
  }

  Clock::time_point Deadline() const { return start_ + Seconds(state_.config.request_timeout_s); }

  Error TimeoutError() const {
    return Error(ErrorCode::kTimeout, "the request exceeded its deadline of " +
                                          std::to_string(state_.config.request_timeout_s) + " s");
  }

  static Error ShutdownError() {
    return Error(ErrorCode::kUnavailable,
                 "the server is shutting down; the request was ended before it finished");
  }

  // Starts watching the socket for the client going away.
  std::shared_ptr<Watch> StartWatch(UpdateQueue& queue) {
    auto watch = std::make_shared<Watch>();
    net::co_spawn(
        stream_.get_executor(),
        [this, watch, q = queue.shared_from_this()]() -> net::awaitable<void> {
          char buf[1024];
          auto [ec, n] = co_await stream_.socket().async_read_some(net::buffer(buf), kAwait);
          if (n > 0) watch->data.append(buf, n);
          if (ec == net::error::eof) {
            watch->half_closed = true;
          } else if (ec && ec != net::error::operation_aborted) {
            watch->gone = true;
          }
          watch->done = true;
          q->Wake();
        },
        net::detached);
    return watch;
  }

  // Ends the watch and keeps any pipelined bytes for the next request. A client that closed
  // its side sends no next request: the connection closes after this response.
  net::awaitable<void> StopWatch(Watch& watch, UpdateQueue& queue) {
    beast::error_code ec;
    stream_.socket().cancel(ec);
    while (!watch.done) {
      queue.timer().expires_after(std::chrono::seconds(5));
      co_await queue.timer().async_wait(kAwait);
    }
    if (watch.half_closed) keep_alive_ = false;
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

  // How a stream ended, when not by finishing normally.
  struct StreamEnd {
    bool cut = false;        // the client stopped reading (write timeout or buffer limit)
    bool timed_out = false;  // the request deadline passed
    bool shutdown = false;   // the server's drain timed out
  };

  // A stream's clock: the request deadline, the limit of the writes still to come (the
  // deadline, or a short grace after it for the last events), the keep-alive interval and
  // when bytes were last written.
  struct StreamTimes {
    Clock::time_point deadline;
    Clock::time_point write_limit;
    Clock::time_point last_write;
    Clock::duration keepalive;
  };

  // The head of an SSE response. HTTP/1.0 has no chunked coding: the stream is the body,
  // ended by closing.
  http::response<http::empty_body> StreamHead() {
    http::response<http::empty_body> res{http::status::ok, version_};
    res.set(http::field::content_type, "text/event-stream; charset=utf-8");
    res.set(http::field::cache_control, "no-cache");
    res.set("x-accel-buffering", "no");
    chunked_ = version_ >= 11;
    res.chunked(chunked_);
    if (!chunked_) keep_alive_ = false;
    Decorate(res, 200);
    if (!chunked_) res.set(http::field::connection, "close");
    return res;
  }

  net::awaitable<bool> Stream(pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                              RoundGeneration& generation) {
    state_.metrics.StreamStarted();
    StreamTimes times;
    times.deadline = times.write_limit = Deadline();
    times.keepalive = Seconds(state_.config.keepalive_s);
    StreamEnd end;
    queue.SetOverflowHandler([this] {
      overflowed_ = true;
      CloseSocket();
    });
    bool ok = co_await Send(Head(StreamHead().base()), times.deadline);
    std::string out;
    pipe.Begin(out);
    auto watch = StartWatch(queue);
    times.last_write = Clock::now();
    bool first_output = false, last_events = false;
    size_t probes = 0;  // keep-alives sent since the client closed its side
    while (ok) {
      queue.Drain(batch_);
      for (const auto& update : batch_)
        pipe.OnUpdate(update, out);
      if (queue.overflowed()) break;
      if (pipe.awaiting_tools()) co_await RunTools(pipe, queue, generation, out);
      StopIfLate(pipe, generation, times.deadline, end, out);
      if (pipe.finished() && !last_events) {
        last_events = true;
        LastEvents(pipe, times);
      }
      if (!out.empty()) ok = co_await WriteEvents(pipe, queue, out, times, first_output);
      if (!ok || pipe.finished() || watch->gone) break;
      // A client whose side of the connection closed has most often gone altogether (an
      // aborted fetch), which only a write can tell: a closed socket answers the first write
      // with a reset, and the next write fails. So keep-alives follow at once and then 100,
      // 200, 400 and 800 ms apart, before the first token too (a long prompt's prefill); a
      // client that only half-closed reads them as keep-alives.
      const bool probing = watch->half_closed && probes < kClosedProbeGaps.size();
      const Clock::time_point next_keepalive =
          times.last_write +
          (probing ? Clock::duration(kClosedProbeGaps[probes]) : times.keepalive);
      if (Clock::now() >= next_keepalive) {
        if (probing) ++probes;
        pipe.KeepAlive(out);
        Frame(out, framed_);
        out.clear();
        ok = co_await Send(framed_, times.write_limit);
        times.last_write = Clock::now();
        continue;
      }
      co_await Wait(queue, std::min(times.deadline, next_keepalive));
    }
    co_return co_await EndStream(pipe, queue, generation, *watch, end, times, ok);
  }

  // Past the deadline, or the server's drain timed out: the generation is cancelled and the
  // stream ends with an error event.
  void StopIfLate(pipeline::RequestPipeline& pipe, engine::Generation& generation,
                  Clock::time_point deadline, StreamEnd& end, std::string& out) {
    if (pipe.finished() || (Clock::now() < deadline && !aborting_)) return;
    (Clock::now() >= deadline ? end.timed_out : end.shutdown) = true;
    generation.Cancel();
    pipe.Fail(end.timed_out ? TimeoutError() : ShutdownError(), out);
  }

  // Generation is over: its slot is free now, whatever the client does with the rest, and
  // the last events (a deadline's error event too) get a short grace to be taken.
  void LastEvents(const pipeline::RequestPipeline& pipe, StreamTimes& times) {
    EndGeneration(pipe);
    times.write_limit =
        std::max(times.deadline, Clock::now() + std::min(Seconds(kLastEventsGraceSeconds),
                                                         Seconds(state_.config.write_timeout_s)));
  }

  // Writes the events in `out` (then empties it); the queue holds back the engine while the
  // bytes wait for the client.
  net::awaitable<bool> WriteEvents(const pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                                   std::string& out, StreamTimes& times, bool& first_output) {
    if (!first_output && pipe.produced_output()) {
      first_output = true;
      state_.metrics.FirstByte(SecondsSince(start_));
    }
    Frame(out, framed_);
    out.clear();
    queue.Hold(framed_.size());
    const bool ok = co_await Send(framed_, times.write_limit);
    queue.Hold(0);
    for (std::string* buffer : {&out, &framed_}) {
      if (buffer->capacity() > (256u << 10)) std::string().swap(*buffer);  // a burst's
    }
    times.last_write = Clock::now();
    co_return ok;
  }

  // After the stream loop: cancels what did not finish, reports a cut client, stops the
  // watch, counts the request and ends the chunked body. True when the connection may
  // serve another request.
  net::awaitable<bool> EndStream(pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                                 engine::Generation& generation, Watch& watch, StreamEnd end,
                                 const StreamTimes& times, bool ok) {
    end.cut = overflowed_ || write_timed_out_;
    if (end.cut || watch.gone) ok = false;
    if (!pipe.finished() || !ok || end.timed_out || end.shutdown) {
      generation.Cancel();
      state_.metrics.Cancelled();
    }
    if (overflowed_) {
      ReportCut("its unread output passed twice --max-buffered-bytes");
    } else if (write_timed_out_) {
      ReportCut(Clock::now() >= times.deadline ? "its deadline passed during a write"
                                               : "it took no bytes for --write-timeout");
    }
    queue.SetOverflowHandler(nullptr);
    co_await StopWatch(watch, queue);
    // Bookkeeping before the last bytes: a client that has its whole response sees it in
    // /metrics.
    EndGeneration(pipe);
    state_.metrics.StreamEnded();
    Log(200, pipe);
    state_.metrics.RequestDone(endpoint_, 200, SecondsSince(start_));
    if (ok && chunked_) ok = co_await Send("0\r\n\r\n", times.write_limit);
    co_return (ok && chunked_);
  }

  void ReportCut(std::string_view why) {
    was_cut_ = true;
    state_.metrics.ClientCut();
    spdlog::warn("client cut: {} ({:.3f}s into the request)", why, SecondsSince(start_));
  }

  // SSE bytes as the body carries them, into `framed` (whose buffer is reused from write to
  // write): a chunk in HTTP/1.1, the bytes alone in HTTP/1.0. One contiguous write measured
  // faster than a three-buffer one (size line, bytes, CRLF) that avoids this copy.
  void Frame(std::string_view data, std::string& framed) const {
    framed.clear();
    if (chunked_) {
      char size[20];
      const int len = std::snprintf(size, sizeof size, "%zx\r\n", data.size());
      framed.append(size, static_cast<size_t>(len));
    }
    framed.append(data);
    if (chunked_) framed += "\r\n";
  }

  net::awaitable<bool> Complete(pipeline::RequestPipeline& pipe, UpdateQueue& queue,
                                RoundGeneration& generation, protocol::Api api) {
    const auto deadline = Deadline();
    auto watch = StartWatch(queue);
    std::string unused;
    while (!pipe.finished() && !watch->gone && !aborting_ && Clock::now() < deadline) {
      queue.Drain(batch_);
      for (const auto& update : batch_)
        pipe.OnUpdate(update, unused);
      if (pipe.awaiting_tools()) co_await RunTools(pipe, queue, generation, unused);
      if (pipe.finished()) break;
      co_await Wait(queue, deadline);
    }
    const bool gone = watch->gone;
    const bool unfinished = !pipe.finished() && !gone;
    const bool shutdown = unfinished && aborting_;
    if (!pipe.finished()) {
      generation.Cancel();
      state_.metrics.Cancelled();
    }
    co_await StopWatch(*watch, queue);
    EndGeneration(pipe);
    if (gone) co_return false;
    if (shutdown) co_return co_await WriteError(api, ShutdownError(), false);
    if (unfinished) co_return co_await WriteError(api, TimeoutError());
    if (const auto& failed = pipe.engine_error()) {  // the engine (or its upstream) failed
      const int status = failed->first == 0 ? 500 : failed->first;
      Log(status, pipe);
      co_return co_await WriteError(api, status, failed->second);
    }
    if (pipe.output_error()) {
      Log(422, pipe);
      co_return co_await WriteError(api, 422, *pipe.output_error());
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
    const parse::OutputParserStats parsed = pipe.parse_stats();
    state_.metrics.Parsed(parsed.lone_end_markers, parsed.promoted_tool_calls);
  }

  void Log(int status, const pipeline::RequestPipeline& pipe) const {
    const auto& c = pipe.completion();
    spdlog::info(
        "{} {} {} {:.3f}s prompt={} completion={} finish={}", protocol::ApiName(pipe.request().api),
        status, pipe.request().stream ? "stream" : "json", SecondsSince(start_),
        c.usage.prompt_tokens, c.usage.completion_tokens, parse::FinishReasonName(c.reason));
  }

  net::awaitable<bool> WriteError(protocol::Api api, const Error& error, bool keep = true) {
    const protocol::HttpError e = protocol::EncodeError(api, error);
    co_return co_await WriteBody(e.status, e.body, "application/json", keep);
  }

  net::awaitable<bool> WriteError(protocol::Api api, int status, std::string_view message,
                                  bool keep = true) {
    const protocol::HttpError e = protocol::EncodeError(api, status, message);
    co_return co_await WriteBody(e.status, e.body, "application/json", keep);
  }

  net::awaitable<bool> WriteJson(http::status status, std::string body, bool keep) {
    co_return co_await WriteBody(static_cast<int>(status), std::move(body), "application/json",
                                 keep);
  }

  net::awaitable<bool> WriteText(http::status status, std::string body, const char* type) {
    co_return co_await WriteBody(static_cast<int>(status), std::move(body), type);
  }

  // The fields every response carries beside its own: retry hints on errors, Allow, CORS for
  // a configured origin, and whether the connection stays open.
  template <class Body>
  void Decorate(http::response<Body>& res, int status) {
    if (status >= 400) res.set("x-should-retry", status == 429 || status == 503 ? "true" : "false");
    if (status == 429 || status == 503) res.set(http::field::retry_after, "1");
    if ((status == 405 || method_ == http::verb::options) && !allow_.empty()) {
      res.set(http::field::allow, allow_);
    }
    if (!cors_origin_.empty()) {
      res.set(http::field::access_control_allow_origin, cors_origin_);
      res.set(http::field::vary, "Origin");
      if (method_ == http::verb::options) {
        res.set(http::field::access_control_allow_methods, allow_);
        res.set(http::field::access_control_allow_headers,
                preflight_headers_.empty()
                    ? "authorization, content-type, x-api-key, anthropic-version, anthropic-beta"
                    : preflight_headers_);
        res.set(http::field::access_control_max_age, "600");
      } else {
        res.set(http::field::access_control_expose_headers,
                "retry-after, x-should-retry, x-crux-constraint");
      }
    }
    if (!constraint_.empty()) res.set("x-crux-constraint", constraint_);
    keep_alive_ = keep_alive_ && !state_.draining.load();
    res.keep_alive(keep_alive_);
  }

  // Writes a whole response. As RFC 9110 requires, a HEAD response has the headers a GET
  // would have (Content-Length included) and no body, a 204 has neither body nor
  // Content-Length, and a 405 (or OPTIONS) says what is allowed.
  net::awaitable<bool> WriteBody(int status, std::string body, const char* type, bool keep = true) {
    const bool no_content = status == 204 || status == 304;
    http::response<http::string_body> res{static_cast<http::status>(status), version_};
    if (!no_content) res.set(http::field::content_type, type);
    if (!keep) keep_alive_ = false;
    Decorate(res, status);
    if (!keep_alive_ && version_ < 11) res.set(http::field::connection, "close");
    if (!no_content) {
      res.body() = std::move(body);
      res.prepare_payload();
    }
    CountResponse(status);
    if (status >= 400) spdlog::info("{} {}", status, res.body().substr(0, 300));
    bool ok = co_await Send(Head(res.base()));
    if (ok && method_ != http::verb::head && !no_content) ok = co_await Send(res.body());
    if (!ok) ReportWriteFailure();
    co_return ok&& keep_alive_;
  }

  // Counts a whole response in /metrics: every answer of the API endpoints, and errors of the
  // others. Called before the write: a client that has its response sees it in /metrics.
  void CountResponse(int status) {
    if (endpoint_ != Metrics::kOther || status >= 400) {
      state_.metrics.RequestDone(endpoint_, status, SecondsSince(start_));
    }
  }

  void ReportWriteFailure() {
    if (write_timed_out_) ReportCut("it took no bytes of its response for --write-timeout");
  }

  // Writes `bytes`, failing when the client takes none of them for --write-timeout or at
  // `limit` (a request deadline), whichever comes first. The socket is closed on a timeout.
  net::awaitable<bool> Send(std::string_view bytes,
                            Clock::time_point limit = Clock::time_point::max()) {
    const auto stall = Seconds(state_.config.write_timeout_s);
    write_timed_out_ = false;
    while (!bytes.empty()) {
      const auto now = Clock::now();
      stream_.expires_at(limit - now > stall ? now + stall : limit);
      auto [ec, n] = co_await stream_.async_write_some(net::buffer(bytes), kAwait);
      if (ec) {
        write_timed_out_ = ec == beast::error::timeout;
        co_return false;
      }
      bytes.remove_prefix(n);
    }
    stream_.expires_never();
    co_return true;
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  ServerState& state_;
  std::shared_ptr<Connection> conn_;  // nullptr for a refusing session
  const SessionMode mode_;
  Clock::time_point start_ = Clock::now();
  bool generation_open_ = false;  // a submitted generation not yet counted as ended
  unsigned version_ = 11;
  http::verb method_ = http::verb::get;  // of the request being answered
  std::string_view allow_;               // its resource's methods, for Allow
  Metrics::Endpoint endpoint_ = Metrics::kOther;
  bool keep_alive_ = false;        // the connection may serve another request
  bool chunked_ = true;            // the stream in progress uses the chunked coding
  std::string constraint_;         // the request's pipeline's constraint() (x-crux-constraint)
  std::string cors_origin_;        // the request's Origin, when it gets CORS headers
  std::string preflight_headers_;  // Access-Control-Request-Headers of a preflight
  std::shared_ptr<UpdateQueue> active_queue_;    // of the generation in progress
  std::vector<engine::GenerationUpdate> batch_;  // drained updates (its buffer is reused)
  std::string framed_;                           // the stream bytes being written
  bool idle_ = true;                             // no request in progress
  bool aborting_ = false;  // the drain timed out: end the response in progress now
  bool overflowed_ = false;
  bool write_timed_out_ = false;
  bool linger_ = false;  // request bytes may be left unread when the connection closes
  bool was_cut_ = false;
};

}  // namespace

net::awaitable<void> RunSession(tcp::socket socket, ServerState& state,
                                std::shared_ptr<Connection> connection, SessionMode mode) {
  Session session(std::move(socket), state, std::move(connection), mode);
  co_await session.Run();
}

}  // namespace crux::server
