// The Responses `Response` object and its output items, shared by the stream encoder (its
// lifecycle events carry the object) and the non-streaming body. Internal to crux_protocol.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/events.h"
#include "crux/protocol/codec.h"
#include "crux/text/ids.h"
#include "protocol/json.h"

namespace crux::protocol::internal {

// One output item as an encoder tracks it.
struct OutputItem {
  enum class Type { kReasoning, kMessage, kFunctionCall, kMcpCall };
  Type type = Type::kMessage;
  std::string id;                      // rs_…, msg_…, fc_…
  std::string status = "in_progress";  // in_progress | completed | incomplete
  bool summary = false;                // a reasoning item whose text is its summary
  std::string text;                    // reasoning or message text
  std::string call_id;                 // function calls
  std::string name;                    // function and MCP calls (an MCP call: the tool's name)
  std::string arguments;
  std::string server;  // MCP calls: the server (server_label)
  std::string output;  // MCP calls: the result, or the error when is_error
  bool is_error = false;
};

// The mcp_call item of a tool call the server ran.
OutputItem McpCallItem(const ExecutedToolCall& call, std::string id);

// The item as JSON; `with_parts` false gives the empty `content` of output_item.added.
Json ItemJson(const OutputItem& item, bool with_parts = true);

// The content part of a reasoning or message item holding `text`.
Json PartJson(const OutputItem& item, std::string_view text);

// A Response with the request's echoed fields, `status`, `output: []`, `usage: null` and
// `output_text: ""`.
Json BaseResponse(const ChatRequest& request, const ResponseMeta& meta);

// Fills `output` (from `items`, leaving out incomplete function calls), `output_text` and
// `usage` of a terminal Response.
void SetOutput(Json& response, const std::vector<OutputItem>& items);
Json UsageJson(const parse::Usage& usage);

// A new item id: `prefix` + 32 hex digits from `ids`.
std::string ItemId(std::string_view prefix, text::IdGenerator& ids);

}  // namespace crux::protocol::internal
