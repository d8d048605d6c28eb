#include "crux/mcp/manager.h"

#include <atomic>
#include <map>
#include <mutex>
#include <semaphore>
#include <set>
#include <thread>

#include "crux/base/utf8.h"
#include "crux/mcp/policy.h"

namespace crux::mcp {
namespace {

using Clock = std::chrono::steady_clock;

bool IsFunctionName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// What pinning compares: the description and the input schema a model is shown.
std::string Fingerprint(const ToolInfo& tool) {
  return tool.description + '\x1f' + tool.input_schema.dump();
}

std::chrono::milliseconds Millis(double seconds) {
  return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
}

// Holds one unit of a semaphore for a scope; no semaphore, no wait.
class Permit {
 public:
  explicit Permit(std::counting_semaphore<>* semaphore) : semaphore_(semaphore) {
    if (semaphore_ != nullptr) semaphore_->acquire();
  }
  ~Permit() {
    if (semaphore_ != nullptr) semaphore_->release();
  }
  Permit(const Permit&) = delete;
  Permit& operator=(const Permit&) = delete;

 private:
  std::counting_semaphore<>* semaphore_;
};

}  // namespace

std::string_view ServerStateName(ServerState state) {
  switch (state) {
    case ServerState::kDisabled:
      return "disabled";
    case ServerState::kStarting:
      return "starting";
    case ServerState::kConnected:
      return "connected";
    case ServerState::kFailed:
      return "failed";
  }
  return "failed";
}

std::optional<std::pair<std::string_view, std::string_view>> SplitToolName(
    std::string_view full_name) {
  const size_t at = full_name.find("__");
  if (at == std::string_view::npos || at == 0 || at + 2 >= full_name.size()) return std::nullopt;
  return std::make_pair(full_name.substr(0, at), full_name.substr(at + 2));
}

bool TruncateOutput(std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return false;
  const size_t total = text.size();
  text.resize(utf8::CompletePrefixLength(std::string_view(text).substr(0, max_bytes)));
  text += "\n[output truncated: " + std::to_string(text.size()) + " of " + std::to_string(total) +
          " bytes shown]";
  return true;
}

struct Manager::Slot {
  ServerConfig config;
  std::unique_ptr<std::counting_semaphore<>> permits;  // per-server limit, when configured
  std::mutex launch_mutex;                             // one launch at a time
  mutable std::mutex mutex;                            // the fields below
  std::shared_ptr<Client> client;
  ServerState state = ServerState::kStarting;
  std::string error;
  Clock::time_point last_launch{};
  mutable std::map<std::string, std::string> pins;  // tool name → Fingerprint at first sight
  mutable std::set<std::string> reported;           // log lines already written once
};

struct Manager::Shared {
  explicit Shared(const Config& config)
      : policy(config), permits(std::max(config.max_concurrency, 1)) {}
  ToolPolicy policy;
  std::counting_semaphore<> permits;
  std::mutex start_mutex;
  bool started = false;
  std::atomic<bool> stopped{false};
};

Manager::Manager(Config config, SecurityOptions security, ManagerHooks hooks)
    : config_(std::move(config)),
      security_(std::move(security)),
      hooks_(std::move(hooks)),
      shared_(std::make_unique<Shared>(config_)) {
  for (const ServerConfig& server : config_.servers) {
    auto slot = std::make_unique<Slot>();
    slot->config = server;
    if (server.max_concurrency) {
      slot->permits = std::make_unique<std::counting_semaphore<>>(*server.max_concurrency);
    }
    slot->state = server.enabled ? ServerState::kStarting : ServerState::kDisabled;
    slots_.push_back(std::move(slot));
  }
}

Manager::~Manager() {
  Stop();
}

void Manager::Log(int level, const std::string& message) const {
  if (hooks_.log) hooks_.log(level, message);
}

Status Manager::Launch(Slot& slot) {
  const ServerConfig& server = slot.config;
  {
    std::lock_guard<std::mutex> lock(slot.mutex);
    slot.state = ServerState::kStarting;
    slot.last_launch = Clock::now();
  }
  for (const std::string& warning : SecurityWarnings(server, security_))
    Log(1, warning);
  ClientOptions options;
  options.server_name = server.name;
  options.startup_timeout = Millis(config_.startup_timeout_s);
  options.request_timeout = Millis(config_.default_timeout_s);
  options.on_log = [this, name = server.name](std::string_view line) {
    Log(1, "MCP server '" + name + "': " + std::string(line));
  };
  Expected<std::unique_ptr<Client>> started = std::unique_ptr<Client>();
  if (server.transport == Transport::kHttp) {
    HttpSpec spec{server.url, {server.headers.begin(), server.headers.end()}};
    started = Client::Connect(spec, std::move(options));
  } else if (Expected<std::string> command = ResolveCommand(server.command, security_);
             !command.ok()) {
    started = command.error().WithContext("MCP server '" + server.name + "'");
  } else {
    LaunchSpec spec{*command, server.args, {}, server.cwd};
    for (const auto& [key, value] : server.env)
      spec.env.emplace_back(key, value);
    started = Client::Start(spec, std::move(options));
  }
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (!started.ok()) {
    slot.client.reset();
    slot.state = ServerState::kFailed;
    slot.error = started.error().message();
    Log(2, slot.error);
    return started.error();
  }
  slot.client = std::shared_ptr<Client>(std::move(*started));
  slot.state = ServerState::kConnected;
  slot.error.clear();
  const ServerInfo& info = slot.client->server_info();
  Log(0, "MCP server '" + server.name + "' connected: " + info.name + " " + info.version +
             " (protocol " + info.protocol_version + "), " +
             std::to_string(slot.client->Tools()->size()) + " tools");
  return Status();
}

void Manager::Start() {
  std::lock_guard<std::mutex> lock(shared_->start_mutex);
  if (shared_->started) return;
  shared_->started = true;
  std::vector<std::thread> launches;
  for (auto& slot : slots_) {
    if (!slot->config.enabled) continue;
    launches.emplace_back([this, &slot] {
      std::lock_guard<std::mutex> launch_lock(slot->launch_mutex);
      (void)Launch(*slot);
    });
  }
  for (std::thread& launch : launches)
    launch.join();
}

void Manager::Stop() {
  shared_->stopped = true;
  for (auto& slot : slots_) {
    std::shared_ptr<Client> client;
    {
      std::lock_guard<std::mutex> lock(slot->mutex);
      client = std::move(slot->client);
      if (slot->state != ServerState::kDisabled) slot->state = ServerState::kFailed;
      if (slot->error.empty() && slot->config.enabled) slot->error = "stopped";
    }
    if (client) client->Stop();
  }
}

std::shared_ptr<Client> Manager::Connected(Slot& slot, std::string& error) {
  std::lock_guard<std::mutex> launch_lock(slot.launch_mutex);
  {
    std::lock_guard<std::mutex> lock(slot.mutex);
    if (slot.client && slot.client->alive()) return slot.client;
    if (Clock::now() - slot.last_launch < kRestartInterval) {
      error =
          slot.error.empty() ? "MCP server '" + slot.config.name + "' is not running" : slot.error;
      return nullptr;
    }
  }
  if (shared_->stopped) {
    error = "MCP is shutting down";
    return nullptr;
  }
  Log(1, "MCP server '" + slot.config.name + "' is not running; restarting it");
  if (Status launched = Launch(slot); !launched.ok()) {
    error = launched.error().message();
    return nullptr;
  }
  std::lock_guard<std::mutex> lock(slot.mutex);
  return slot.client;
}

std::vector<OfferedTool> Manager::OfferedBy(Slot& slot) const {
  std::vector<OfferedTool> offered;
  std::lock_guard<std::mutex> lock(slot.mutex);
  if (!slot.client || slot.state != ServerState::kConnected) return offered;
  const auto once = [&](int level, const std::string& key, const std::string& message) {
    if (slot.reported.insert(key).second) Log(level, message);
  };
  // The snapshot stays alive for the loop (a re-listing may replace the client's list).
  const std::shared_ptr<const std::vector<ToolInfo>> tools = slot.client->Tools();
  for (const ToolInfo& tool : *tools) {
    const std::string full = slot.config.name + "__" + tool.name;
    if (!IsFunctionName(full)) {
      once(1, "name:" + full,
           "MCP tool '" + full +
               "' is not offered: a function name must match "
               "^[A-Za-z0-9_-]{1,64}$");
      continue;
    }
    if (Status allowed = shared_->policy.Check(slot.config.name, tool.name, Json::object());
        !allowed.ok()) {
      once(0, "policy:" + full, "MCP tool not offered: " + allowed.error().message());
      continue;
    }
    const std::string print = Fingerprint(tool);
    const auto [pin, first] = slot.pins.emplace(tool.name, print);
    if (!first && pin->second != print) {
      if (!config_.allow_tool_changes) {
        once(1, "changed:" + full + print,
             "MCP tool '" + full +
                 "' changed its description or input schema since it was "
                 "first listed; it is withheld (allow_tool_changes lets it through)");
        continue;
      }
      once(1, "changed:" + full + print,
           "MCP tool '" + full +
               "' changed its description or input schema since it was "
               "first listed; offered anyway (allow_tool_changes)");
    }
    offered.push_back({full, slot.config.name, tool});
  }
  return offered;
}

std::vector<OfferedTool> Manager::Tools() const {
  std::vector<OfferedTool> all;
  for (const auto& slot : slots_) {
    std::vector<OfferedTool> offered = OfferedBy(*slot);
    all.insert(all.end(), std::make_move_iterator(offered.begin()),
               std::make_move_iterator(offered.end()));
  }
  return all;
}

Json Manager::OpenAiTools() const {
  Json tools = Json::array();
  for (const OfferedTool& tool : Tools()) {
    Json parameters = tool.info.input_schema;
    if (!parameters.is_object() || parameters.empty() ||
        (parameters.size() == 1 && parameters.contains("type"))) {
      Json properties = parameters.value("properties", Json::object());
      parameters = Json{{"type", "object"}, {"properties", std::move(properties)}};
    }
    tools.push_back({{"type", "function"},
                     {"function",
                      {{"name", tool.full_name},
                       {"description", tool.info.description},
                       {"parameters", std::move(parameters)}}}});
  }
  return tools;
}

bool Manager::Offers(std::string_view full_name) const {
  const auto split = SplitToolName(full_name);
  if (!split) return false;
  for (const auto& slot : slots_) {
    if (slot->config.name != split->first) continue;
    for (const OfferedTool& tool : OfferedBy(*slot)) {
      if (tool.full_name == full_name) return true;
    }
  }
  return false;
}

std::vector<ServerStatus> Manager::Servers() const {
  std::vector<ServerStatus> out;
  for (const auto& slot : slots_) {
    ServerStatus status;
    status.name = slot->config.name;
    status.transport = slot->config.transport;
    {
      std::lock_guard<std::mutex> lock(slot->mutex);
      status.state = slot->state;
      status.error = slot->error;
      if (slot->client) {
        const ServerInfo& info = slot->client->server_info();
        status.server_name = info.name;
        status.server_version = info.version;
        status.protocol_version = info.protocol_version;
        if (!slot->client->alive() && status.state == ServerState::kConnected) {
          status.state = ServerState::kFailed;
          status.error = "the server exited; it is restarted on its next call";
        }
      }
    }
    if (status.state == ServerState::kConnected) status.tools = OfferedBy(*slot).size();
    out.push_back(std::move(status));
  }
  return out;
}

ExecResult Manager::Refuse(std::string_view full_name, std::string_view server,
                           const Json& arguments, std::string message) {
  AuditRecord record{std::string(full_name),
                     std::string(server),
                     SanitizeForAudit(arguments),
                     false,
                     message,
                     0,
                     0};
  if (hooks_.audit) hooks_.audit(record);
  ExecResult result;
  result.is_error = true;
  result.text = std::move(message);
  return result;
}

ExecResult Manager::Execute(std::string_view full_name, const Json& arguments) {
  const Json args = arguments.is_null() ? Json::object() : arguments;
  if (shared_->stopped) return Refuse(full_name, "", args, "MCP is shutting down");
  const auto split = SplitToolName(full_name);
  if (!split) {
    return Refuse(full_name, "", args,
                  "Tool '" + std::string(full_name) + "' is not an MCP tool (<server>__<tool>)");
  }
  const auto [server, tool] = *split;
  Slot* slot = nullptr;
  for (auto& candidate : slots_) {
    if (candidate->config.name == server) slot = candidate.get();
  }
  if (slot == nullptr)
    return Refuse(full_name, "", args, "Server '" + std::string(server) + "' not found");
  if (!slot->config.enabled) {
    return Refuse(full_name, server, args, "Server '" + std::string(server) + "' is disabled");
  }
  if (!args.is_object()) {
    return Refuse(full_name, server, args,
                  "arguments of '" + std::string(full_name) + "' must be a JSON object");
  }
  std::string error;
  if (!Connected(*slot, error)) return Refuse(full_name, server, args, error);
  if (!Offers(full_name)) {
    Status allowed = shared_->policy.Check(server, tool, Json::object());
    return Refuse(full_name, server, args,
                  !allowed.ok() ? allowed.error().message()
                                : "Tool '" + std::string(full_name) +
                                      "' is not offered (not listed by the server, or withheld "
                                      "after its description changed)");
  }
  if (Status allowed = shared_->policy.Check(server, tool, args); !allowed.ok()) {
    return Refuse(full_name, server, args, allowed.error().message());
  }
  return CallOn(*slot, full_name, tool, args);
}

ExecResult Manager::CallOn(Slot& slot, std::string_view full_name, std::string_view tool,
                           const Json& arguments) {
  const Permit global(&shared_->permits);
  const Permit local(slot.permits.get());
  const auto start = Clock::now();
  ExecResult result;
  std::string error;
  std::shared_ptr<Client> client = Connected(slot, error);
  Expected<ToolResult> called = Error(ErrorCode::kUnavailable, error);
  if (client) {
    called = client->CallTool(tool, arguments, Millis(config_.CallTimeoutSeconds(slot.config)));
  }
  if (called.ok()) {
    result.text = ContentToText(*called);
    result.is_error = called->is_error;
    result.content = std::move(called->content);
    result.structured_content = std::move(called->structured_content);
  } else {
    result.is_error = true;
    result.text = called.error().message();
    if (called.error().code() == ErrorCode::kUnavailable) {
      std::lock_guard<std::mutex> lock(slot.mutex);
      slot.state = ServerState::kFailed;
      slot.error = called.error().message();
    }
  }
  const size_t output_bytes = result.text.size();
  result.truncated = TruncateOutput(result.text, static_cast<size_t>(config_.max_output_bytes));
  if (result.truncated) {
    result.content.clear();  // the blocks are what was too large
    result.structured_content.reset();
  }
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (hooks_.audit) {
    hooks_.audit({std::string(full_name), slot.config.name, SanitizeForAudit(arguments),
                  !result.is_error, result.is_error ? result.text : "", result.duration_ms,
                  output_bytes});
  }
  return result;
}

}  // namespace crux::mcp
