// `crux mcp list|call`: the operator's view of an MCP config — which servers start, which
// tools they offer after the policy, and one call through the same executor `crux serve`
// uses (policy, limits, timeout, output cap, audit line).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "crux/commands.h"
#include "crux/mcp/config.h"
#include "crux/mcp/manager.h"
#include "crux/mcp/security.h"
#include "crux/mcp_support.h"
#include "crux/text/json_dump.h"
#include "crux/text/json_parse.h"

namespace crux::app {
namespace {

struct McpFlags {
  std::string config;
  std::string tool;
  std::string arguments = "{}";
  bool json = false;
};

mcp::ManagerHooks LoggingHooks() {
  mcp::ManagerHooks hooks;
  hooks.log = [](int level, std::string_view message) {
    const auto spd_level = level >= 2   ? spdlog::level::err
                           : level == 1 ? spdlog::level::warn
                                        : spdlog::level::info;
    spdlog::log(spd_level, "{}", message);
  };
  hooks.audit = [](const mcp::AuditRecord& record) {
    spdlog::info("mcp call {} ok={} {:.1f} ms {} bytes args={}{}", record.tool, record.success,
                 record.duration_ms, record.output_bytes, text::JsonDump(record.arguments),
                 record.error.empty() ? "" : " error=" + record.error);
  };
  return hooks;
}

// Sets up logging, then StartMcpManager; nullptr after printing the error.
std::shared_ptr<mcp::Manager> StartManager(const McpFlags& flags) {
  spdlog::set_default_logger(spdlog::stderr_color_mt("crux"));
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  Expected<std::shared_ptr<mcp::Manager>> manager = StartMcpManager(flags.config);
  if (!manager.ok()) {
    std::cerr << "error: " << manager.error().message() << "\n";
    return nullptr;
  }
  return *manager;
}

nlohmann::ordered_json ServersJson(const mcp::Manager& manager) {
  nlohmann::ordered_json servers = nlohmann::ordered_json::array();
  for (const mcp::ServerStatus& s : manager.Servers()) {
    servers.push_back({{"name", s.name},
                       {"transport", mcp::TransportName(s.transport)},
                       {"state", mcp::ServerStateName(s.state)},
                       {"tools", s.tools},
                       {"server", s.server_name},
                       {"version", s.server_version},
                       {"protocol_version", s.protocol_version},
                       {"error", s.error}});
  }
  return servers;
}

std::string FirstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

int RunList(const McpFlags& flags) {
  std::shared_ptr<mcp::Manager> manager = StartManager(flags);
  if (!manager) return 2;
  int failed = 0;
  if (flags.json) {
    std::cout << text::JsonDump(nlohmann::ordered_json{{"servers", ServersJson(*manager)},
                                                       {"tools", manager->OpenAiTools()}})
              << "\n";
  }
  for (const mcp::ServerStatus& s : manager->Servers()) {
    if (s.state == mcp::ServerState::kFailed) ++failed;
    if (flags.json) continue;
    std::cout << s.name << "  " << mcp::ServerStateName(s.state);
    if (!s.server_name.empty()) std::cout << "  " << s.server_name << " " << s.server_version;
    if (!s.error.empty()) std::cout << "  " << s.error;
    std::cout << "\n";
  }
  if (!flags.json) {
    for (const mcp::OfferedTool& tool : manager->Tools()) {
      std::cout << "  " << tool.full_name << "  " << FirstLine(tool.info.description) << "\n";
    }
  }
  return failed == 0 ? 0 : 1;
}

int RunCall(const McpFlags& flags) {
  Expected<nlohmann::ordered_json> arguments =
      text::ParseJson<nlohmann::ordered_json>(flags.arguments);
  if (!arguments.ok() || !arguments->is_object()) {
    std::cerr << "error: the arguments must be a JSON object"
              << (arguments.ok() ? "" : ": " + arguments.error().message()) << "\n";
    return 2;
  }
  std::shared_ptr<mcp::Manager> manager = StartManager(flags);
  if (!manager) return 2;
  const mcp::ExecResult result = manager->Execute(flags.tool, *arguments);
  if (flags.json) {
    nlohmann::ordered_json out{{"tool_name", flags.tool},
                               {"content", result.text},
                               {"is_error", result.is_error},
                               {"truncated", result.truncated},
                               {"duration_ms", result.duration_ms}};
    if (result.structured_content) out["structured_content"] = *result.structured_content;
    std::cout << text::JsonDump(out) << "\n";
  } else {
    std::cout << result.text << "\n";
  }
  return result.is_error ? 1 : 0;
}

}  // namespace

Expected<std::shared_ptr<mcp::Manager>> StartMcpManager(const std::string& config_path) {
  const mcp::SecurityOptions security = mcp::SecurityOptionsFromEnv();
  if (security.allow_unsafe) {
    spdlog::warn("{}=1: MCP launch security checks are OFF (development only)",
                 mcp::kAllowUnsafeEnv);
  }
  Expected<mcp::Config> config = mcp::LoadConfig(config_path, security);
  if (!config.ok()) return config.error().WithContext("--mcp-config " + config_path);
  auto manager = std::make_shared<mcp::Manager>(std::move(*config), security, LoggingHooks());
  manager->Start();
  return manager;
}

void AddMcpCommand(CLI::App& app, std::function<int()>& run) {
  CLI::App* cmd = app.add_subcommand("mcp", "List and call the tools of MCP servers");
  cmd->require_subcommand(1);
  auto flags = std::make_shared<McpFlags>();
  const auto add_common = [&](CLI::App* sub) {
    sub->add_option("--config", flags->config, "The MCP config file (docs/mcp.md)")->required();
    sub->add_flag("--json", flags->json, "Print JSON");
  };
  CLI::App* list = cmd->add_subcommand(
      "list", "Start every enabled server; print each one's state and the tools it offers");
  add_common(list);
  list->callback([flags, &run] { run = [flags] { return RunList(*flags); }; });
  CLI::App* call = cmd->add_subcommand(
      "call", "Call one tool through the executor (policy, limits, timeout, output cap)");
  add_common(call);
  call->add_option("tool", flags->tool, "The tool: <server>__<tool>")->required();
  call->add_option("arguments", flags->arguments, "Its arguments: a JSON object (default {})");
  call->callback([flags, &run] { run = [flags] { return RunCall(*flags); }; });
}

}  // namespace crux::app
