#include "server/mcp_endpoints.h"

#include <algorithm>
#include <thread>

#include "crux/parse/tool_spec.h"
#include "crux/text/json_dump.h"
#include "crux/text/json_parse.h"

namespace crux::server {
namespace {

using Json = mcp::Json;

// Limits for an execute body: tool arguments are small; bound them as request bodies are.
constexpr text::JsonParseLimits kLimits{.max_depth = 128, .max_object_members = 1024};

}  // namespace

std::string McpToolsBody(const mcp::Manager* manager) {
  Json tools = Json::array();
  if (manager != nullptr) {
    for (const mcp::OfferedTool& tool : manager->Tools()) {
      tools.push_back({{"name", tool.full_name},
                       {"description", tool.info.description},
                       {"server", tool.server},
                       {"parameters", tool.info.input_schema}});
    }
  }
  const size_t count = tools.size();
  return text::JsonDump(Json{{"tools", std::move(tools)}, {"count", count}});
}

std::string McpServersBody(const mcp::Manager* manager) {
  Json servers = Json::array();
  if (manager != nullptr) {
    for (const mcp::ServerStatus& s : manager->Servers()) {
      servers.push_back({{"name", s.name},
                         {"state", mcp::ServerStateName(s.state)},
                         {"transport", mcp::TransportName(s.transport)},
                         {"tools_count", s.tools},
                         {"error", s.error.empty() ? Json() : Json(s.error)},
                         {"server_name", s.server_name},
                         {"server_version", s.server_version},
                         {"protocol_version", s.protocol_version}});
    }
  }
  return text::JsonDump(Json{{"servers", std::move(servers)}});
}

std::string McpHealthJson(const mcp::Manager* manager) {
  if (manager == nullptr) return "null";
  size_t connected = 0;
  size_t total = 0;
  for (const mcp::ServerStatus& s : manager->Servers()) {
    if (s.state == mcp::ServerState::kDisabled) continue;
    ++total;
    if (s.state == mcp::ServerState::kConnected) ++connected;
  }
  return text::JsonDump(Json{{"enabled", true},
                             {"servers_connected", connected},
                             {"servers_total", total},
                             {"tools_available", manager->Tools().size()}});
}

Expected<McpCall> DecodeMcpCall(std::string_view body) {
  Expected<Json> doc = text::ParseJson<Json>(body, kLimits);
  if (!doc.ok()) {
    return Error(
        doc.error().code() == ErrorCode::kParse ? ErrorCode::kParse : ErrorCode::kInvalidArgument,
        "request body: " + doc.error().message());
  }
  if (!doc->is_object())
    return Error(ErrorCode::kInvalidArgument, "request body must be a JSON object");
  McpCall call;
  const Json* name = doc->contains("tool_name") ? &(*doc)["tool_name"]
                     : doc->contains("name")    ? &(*doc)["name"]
                                                : nullptr;
  if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 "tool_name is required: a string naming the tool as <server>__<tool>");
  }
  call.tool_name = name->get<std::string>();
  call.arguments = Json::object();
  if (const auto it = doc->find("arguments"); it != doc->end() && !it->is_null()) {
    if (it->is_string()) {
      Expected<Json> parsed = text::ParseJson<Json>(it->get_ref<const std::string&>(), kLimits);
      if (!parsed.ok() || !parsed->is_object()) {
        return Error(ErrorCode::kInvalidArgument,
                     "arguments must be a JSON object (or a string holding one)");
      }
      call.arguments = std::move(*parsed);
    } else if (it->is_object()) {
      call.arguments = *it;
    } else {
      return Error(ErrorCode::kInvalidArgument,
                   "arguments must be a JSON object (or a string holding one)");
    }
  }
  return call;
}

std::string McpExecuteBody(const McpCall& call, const mcp::ExecResult& result) {
  Json body{{"tool_name", call.tool_name},
            {"content", result.text},
            {"is_error", result.is_error},
            {"error_message", result.is_error ? Json(result.text) : Json()},
            {"truncated", result.truncated},
            {"duration_ms", result.duration_ms}};
  if (result.structured_content) body["structured_content"] = *result.structured_content;
  return text::JsonDump(body);
}

Status AddMcpTools(const mcp::Manager& manager, protocol::ChatRequest& request) {
  const std::vector<mcp::OfferedTool> offered = manager.Tools();
  const std::vector<std::string>& wanted = *request.mcp_tools;
  for (const std::string& name : wanted) {
    const bool known = std::any_of(offered.begin(), offered.end(), [&](const auto& tool) {
      return tool.server == name || tool.full_name == name;
    });
    if (!known) {
      return Error(ErrorCode::kInvalidArgument,
                   "mcp_tools names '" + name +
                       "', which is no MCP server or tool this server offers (GET /v1/mcp/tools "
                       "lists them)");
    }
  }
  for (const mcp::OfferedTool& tool : offered) {
    const bool chosen =
        wanted.empty() || std::any_of(wanted.begin(), wanted.end(), [&](const auto& w) {
          return w == tool.server || w == tool.full_name;
        });
    if (!chosen) continue;
    if (parse::FindTool(request.tools, tool.full_name) != nullptr) {
      return Error(ErrorCode::kInvalidArgument,
                   "tools declares '" + tool.full_name + "', the name of an MCP tool in mcp_tools");
    }
    auto spec = parse::MakeToolSpec(tool.full_name, tool.info.description,
                                    text::JsonDump(tool.info.input_schema));
    if (!spec.ok()) return spec.error();
    request.tools.push_back(std::move(*spec));
    request.mcp_tool_names.push_back(tool.full_name);
  }
  if (request.tool_choice.mode == protocol::ToolChoiceMode::kRequired && request.tools.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 "tool_choice requires a tool call, but neither tools nor mcp_tools name any tool");
  }
  return Status();
}

namespace {

protocol::ExecutedToolCall ExecuteMcpCall(mcp::Manager& manager, const parse::ToolCall& call) {
  protocol::ExecutedToolCall result;
  result.id = call.id;
  result.arguments = call.arguments;
  if (const auto split = mcp::SplitToolName(call.name)) {
    result.server = std::string(split->first);
    result.tool = std::string(split->second);
  }
  Expected<Json> arguments =
      text::ParseJson<Json>(call.arguments.empty() ? "{}" : call.arguments, kLimits);
  if (!arguments.ok() || !arguments->is_object()) {
    result.is_error = true;
    result.output = "the arguments of " + call.name + " are not a JSON object";
    return result;
  }
  mcp::ExecResult executed = manager.Execute(call.name, *arguments);
  result.output = std::move(executed.text);
  result.is_error = executed.is_error;
  result.duration_ms = executed.duration_ms;
  return result;
}

}  // namespace

std::vector<protocol::ExecutedToolCall> ExecuteMcpCalls(mcp::Manager& manager,
                                                        const std::vector<parse::ToolCall>& calls) {
  std::vector<protocol::ExecutedToolCall> results(calls.size());
  if (calls.size() == 1) {
    results[0] = ExecuteMcpCall(manager, calls[0]);
    return results;
  }
  // A round's calls run at once; the manager's limits bound how many reach a server.
  std::vector<std::thread> threads;
  threads.reserve(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = ExecuteMcpCall(manager, calls[i]); });
  }
  for (std::thread& thread : threads)
    thread.join();
  return results;
}

}  // namespace crux::server
