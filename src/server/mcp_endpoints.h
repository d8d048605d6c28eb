// The bodies of the MCP endpoints: GET /v1/mcp/tools, GET /v1/mcp/servers, POST
// /v1/mcp/execute and the "mcp" member of /health. Shapes follow vllm-mlx's endpoints (see
// docs/mcp.md), so its clients work unchanged.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/mcp/manager.h"
#include "crux/parse/result.h"
#include "crux/protocol/codec.h"
#include "crux/protocol/request.h"

namespace crux::server {

// {"tools":[{"name","description","server","parameters"}],"count":n}; `manager` may be null
// (MCP off: no tools).
std::string McpToolsBody(const mcp::Manager* manager);

// {"servers":[{"name","state","transport","tools_count","error","server_name",
// "server_version","protocol_version"}]}.
std::string McpServersBody(const mcp::Manager* manager);

// The "mcp" member of /health: {"enabled":true,"servers_connected","servers_total",
// "tools_available"}, or null when MCP is off.
std::string McpHealthJson(const mcp::Manager* manager);

// A decoded POST /v1/mcp/execute body: {"tool_name": "<server>__<tool>", "arguments": {…}}
// ("name" is accepted for tool_name; arguments default to {} and may be a JSON string).
struct McpCall {
  std::string tool_name;
  mcp::Json arguments;
};
// kParse / kInvalidArgument naming the field.
Expected<McpCall> DecodeMcpCall(std::string_view body);

// {"tool_name","content","is_error","error_message","truncated","duration_ms",
// "structured_content"?}.
std::string McpExecuteBody(const McpCall& call, const mcp::ExecResult& result);

// The tool loop, before the pipeline: adds the MCP tools `request.mcp_tools` asks for (all
// offered ones, or those of the named servers / the named tools) to request.tools as
// function tools and lists their names in request.mcp_tool_names. kInvalidArgument for a
// name that matches no offered server or tool, or a client tool of the same name.
Status AddMcpTools(const mcp::Manager& manager, protocol::ChatRequest& request);

// Runs a round's calls to MCP tools at once (one thread each; the manager's concurrency limits
// apply) through the manager (policy, limits, timeouts, output cap, audit); results in the
// calls' order. A call whose arguments are not a
// JSON object gets an error result.
std::vector<protocol::ExecutedToolCall> ExecuteMcpCalls(mcp::Manager& manager,
                                                        const std::vector<parse::ToolCall>& calls);

}  // namespace crux::server
