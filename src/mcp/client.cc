#include "crux/mcp/client.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace crux::mcp {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxToolPages = 1000;              // a server that pages forever is refused
constexpr size_t kMaxLoggedLine = 200;           // bytes of a dropped line quoted in the log
constexpr size_t kMaxErrorDataBytes = 1000;      // bytes of error.data quoted in an Error
constexpr int64_t kUnsupportedVersion = -32022;  // 2026-07-28 UnsupportedProtocolVersionError
constexpr std::string_view kServerInfoMeta = "io.modelcontextprotocol/serverInfo";

// "1 s", "0.5 s", "90 s".
std::string Seconds(std::chrono::milliseconds duration) {
  const auto ms = duration.count();
  if (ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  std::string text = std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
  while (text.back() == '0')
    text.pop_back();
  return text + " s";
}

std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// The string member `key` of `object`, or "" when absent or not a string.
std::string_view StringMember(const Json& object, std::string_view key) {
  if (!object.is_object()) return {};
  const auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return {};
  return it->get_ref<const std::string&>();
}

ErrorCode CodeForServerError(int64_t code) {
  switch (code) {
    case kMethodNotFound:
      return ErrorCode::kNotFound;
    case kInvalidParams:
    case kInvalidRequest:
    case kParseError:
      return ErrorCode::kInvalidArgument;
    case -32001:  // the SDKs' RequestTimeout
      return ErrorCode::kTimeout;
    default:
      return ErrorCode::kUnavailable;
  }
}

Error ServerError(const ErrorResponse& response) {
  std::string message = "MCP error " + std::to_string(response.code) + ": ";
  // The TypeScript SDK's McpError already starts its message so: keep one prefix.
  message += std::string_view(response.message).starts_with(message)
                 ? std::string_view(response.message).substr(message.size())
                 : std::string_view(response.message);
  if (response.data.has_value()) {
    std::string data = Dump(*response.data);
    if (data.size() > kMaxErrorDataBytes) data.resize(kMaxErrorDataBytes);
    message += " (data: " + data + ")";
  }
  return Error(CodeForServerError(response.code), std::move(message))
      .WithTag(std::string(kServerErrorTag));
}

Expected<ToolInfo> ParseTool(Json& tool) {
  const std::string_view name = StringMember(tool, "name");
  if (name.empty()) return Error(ErrorCode::kInvalidArgument, "a tool without a name");
  ToolInfo info;
  info.name = name;
  info.title = StringMember(tool, "title");
  info.description = StringMember(tool, "description");
  if (auto it = tool.find("inputSchema"); it != tool.end() && it->is_object()) {
    info.input_schema = std::move(*it);
  }
  if (auto it = tool.find("outputSchema"); it != tool.end() && it->is_object()) {
    info.output_schema = std::move(*it);
  }
  if (auto it = tool.find("annotations"); it != tool.end() && it->is_object()) {
    if (info.title.empty()) info.title = StringMember(*it, "title");
    info.annotations = std::move(*it);
  }
  return info;
}

Expected<ToolResult> ParseToolResult(Json& result) {
  if (!result.is_object()) {
    return Error(ErrorCode::kInvalidArgument, "the tools/call result is not an object");
  }
  ToolResult out;
  if (auto it = result.find("content"); it != result.end() && !it->is_null()) {
    if (!it->is_array()) {
      return Error(ErrorCode::kInvalidArgument, "the tools/call result's content is not an array");
    }
    out.content.reserve(it->size());
    for (Json& block : *it)
      out.content.push_back(std::move(block));
  }
  if (auto it = result.find("structuredContent"); it != result.end() && !it->is_null()) {
    out.structured_content = std::move(*it);
  }
  if (auto it = result.find("isError"); it != result.end() && it->is_boolean()) {
    out.is_error = it->get<bool>();
  }
  return out;
}

// What the client needs of a transport; one adapter per transport.
class Link {
 public:
  virtual ~Link() = default;
  // `headers` matter only over HTTP (the modern era's Mcp-Param-*).
  virtual Status Send(std::string_view message, HttpTransport::Headers headers) = 0;
  virtual void Close() = 0;
  virtual pid_t pid() const = 0;
  virtual std::string StderrTail() const = 0;  // "" where there is no stderr
  virtual void SetEra(ProtocolEra, std::string_view) {}
};

class StdioLink final : public Link {
 public:
  explicit StdioLink(std::unique_ptr<StdioTransport> transport)
      : transport_(std::move(transport)) {}
  Status Send(std::string_view message, HttpTransport::Headers) override {
    return transport_->Send(message);
  }
  void Close() override { transport_->Close(); }
  pid_t pid() const override { return transport_->pid(); }
  std::string StderrTail() const override { return transport_->StderrTail(); }

 private:
  std::unique_ptr<StdioTransport> transport_;
};

class HttpLink final : public Link {
 public:
  explicit HttpLink(std::unique_ptr<HttpTransport> transport) : transport_(std::move(transport)) {}
  Status Send(std::string_view message, HttpTransport::Headers headers) override {
    return transport_->Send(message, std::move(headers));
  }
  void Close() override { transport_->Close(); }
  pid_t pid() const override { return 0; }
  std::string StderrTail() const override { return {}; }
  void SetEra(ProtocolEra era, std::string_view version) override {
    transport_->SetEra(era, std::string(version));
  }

 private:
  std::unique_ptr<HttpTransport> transport_;
};

// One request waiting for its answer. Guarded by Client::Impl::mu_.
struct Pending {
  std::condition_variable answered;
  std::optional<Expected<Json>> outcome;
  Clock::time_point deadline;      // moved by progress notifications
  Clock::time_point max_deadline;  // how far progress may move it
  Clock::duration timeout;
};

// One request as the client sends it, through every input_required round.
struct Outgoing {
  std::string_view method;
  Json params = Json::object();
  std::chrono::milliseconds timeout{0};
  std::string what;                // names the request in errors
  bool progress = false;           // send _meta.progressToken (the request's id)
  HttpTransport::Headers headers;  // Mcp-Param-* (modern era, HTTP)
};

// How the probe ended.
enum class Probed : uint8_t { kModern, kLegacy };

// The `data` of a JSON-RPC error that ServerError quoted; an empty object when absent or cut.
Json ErrorData(const Error& error) {
  constexpr std::string_view kData = " (data: ";
  const std::string& message = error.message();
  const size_t at = message.find(kData);
  if (at == std::string::npos || !message.ends_with(')')) return Json::object();
  const size_t begin = at + kData.size();
  Json data = Json::parse(message.begin() + static_cast<std::ptrdiff_t>(begin), message.end() - 1,
                          nullptr, false);
  return data.is_object() ? data : Json::object();
}

bool Contains(const Json& list, std::string_view value) {
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(),
                     [&](const Json& item) { return item.is_string() && item == value; });
}

}  // namespace

class Client::Impl {
 public:
  explicit Impl(ClientOptions options)
      : options_(std::move(options)), label_("MCP server '" + options_.server_name + "'") {}
  ~Impl() { Stop(); }

  Status Launch(const LaunchSpec& spec);
  Status Open(const HttpSpec& spec);
  Status Handshake(Clock::time_point deadline);
  Status Initialize(Clock::time_point deadline);
  Status ListInitialTools(Clock::time_point deadline);
  Expected<Json> Call(std::string_view method, const Json& params,
                      std::chrono::milliseconds timeout, std::string_view what);
  Expected<ToolResult> CallTool(std::string_view name, const Json& arguments,
                                std::chrono::milliseconds timeout);
  Status RefreshTools();
  void Stop();

  std::shared_ptr<const std::vector<ToolInfo>> Tools() const {
    std::lock_guard lock(mu_);
    return tools_;
  }
  uint64_t generation() const {
    std::lock_guard lock(mu_);
    return generation_;
  }
  bool alive() const {
    std::lock_guard lock(mu_);
    return !dead_.has_value();
  }
  const ServerInfo& server_info() const { return server_info_; }
  pid_t pid() const { return transport_ ? transport_->pid() : -1; }

 private:
  Expected<Json> Exchange(int64_t id, const std::string& line, std::chrono::milliseconds timeout,
                          std::string_view what, bool cancellable,
                          HttpTransport::Headers headers = {});
  Expected<Json> RoundTrip(Outgoing request);
  Expected<Json> AnswerInputs(const Json& input_requests, std::string_view what);
  Expected<Probed> Probe(Clock::time_point deadline);
  Expected<Probed> Discovered(Json& result);
  Json Envelope(std::string_view version) const;
  Json Capabilities() const;
  int64_t NextId() {
    std::lock_guard lock(mu_);
    return next_id_++;
  }
  bool IsPending(const RequestId& id) const {
    const auto* number = std::get_if<int64_t>(&id);
    std::lock_guard lock(mu_);
    return number != nullptr && pending_.contains(*number);
  }
  void AnswerElicitation(const mcp::Request& request);
  Expected<std::vector<ToolInfo>> ListTools(Clock::time_point deadline);
  Status AddPage(Json& result, std::vector<ToolInfo>& tools,
                 std::unordered_set<std::string>& names);
  Error StartupError(const Error& error) const;
  void OnLine(std::string_view line);
  void OnNotification(const Notification& notification);
  void OnServerRequest(const mcp::Request& request);
  void OnProgress(const Json& params);
  void OnClose(const Error& reason);
  void Complete(const RequestId& id, Expected<Json> outcome);
  void Fail(const RequestId& id, const Error& error);
  void StartWorker(std::unique_ptr<Link> link);
  void FailAllLocked(const Error& error);
  void Enqueue(std::function<void()> task);
  void WorkerLoop();
  void Log(std::string_view message) const {
    if (options_.on_log) options_.on_log(label_ + ": " + std::string(message));
  }

  const ClientOptions options_;
  const std::string label_;  // "MCP server 'name'"
  std::unique_ptr<Link> transport_;
  ServerInfo server_info_;           // written by the handshake, before Start returns
  std::atomic<bool> modern_{false};  // the era; set by the handshake
  std::thread worker_;               // server-request replies and background re-listing
  std::once_flag stop_once_;
  std::mutex list_mu_;  // one listing at a time

  mutable std::mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<Pending>> pending_;
  int64_t next_id_ = 1;
  std::optional<Error> dead_;  // why calls fail from now on
  std::shared_ptr<const std::vector<ToolInfo>> tools_ =
      std::make_shared<const std::vector<ToolInfo>>();
  uint64_t generation_ = 0;
  std::condition_variable worker_wake_;
  std::deque<std::function<void()>> tasks_;
  bool relist_requested_ = false;
  bool started_ = false;  // the initial listing is done: re-listing may begin
  bool stopping_ = false;
};

Status Client::Impl::Launch(const LaunchSpec& spec) {
  StdioOptions transport_options = options_.transport;
  StdioTransport::Handlers handlers;
  handlers.on_line = [this](std::string_view line) { OnLine(line); };
  handlers.on_close = [this](const Error& reason) { OnClose(reason); };
  auto transport = StdioTransport::Start(spec, std::move(transport_options), std::move(handlers));
  if (!transport.ok()) return transport.error().WithContext(label_);
  StartWorker(std::make_unique<StdioLink>(std::move(*transport)));
  return {};
}

Status Client::Impl::Open(const HttpSpec& spec) {
  HttpTransport::Handlers handlers;
  handlers.on_line = [this](std::string_view line) { OnLine(line); };
  handlers.on_close = [this](const Error& reason) { OnClose(reason); };
  handlers.on_request_failed = [this](const RequestId& id, const Error& error) { Fail(id, error); };
  handlers.is_pending = [this](const RequestId& id) { return IsPending(id); };
  auto transport = HttpTransport::Start(spec, options_.http, std::move(handlers));
  if (!transport.ok()) return transport.error().WithContext(label_);
  StartWorker(std::make_unique<HttpLink>(std::move(*transport)));
  return {};
}

void Client::Impl::StartWorker(std::unique_ptr<Link> link) {
  transport_ = std::move(link);
  worker_ = std::thread([this] { WorkerLoop(); });
}

Json Client::Impl::Capabilities() const {
  Json capabilities = Json::object();
  if (options_.on_elicitation) capabilities["elicitation"] = {{"form", Json::object()}};
  return capabilities;
}

// The _meta every modern request carries.
Json Client::Impl::Envelope(std::string_view version) const {
  return {{"io.modelcontextprotocol/protocolVersion", version},
          {"io.modelcontextprotocol/clientCapabilities", Capabilities()},
          {"io.modelcontextprotocol/clientInfo",
           {{"name", options_.client_name}, {"version", options_.client_version}}}};
}

// Picks the era (the file comment), then runs that era's start: discover or initialize.
Status Client::Impl::Handshake(Clock::time_point deadline) {
  const std::string& pinned = options_.protocol_version;
  if (!pinned.empty() && pinned != kModernProtocolVersion) return Initialize(deadline);
  auto probed = Probe(deadline);
  if (!probed.ok()) return StartupError(probed.error());
  if (*probed == Probed::kModern) return {};
  if (!pinned.empty()) {
    return Error(ErrorCode::kUnsupported,
                 label_ + " does not speak protocol version " + pinned + " (server/discover)");
  }
  transport_->SetEra(ProtocolEra::kLegacy, "");
  Status initialized = Initialize(deadline);
  // A modern-only server that was too slow to answer the probe refuses initialize with -32022.
  if (initialized.ok() || ServerErrorCode(initialized.error()) != kUnsupportedVersion ||
      !Contains(ErrorData(initialized.error()).value("supported", Json()),
                kModernProtocolVersion)) {
    return initialized;
  }
  probed = Probe(deadline);
  if (!probed.ok()) return StartupError(probed.error());
  if (*probed == Probed::kModern) return {};
  return initialized;
}

// server/discover with the modern envelope; -32022 retries once with a supported version.
Expected<Probed> Client::Impl::Probe(Clock::time_point deadline) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    transport_->SetEra(ProtocolEra::kModern, kModernProtocolVersion);
    const Json params = {{"_meta", Envelope(kModernProtocolVersion)}};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    const int64_t id = NextId();
    // Over HTTP a probe that times out closes its stream; over stdio a legacy server before
    // initialize gets nothing more (no notifications/cancelled).
    auto result =
        Exchange(id, EncodeRequest(id, "server/discover", params),
                 std::min(left, options_.probe_timeout), "server/discover", transport_->pid() == 0);
    if (result.ok()) return Discovered(*result);
    const std::optional<int64_t> code = ServerErrorCode(result.error());
    if (code != kUnsupportedVersion) {
      if (!alive()) return result.error();
      Log("legacy era (server/discover: " + result.error().message() + ")");
      return Probed::kLegacy;
    }
    if (!Contains(ErrorData(result.error()).value("supported", Json()), kModernProtocolVersion)) {
      return Error(ErrorCode::kUnsupported, label_ + " supports no protocol version crux speaks: " +
                                                result.error().message());
    }
  }
  return Error(ErrorCode::kUnsupported, label_ + " refused protocol version " +
                                            std::string(kModernProtocolVersion) +
                                            " although it listed it as supported");
}

// A server/discover result: modern when it is a DiscoverResult naming 2026-07-28.
Expected<Probed> Client::Impl::Discovered(Json& result) {
  const auto versions = result.is_object() ? result.find("supportedVersions") : result.end();
  if (versions == result.end() || !versions->is_array()) return Probed::kLegacy;
  if (!Contains(*versions, kModernProtocolVersion)) {
    for (std::string_view legacy : kSupportedProtocolVersions)
      if (Contains(*versions, legacy)) return Probed::kLegacy;
    return Error(ErrorCode::kUnsupported, label_ + " supports only protocol versions " +
                                              Dump(*versions) + ", which crux does not speak");
  }
  const Json* info = nullptr;
  if (auto it = result.find("serverInfo"); it != result.end() && it->is_object()) info = &*it;
  if (auto meta = result.find("_meta"); info == nullptr && meta != result.end() &&
                                        meta->is_object() && meta->contains(kServerInfoMeta)) {
    info = &(*meta)[std::string(kServerInfoMeta)];
  }
  if (info != nullptr) {
    server_info_.name = StringMember(*info, "name");
    server_info_.version = StringMember(*info, "version");
  }
  server_info_.protocol_version = kModernProtocolVersion;
  server_info_.era = ProtocolEra::kModern;
  server_info_.instructions = StringMember(result, "instructions");
  if (auto it = result.find("capabilities"); it != result.end() && it->is_object()) {
    server_info_.capabilities = std::move(*it);
  }
  modern_ = true;
  return Probed::kModern;
}

Status Client::Impl::Initialize(Clock::time_point deadline) {
  const std::string_view asked =
      options_.protocol_version.empty() ? kProtocolVersion : options_.protocol_version;
  const Json params = {
      {"protocolVersion", asked},
      {"capabilities", Capabilities()},
      {"clientInfo", {{"name", options_.client_name}, {"version", options_.client_version}}}};
  const auto timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  auto result = Call("initialize", params, timeout, "initialize");
  if (!result.ok()) return StartupError(result.error());
  const std::string_view version = StringMember(*result, "protocolVersion");
  if (std::find(kSupportedProtocolVersions.begin(), kSupportedProtocolVersions.end(), version) ==
      kSupportedProtocolVersions.end()) {
    std::string supported;
    for (std::string_view v : kSupportedProtocolVersions) {
      supported += supported.empty() ? "" : ", ";
      supported += v;
    }
    return Error(ErrorCode::kUnsupported,
                 label_ + " answered protocolVersion '" + std::string(version) +
                     "', which crux does not support (supported: " + supported + ")");
  }
  server_info_.protocol_version = version;
  if (auto it = result->find("serverInfo"); it != result->end()) {
    server_info_.name = StringMember(*it, "name");
    server_info_.version = StringMember(*it, "version");
  }
  server_info_.instructions = StringMember(*result, "instructions");
  if (auto it = result->find("capabilities"); it != result->end() && it->is_object()) {
    server_info_.capabilities = std::move(*it);
  }
  transport_->SetEra(ProtocolEra::kLegacy, version);
  return transport_->Send(EncodeNotification("notifications/initialized", nullptr), {});
}

// A handshake failure, named: a timeout gets the server's name and the tail of its stderr
// (deaths and error responses already carry what they need).
Error Client::Impl::StartupError(const Error& error) const {
  if (error.code() != ErrorCode::kTimeout || !error.tag().empty()) return error;
  std::string message = label_ + ": " + error.message() + " (startup timeout " +
                        Seconds(options_.startup_timeout) + ")";
  if (std::string tail = transport_->StderrTail(); !tail.empty()) message += "; stderr: " + tail;
  return Error(ErrorCode::kTimeout, std::move(message));
}

Status Client::Impl::ListInitialTools(Clock::time_point deadline) {
  std::vector<ToolInfo> tools;
  if (server_info_.capabilities.contains("tools")) {
    std::lock_guard list_lock(list_mu_);
    auto listed = ListTools(deadline);
    if (!listed.ok()) return StartupError(listed.error());
    tools = std::move(*listed);
  }
  {
    std::lock_guard lock(mu_);
    tools_ = std::make_shared<const std::vector<ToolInfo>>(std::move(tools));
    generation_ = 1;
    started_ = true;
  }
  worker_wake_.notify_all();
  return {};
}

Expected<std::vector<ToolInfo>> Client::Impl::ListTools(Clock::time_point deadline) {
  std::vector<ToolInfo> tools;
  std::unordered_set<std::string> names;
  std::unordered_set<std::string> cursors;
  Json params = Json::object();
  for (int page = 0; page < kMaxToolPages; ++page) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    auto result =
        Call("tools/list", params, std::min(left, options_.request_timeout), "tools/list");
    if (!result.ok()) return result.error();
    if (Status added = AddPage(*result, tools, names); !added.ok()) return added.error();
    const auto next = result->find("nextCursor");
    if (next == result->end() || next->is_null() || next->get_ref<const std::string&>().empty()) {
      return tools;
    }
    if (!cursors.insert(next->get<std::string>()).second) {
      return Error(ErrorCode::kInvalidArgument,
                   label_ + " repeated the tools/list cursor " + Dump(*next));
    }
    params["cursor"] = *next;
  }
  return Error(ErrorCode::kLimit,
               label_ + " listed more than " + std::to_string(kMaxToolPages) + " pages of tools");
}

// Appends the tools of one tools/list page; checks the page's shape.
Status Client::Impl::AddPage(Json& result, std::vector<ToolInfo>& tools,
                             std::unordered_set<std::string>& names) {
  if (!result.is_object() || !result.contains("tools") || !result["tools"].is_array()) {
    return Error(ErrorCode::kInvalidArgument,
                 label_ + ": a tools/list result without a tools array");
  }
  if (const auto next = result.find("nextCursor");
      next != result.end() && !next->is_null() && !next->is_string()) {
    return Error(ErrorCode::kInvalidArgument, label_ + ": nextCursor is not a string");
  }
  for (Json& tool : result["tools"]) {
    auto info = ParseTool(tool);
    if (info.ok() && modern_) {
      auto params = ToolHeaderParams(info->input_schema);
      if (!params.ok()) {
        info = params.error().WithContext("tool '" + info->name + "'");
      } else {
        info->header_params = std::move(*params);
      }
    }
    if (!info.ok()) {
      Log("skipped " + info.error().message());
    } else if (!names.insert(info->name).second) {
      Log("skipped a second tool named '" + info->name + "'");
    } else {
      tools.push_back(std::move(*info));
    }
  }
  return {};
}

Status Client::Impl::RefreshTools() {
  uint64_t generation = 0;
  {
    std::lock_guard list_lock(list_mu_);
    auto tools = ListTools(Clock::now() + std::chrono::hours(24 * 365));
    if (!tools.ok()) return tools.error();
    std::lock_guard lock(mu_);
    tools_ = std::make_shared<const std::vector<ToolInfo>>(std::move(*tools));
    generation = ++generation_;
  }
  if (options_.on_tools_changed) options_.on_tools_changed(generation);
  return {};
}

Expected<Json> Client::Impl::Call(std::string_view method, const Json& params,
                                  std::chrono::milliseconds timeout, std::string_view what) {
  if (!modern_) {
    const int64_t id = NextId();
    // initialize MUST NOT be cancelled (2025-11-25 lifecycle).
    return Exchange(id, EncodeRequest(id, method, params), timeout, what, method != "initialize");
  }
  Outgoing request;
  request.method = method;
  request.timeout = timeout;
  request.what = what;
  if (params.is_object()) request.params = params;
  return RoundTrip(std::move(request));
}

// Sends `request` (with the modern envelope in that era) and follows input_required results:
// each round answers the inputs and retries with a new id (SEP-2322).
Expected<Json> Client::Impl::RoundTrip(Outgoing request) {
  const Json original = request.params;
  for (int round = 0; round <= kMaxInputRounds; ++round) {
    const int64_t id = NextId();
    Json params = request.params;
    if (request.progress) params["_meta"]["progressToken"] = id;
    if (modern_) {
      const Json envelope = Envelope(kModernProtocolVersion);
      for (const auto& [key, value] : envelope.items())
        params["_meta"][key] = value;
    }
    auto result = Exchange(id, EncodeRequest(id, request.method, params), request.timeout,
                           request.what, true, request.headers);
    if (!result.ok()) return result;
    const std::string_view type = StringMember(*result, "resultType");
    if (type.empty() || type == "complete") return result;
    if (type != "input_required") {
      return Error(ErrorCode::kUnsupported, label_ + ": " + request.what +
                                                " answered resultType '" + std::string(type) +
                                                "', which crux does not handle");
    }
    auto responses = AnswerInputs((*result)["inputRequests"], request.what);
    if (!responses.ok()) return responses.error();
    request.params = original;
    request.params["inputResponses"] = std::move(*responses);
    if (auto state = result->find("requestState"); state != result->end() && state->is_string()) {
      request.params["requestState"] = std::move(*state);
    }
  }
  return Error(ErrorCode::kLimit, label_ + ": " + request.what + " asked for input more than " +
                                      std::to_string(kMaxInputRounds) + " times");
}

// The inputResponses for an input_required result's inputRequests, or why there are none.
Expected<Json> Client::Impl::AnswerInputs(const Json& input_requests, std::string_view what) {
  if (!input_requests.is_object() || input_requests.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 label_ + ": " + std::string(what) + " asked for input without inputRequests");
  }
  Json responses = Json::object();
  for (const auto& [key, input] : input_requests.items()) {
    const std::string_view method = StringMember(input, "method");
    if (method != "elicitation/create" || !options_.on_elicitation) {
      return Error(ErrorCode::kUnsupported,
                   label_ + ": " + std::string(what) + " needs input crux cannot give: " +
                       (method.empty() ? std::string("(no method)") : std::string(method)) + " ('" +
                       key + "'); crux declares no capability for it");
    }
    const auto params = input.find("params");
    auto answer = options_.on_elicitation(params == input.end() ? Json::object() : *params);
    if (!answer.ok()) return answer.error().WithContext(label_ + ": " + std::string(what));
    responses[key] = std::move(*answer);
  }
  return responses;
}

Expected<ToolResult> Client::Impl::CallTool(std::string_view name, const Json& arguments,
                                            std::chrono::milliseconds timeout) {
  if (name.empty()) return Error(ErrorCode::kInvalidArgument, "the tool name is empty");
  if (!arguments.is_null() && !arguments.is_object()) {
    return Error(ErrorCode::kInvalidArgument,
                 "the arguments of tool '" + std::string(name) + "' are not an object");
  }
  Outgoing request;
  request.method = "tools/call";
  request.params = {{"name", name},
                    {"arguments", arguments.is_null() ? Json::object() : arguments}};
  request.timeout = timeout;
  request.what = "tool call '" + std::string(name) + "'";
  request.progress = true;
  if (modern_) {
    const auto tools = Tools();
    const auto tool = std::find_if(tools->begin(), tools->end(),
                                   [&](const ToolInfo& info) { return info.name == name; });
    if (tool != tools->end()) request.headers = ParamHeaders(tool->header_params, arguments);
  }
  const std::string what = request.what;
  auto result = RoundTrip(std::move(request));
  if (!result.ok()) return result.error();
  auto parsed = ParseToolResult(*result);
  if (!parsed.ok()) return parsed.error().WithContext(label_ + ": " + what);
  return parsed;
}

Expected<Json> Client::Impl::Exchange(int64_t id, const std::string& line,
                                      std::chrono::milliseconds timeout, std::string_view what,
                                      bool cancellable, HttpTransport::Headers headers) {
  auto pending = std::make_shared<Pending>();
  pending->timeout = timeout;
  pending->deadline = Clock::now() + timeout;
  pending->max_deadline = Clock::now() + timeout * std::max(1, options_.max_timeout_factor);
  {
    std::lock_guard lock(mu_);
    if (dead_) return *dead_;
    pending_.emplace(id, pending);
  }
  if (Status sent = transport_->Send(line, std::move(headers)); !sent.ok()) {
    std::lock_guard lock(mu_);
    pending_.erase(id);
    if (dead_) return *dead_;
    return sent.error().WithContext(label_);
  }
  std::unique_lock lock(mu_);
  while (!pending->outcome.has_value() && Clock::now() < pending->deadline) {
    pending->answered.wait_until(lock, pending->deadline);
  }
  if (pending->outcome.has_value()) return std::move(*pending->outcome);
  pending_.erase(id);
  lock.unlock();
  const std::string reason = std::string(what) + " timed out after " + Seconds(timeout);
  if (cancellable) {
    const Json params = {{"requestId", id}, {"reason", reason}};
    [[maybe_unused]] Status ignored =
        transport_->Send(EncodeNotification("notifications/cancelled", params), {});
  }
  return Error(ErrorCode::kTimeout, reason);
}

void Client::Impl::OnLine(std::string_view line) {
  auto message = DecodeMessage(line);
  if (!message.ok()) {
    Log("dropped a line (" + message.error().message() +
        "): " + std::string(line.substr(0, kMaxLoggedLine)));
    return;
  }
  if (auto* response = std::get_if<Response>(&*message)) {
    Complete(response->id, std::move(response->result));
  } else if (auto* error = std::get_if<ErrorResponse>(&*message)) {
    if (error->id.has_value()) {
      Complete(*error->id, ServerError(*error));
    } else {
      Log("error response without id: " + ServerError(*error).message());
    }
  } else if (auto* request = std::get_if<mcp::Request>(&*message)) {
    OnServerRequest(*request);
  } else {
    OnNotification(std::get<Notification>(*message));
  }
}

void Client::Impl::Complete(const RequestId& id, Expected<Json> outcome) {
  {
    std::lock_guard lock(mu_);
    const auto* number = std::get_if<int64_t>(&id);
    const auto it = number != nullptr ? pending_.find(*number) : pending_.end();
    if (it != pending_.end()) {
      it->second->outcome = std::move(outcome);
      it->second->answered.notify_one();
      pending_.erase(it);
      return;
    }
  }
  Log("dropped an answer to request " + RequestIdText(id) + ", which is not pending");
}

// A transport's report that request `id` will get no answer; nothing when it already has one.
void Client::Impl::Fail(const RequestId& id, const Error& error) {
  std::lock_guard lock(mu_);
  const auto* number = std::get_if<int64_t>(&id);
  const auto it = number != nullptr ? pending_.find(*number) : pending_.end();
  if (it == pending_.end()) return;
  it->second->outcome = error.WithContext(label_);
  it->second->answered.notify_one();
  pending_.erase(it);
}

void Client::Impl::OnNotification(const Notification& notification) {
  if (notification.method == "notifications/tools/list_changed") {
    {
      std::lock_guard lock(mu_);
      relist_requested_ = true;
    }
    worker_wake_.notify_all();
  } else if (notification.method == "notifications/progress" && notification.params) {
    OnProgress(*notification.params);
  }
  // Logging (notifications/message), resource and prompt changes: nothing to do.
}

// Moves a pending call's deadline; progress for calls that are no longer pending is dropped.
void Client::Impl::OnProgress(const Json& params) {
  if (!params.is_object()) return;
  const auto token = params.find("progressToken");
  if (token == params.end() || !token->is_number_integer()) return;
  std::lock_guard lock(mu_);
  const auto it = pending_.find(token->get<int64_t>());
  if (it == pending_.end()) return;
  Pending& pending = *it->second;
  pending.deadline = std::min(Clock::now() + pending.timeout, pending.max_deadline);
}

void Client::Impl::OnServerRequest(const mcp::Request& request) {
  if (request.method == "elicitation/create" && options_.on_elicitation) {
    return Enqueue([this, request] { AnswerElicitation(request); });
  }
  std::string reply =
      request.method == "ping"
          ? EncodeResponse(request.id, Json::object())
          : EncodeErrorResponse(request.id, kMethodNotFound, "Method not found: " + request.method);
  // Replies go out from the worker: the reader thread never blocks on a write.
  Enqueue([this, reply = std::move(reply)] {
    if (Status sent = transport_->Send(reply, {}); !sent.ok()) Log(sent.error().message());
  });
}

// On the worker: the operator's answer, or an error response when it declines.
void Client::Impl::AnswerElicitation(const mcp::Request& request) {
  auto answer = options_.on_elicitation(request.params.value_or(Json::object()));
  const std::string reply =
      answer.ok() ? EncodeResponse(request.id, *answer)
                  : EncodeErrorResponse(request.id, kInternalError, answer.error().message());
  if (Status sent = transport_->Send(reply, {}); !sent.ok()) Log(sent.error().message());
}

// On the reader thread, possibly before Launch has stored transport_: uses only `reason`.
void Client::Impl::OnClose(const Error& reason) {
  std::string message = label_ + " is unavailable: " + reason.message();
  {
    std::lock_guard lock(mu_);
    if (!dead_)
      dead_ =
          Error(reason.code() == ErrorCode::kLimit ? ErrorCode::kLimit : ErrorCode::kUnavailable,
                std::move(message));
    FailAllLocked(*dead_);
  }
  worker_wake_.notify_all();
}

void Client::Impl::FailAllLocked(const Error& error) {
  for (auto& [id, pending] : pending_) {
    pending->outcome = error;
    pending->answered.notify_one();
  }
  pending_.clear();
}

void Client::Impl::Enqueue(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    tasks_.push_back(std::move(task));
  }
  worker_wake_.notify_all();
}

void Client::Impl::WorkerLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    worker_wake_.wait(lock, [this] {
      return stopping_ || !tasks_.empty() || (relist_requested_ && started_ && !dead_);
    });
    if (stopping_) return;
    if (!tasks_.empty()) {
      std::function<void()> task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      task();
    } else {
      relist_requested_ = false;
      lock.unlock();
      if (Status refreshed = RefreshTools(); !refreshed.ok()) {
        Log("re-listing tools failed: " + refreshed.error().message());
      }
    }
    lock.lock();
  }
}

void Client::Impl::Stop() {
  std::call_once(stop_once_, [this] {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
      if (!dead_) dead_ = Error(ErrorCode::kCancelled, label_ + " was stopped");
      FailAllLocked(*dead_);
    }
    worker_wake_.notify_all();
    if (transport_) transport_->Close();
    if (worker_.joinable()) worker_.join();
  });
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Client::~Client() = default;

// The handshake and the first listing over a link `open` has set up, within the startup
// deadline; the server is stopped on any failure.
template <class OpenLink>
Expected<std::unique_ptr<Client>> Client::Begin(ClientOptions options, OpenLink open) {
  const auto deadline = Clock::now() + options.startup_timeout;
  auto impl = std::make_unique<Impl>(std::move(options));
  Status status = open(*impl);
  if (status.ok()) status = impl->Handshake(deadline);
  if (status.ok()) status = impl->ListInitialTools(deadline);
  if (!status.ok()) {
    impl->Stop();
    return status.error();
  }
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Expected<std::unique_ptr<Client>> Client::Start(const LaunchSpec& spec, ClientOptions options) {
  return Begin(std::move(options), [&](Impl& impl) { return impl.Launch(spec); });
}

Expected<std::unique_ptr<Client>> Client::Connect(const HttpSpec& spec, ClientOptions options) {
  return Begin(std::move(options), [&](Impl& impl) { return impl.Open(spec); });
}

Expected<ToolResult> Client::CallTool(std::string_view name, const Json& arguments,
                                      std::chrono::milliseconds timeout) {
  return impl_->CallTool(name, arguments, timeout);
}

Expected<Json> Client::Request(std::string_view method, const Json& params,
                               std::chrono::milliseconds timeout) {
  return impl_->Call(method, params, timeout, "MCP request '" + std::string(method) + "'");
}

std::shared_ptr<const std::vector<ToolInfo>> Client::Tools() const {
  return impl_->Tools();
}
uint64_t Client::tools_generation() const {
  return impl_->generation();
}
Status Client::RefreshTools() {
  return impl_->RefreshTools();
}
const ServerInfo& Client::server_info() const {
  return impl_->server_info();
}
bool Client::alive() const {
  return impl_->alive();
}
pid_t Client::pid() const {
  return impl_->pid();
}
void Client::Stop() {
  impl_->Stop();
}

std::optional<int64_t> ServerErrorCode(const Error& error) {
  constexpr std::string_view kPrefix = "MCP error ";
  const std::string& message = error.message();
  if (error.tag() != kServerErrorTag || !message.starts_with(kPrefix)) return std::nullopt;
  int64_t code = 0;
  const char* begin = message.data() + kPrefix.size();
  const auto [end, ec] = std::from_chars(begin, message.data() + message.size(), code);
  if (ec != std::errc() || end == begin) return std::nullopt;
  return code;
}

namespace {

// "[image: image/png, 120 bytes base64]" for image and audio blocks.
std::string MediaText(const Json& block, std::string_view type) {
  return "[" + std::string(type) + ": " + std::string(StringMember(block, "mimeType")) + ", " +
         std::to_string(StringMember(block, "data").size()) + " bytes base64]";
}

std::string ResourceText(const Json& block) {
  const auto resource = block.find("resource");
  if (resource == block.end() || !resource->is_object()) return Dump(block);
  if (const auto text = resource->find("text"); text != resource->end() && text->is_string()) {
    return text->get<std::string>();
  }
  return "[resource blob: " + std::string(StringMember(*resource, "uri")) + " " +
         std::string(StringMember(*resource, "mimeType")) + ", " +
         std::to_string(StringMember(*resource, "blob").size()) + " bytes base64]";
}

}  // namespace

std::string ContentToText(const ToolResult& result) {
  std::string out;
  bool has_text = false;
  for (const Json& block : result.content) {
    if (!out.empty()) out += '\n';
    const std::string_view type = StringMember(block, "type");
    if (type == "text") {
      out += StringMember(block, "text");
      has_text = true;
    } else if (type == "image" || type == "audio") {
      out += MediaText(block, type);
    } else if (type == "resource_link") {
      out += "[resource link: " + std::string(StringMember(block, "name")) + " <" +
             std::string(StringMember(block, "uri")) + ">]";
    } else if (type == "resource") {
      out += ResourceText(block);
    } else {
      out += Dump(block);
    }
  }
  if (result.structured_content.has_value() && !has_text) {
    if (!out.empty()) out += '\n';
    out += Dump(*result.structured_content);
  }
  return out;
}

}  // namespace crux::mcp
