// `crux mcp list|call`: the operator's view of an MCP config — which servers start, which
// tools they offer after the policy, and one call through the same executor `crux serve`
// uses (policy, limits, timeout, output cap, audit line).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "crux/commands.h"
#include "crux/mcp/client.h"
#include "crux/mcp/config.h"
#include "crux/mcp/manager.h"
#include "crux/mcp/security.h"
#include "crux/mcp_support.h"
#include "crux/text/json_dump.h"
#include "crux/text/json_parse.h"

namespace crux::app {
namespace {

constexpr const char* kCruxVersion = "0.1.0";  // as `crux --version` prints

struct McpFlags {
  std::string config;
  std::string tool;
  std::string arguments = "{}";
  std::string url;
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

// ---- `crux mcp conformance URL`: the client side of @modelcontextprotocol/conformance. ----
//
// The harness starts a mock server for one scenario, runs this command with the server's URL
// appended, and sets MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_PROTOCOL_VERSION, and for
// some scenarios MCP_CONFORMANCE_CONTEXT). The driver does what an MCP host does: connects over
// Streamable HTTP (era probing unless the harness names a version), lists the tools, lists and
// reads resources and prompts the server offers, and calls tools:
//   - the calls the context lists (`toolCalls: [{name, arguments}]`), when it lists some;
//   - else the calls the scenario's documentation asks for (kDocumentedCalls);
//   - else every listed tool once, with arguments built from its inputSchema (defaults, the
//     first enum value, or a value of the declared type for each required property).
// Elicitations are answered as a non-interactive host would: accept with the schema's
// defaults, decline when a required field has none. Exit 0 when every step succeeded.

// A value for one schema property: its default, its first enum value, or a value of its type.
nlohmann::ordered_json SampleValue(const nlohmann::ordered_json& schema) {
  if (!schema.is_object()) return "x";
  if (auto it = schema.find("default"); it != schema.end()) return *it;
  if (auto it = schema.find("enum"); it != schema.end() && it->is_array() && !it->empty()) {
    return it->front();
  }
  const std::string type = schema.value("type", std::string("string"));
  if (type == "integer" || type == "number") return 1;
  if (type == "boolean") return true;
  if (type == "object") return nlohmann::ordered_json::object();
  if (type == "array") return nlohmann::ordered_json::array();
  if (type == "null") return nullptr;
  return "x";
}

// Arguments for a tool: a sample value for each required property.
nlohmann::ordered_json SampleArguments(const nlohmann::ordered_json& schema) {
  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();
  const auto required = schema.find("required");
  const auto properties = schema.find("properties");
  if (required == schema.end() || !required->is_array()) return arguments;
  for (const auto& name : *required) {
    if (!name.is_string()) continue;
    const std::string key = name.get<std::string>();
    const bool known =
        properties != schema.end() && properties->is_object() && properties->contains(key);
    arguments[key] = SampleValue(known ? (*properties)[key] : nlohmann::ordered_json());
  }
  return arguments;
}

// Accepts with every default of the requested schema; declines when a required field has none.
Expected<nlohmann::ordered_json> AnswerWithDefaults(const nlohmann::ordered_json& params) {
  using Json = nlohmann::ordered_json;
  const Json schema = params.value("requestedSchema", Json::object());
  const Json properties = schema.is_object() ? schema.value("properties", Json::object()) : Json();
  const Json required = schema.is_object() ? schema.value("required", Json::array()) : Json();
  Json content = Json::object();
  if (properties.is_object()) {
    for (const auto& [name, property] : properties.items()) {
      if (property.is_object() && property.contains("default")) content[name] = property["default"];
    }
  }
  if (required.is_array()) {
    for (const Json& name : required) {
      if (name.is_string() && !content.contains(name.get<std::string>())) {
        return Json{{"action", "decline"}};
      }
    }
  }
  return Json{{"action", "accept"}, {"content", std::move(content)}};
}

struct PlannedCall {
  std::string tool;
  nlohmann::ordered_json arguments;
  // A call the driver chose itself, with guessed arguments: the server refusing it (a JSON-RPC
  // error or an isError result) is its answer, not the client's failure.
  bool exploratory = false;
};

// The calls a scenario's documentation asks for, by scenario name.
std::vector<PlannedCall> DocumentedCalls(std::string_view scenario, const mcp::Client& client) {
  if (scenario == "tools_call") return {{"add_numbers", {{"a", 5}, {"b", 3}}, false}};
  if (scenario == "json-schema-2020-12-preservation") {
    // "Round-trip the focal tool's inputSchema back via tools/call on json_schema_echo."
    const auto tools = client.Tools();
    for (const mcp::ToolInfo& tool : *tools) {
      if (tool.name == "json_schema_2020_12_tool") {
        return {{"json_schema_echo", {{"schema", tool.input_schema}}, false}};
      }
    }
  }
  return {};
}

std::vector<PlannedCall> PlanCalls(std::string_view scenario, const mcp::Client& client) {
  std::vector<PlannedCall> calls;
  if (const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT")) {
    auto parsed = text::ParseJson<nlohmann::ordered_json>(context);
    if (parsed.ok() && parsed->is_object() && parsed->contains("toolCalls")) {
      for (const auto& call : (*parsed)["toolCalls"]) {
        calls.push_back({call.value("name", std::string()),
                         call.value("arguments", nlohmann::ordered_json::object()), false});
      }
      return calls;
    }
  }
  calls = DocumentedCalls(scenario, client);
  if (!calls.empty()) return calls;
  const auto tools = client.Tools();
  for (const mcp::ToolInfo& tool : *tools) {
    calls.push_back({tool.name, SampleArguments(tool.input_schema), true});
  }
  return calls;
}

// resources/list and prompts/list when offered, then reads the first resource and gets the
// first prompt; true when all of it succeeded.
bool BrowseServer(mcp::Client& client) {
  constexpr std::chrono::seconds kTimeout{10};
  const auto& capabilities = client.server_info().capabilities;
  bool ok = true;
  if (capabilities.contains("resources")) {
    auto listed = client.Request("resources/list", nlohmann::ordered_json::object(), kTimeout);
    ok = ok && listed.ok();
    if (listed.ok() && listed->contains("resources") && !(*listed)["resources"].empty()) {
      const auto& first = (*listed)["resources"].front();
      ok = client.Request("resources/read", {{"uri", first.value("uri", "")}}, kTimeout).ok() && ok;
    }
  }
  if (capabilities.contains("prompts")) {
    auto listed = client.Request("prompts/list", nlohmann::ordered_json::object(), kTimeout);
    ok = ok && listed.ok();
    if (listed.ok() && listed->contains("prompts") && !(*listed)["prompts"].empty()) {
      const auto& first = (*listed)["prompts"].front();
      ok = client.Request("prompts/get", {{"name", first.value("name", "")}}, kTimeout).ok() && ok;
    }
  }
  return ok;
}

int RunConformance(const std::string& url) {
  const char* scenario_env = std::getenv("MCP_CONFORMANCE_SCENARIO");
  const std::string scenario = scenario_env != nullptr ? scenario_env : "";
  mcp::ClientOptions options;
  options.server_name = "conformance";
  options.client_name = "crux";
  options.client_version = kCruxVersion;
  if (const char* version = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION")) {
    options.protocol_version = version;
  }
  options.on_elicitation = AnswerWithDefaults;
  options.on_log = [](std::string_view line) { std::cerr << line << "\n"; };
  auto client = mcp::Client::Connect(mcp::HttpSpec{url, {}}, std::move(options));
  if (!client.ok()) {
    std::cerr << "error: " << client.error().message() << "\n";
    return 1;
  }
  const mcp::ServerInfo& info = (*client)->server_info();
  std::cerr << "scenario " << scenario << ": " << info.name << " " << info.version << ", "
            << mcp::ProtocolEraName(info.era) << " era, protocol " << info.protocol_version << ", "
            << (*client)->Tools()->size() << " tools\n";
  bool ok = BrowseServer(**client);
  for (const PlannedCall& call : PlanCalls(scenario, **client)) {
    auto result = (*client)->CallTool(call.tool, call.arguments, std::chrono::seconds(20));
    std::cerr << "call " << call.tool << ": "
              << (result.ok() ? mcp::ContentToText(*result) : result.error().message()) << "\n";
    const bool answered = result.ok() || result.error().tag() == mcp::kServerErrorTag;
    ok = ok && (call.exploratory ? answered : result.ok() && !result->is_error);
  }
  (*client)->Stop();
  return ok ? 0 : 1;
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
  CLI::App* conformance = cmd->add_subcommand(
      "conformance",
      "Client driver for @modelcontextprotocol/conformance: connect to URL over Streamable HTTP, "
      "run the scenario named by MCP_CONFORMANCE_SCENARIO, exit 0 on success");
  conformance->group("");  // a test tool: kept out of the help summary
  conformance->add_option("url", flags->url, "The scenario server's URL")->required();
  conformance->callback([flags, &run] { run = [flags] { return RunConformance(flags->url); }; });
}

}  // namespace crux::app
