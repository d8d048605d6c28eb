// The MCP manager and executor: one client per configured server, their tools aggregated under
// `<server>__<tool>` names, and the one place tool calls are executed — under the operator's
// tool policy, concurrency limits, timeouts and output limit, with an audit record per call.
//
// Start() launches every enabled server concurrently; a server that fails to start is
// reported in Servers() and retried on its next call, and never stops the others. A server
// that dies is restarted on the next call to one of its tools (at most once per
// kRestartInterval); the call that was in flight when it died gets an error result.
//
// Tool descriptions and schemas are pinned at the first listing. A tool whose description or
// input schema changes later (a "rug pull") is logged and withheld from Tools() and Execute()
// unless the config sets allow_tool_changes. Tools denied by the policy (allow_tools,
// deny_tools, the high-risk rule) and tools whose full name is not a valid function name
// (^[A-Za-z0-9_-]{1,64}$) are not offered either: a model can reach only what Tools() lists.
//
// Thread-safety: every method may be called from any thread, concurrently; Execute() blocks
// the calling thread for the duration of the call.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/mcp/client.h"
#include "crux/mcp/config.h"
#include "crux/mcp/security.h"

namespace crux::mcp {

enum class ServerState : uint8_t {
  kDisabled,   // enabled: false in the config
  kStarting,   // being launched
  kConnected,  // handshake done; tools listed
  kFailed,     // could not start, or died; retried on the next call
};

// "disabled", "starting", "connected", "failed".
std::string_view ServerStateName(ServerState state);

struct ServerStatus {
  std::string name;
  Transport transport = Transport::kStdio;
  ServerState state = ServerState::kStarting;
  size_t tools = 0;         // tools offered (after policy and pinning)
  std::string error;        // why it failed; "" otherwise
  std::string server_name;  // from its initialize result
  std::string server_version;
  std::string protocol_version;
};

// A tool as offered to models.
struct OfferedTool {
  std::string full_name;  // <server>__<tool>
  std::string server;
  ToolInfo info;
};

// The outcome of one call. Failures of every kind (policy, unknown tool, timeout, the server's
// isError or JSON-RPC error, a dead server) are results with is_error set, so a tool loop can
// feed them back to the model; `text` then says what went wrong.
struct ExecResult {
  std::string text;  // ContentToText of the result, cut to max_output_bytes
  bool is_error = false;
  bool truncated = false;
  std::vector<Json> content;  // the result's content blocks (empty on failure)
  std::optional<Json> structured_content;
  double duration_ms = 0;
};

// One executed (or refused) call, for the audit log.
struct AuditRecord {
  std::string tool;    // the full name as requested
  std::string server;  // "" when the name matched no server
  Json arguments;      // SanitizeForAudit'ed
  bool success = false;
  std::string error;
  double duration_ms = 0;
  size_t output_bytes = 0;
};

// Observability, injected. Both may be called from any thread.
struct ManagerHooks {
  // level: 0 info, 1 warning, 2 error.
  std::function<void(int level, std::string_view message)> log;
  std::function<void(const AuditRecord&)> audit;
};

class Manager {
 public:
  // The shortest time between two restarts of one server.
  static constexpr std::chrono::seconds kRestartInterval{1};

  // `config` as ParseConfig / LoadConfig validated it under `security`, which also resolves
  // each command to the executable that runs (ResolveCommand) and says what to warn about.
  Manager(Config config, SecurityOptions security, ManagerHooks hooks = {});
  ~Manager();  // Stop()
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  // Launches every enabled server concurrently and waits for all (each bounded by the
  // config's startup_timeout). Idempotent.
  void Start();
  // Stops every server. Idempotent; later calls fail with an error result.
  void Stop();

  const Config& config() const { return config_; }
  std::vector<ServerStatus> Servers() const;
  // The tools models may call, servers in config order, each server's tools in its order.
  std::vector<OfferedTool> Tools() const;
  // Tools() as OpenAI function tools: {"type":"function","function":{"name","description",
  // "parameters"}}, an empty schema written as {"type":"object","properties":{}}.
  Json OpenAiTools() const;
  // True when `full_name` is one of Tools().
  bool Offers(std::string_view full_name) const;

  // Calls `full_name` (<server>__<tool>) with `arguments` (an object; null means {}).
  ExecResult Execute(std::string_view full_name, const Json& arguments);

 private:
  struct Slot;
  ExecResult Refuse(std::string_view full_name, std::string_view server, const Json& arguments,
                    std::string message);
  ExecResult CallOn(Slot& slot, std::string_view full_name, std::string_view tool,
                    const Json& arguments);
  std::shared_ptr<Client> Connected(Slot& slot, std::string& error);
  Status Launch(Slot& slot);
  std::vector<OfferedTool> OfferedBy(Slot& slot) const;
  void Log(int level, const std::string& message) const;

  Config config_;
  SecurityOptions security_;
  ManagerHooks hooks_;
  struct Shared;
  std::unique_ptr<Shared> shared_;
  std::vector<std::unique_ptr<Slot>> slots_;
};

// Splits `<server>__<tool>` on its first `__`; nullopt without one.
std::optional<std::pair<std::string_view, std::string_view>> SplitToolName(
    std::string_view full_name);

// Cuts `text` to at most `max_bytes` on a UTF-8 character boundary and appends a marker
// "\n[output truncated: N of M bytes shown]"; returns whether it cut.
bool TruncateOutput(std::string& text, size_t max_bytes);

}  // namespace crux::mcp
