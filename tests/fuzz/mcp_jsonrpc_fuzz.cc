// One line from an MCP peer through the JSON-RPC decoder: no crash, no sanitizer report; every
// rejection carries a message; every accepted message encodes to one line (no newline) that
// decodes to a message encoding the same way (the canonical form is a fixed point); a
// response's content blocks render with ContentToText whatever their shape.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

#include "crux/mcp/client.h"
#include "crux/mcp/jsonrpc.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

void RenderContent(const crux::mcp::Json& result) {
  if (!result.is_object()) return;
  crux::mcp::ToolResult tool_result;
  if (const auto content = result.find("content"); content != result.end() && content->is_array()) {
    tool_result.content.assign(content->begin(), content->end());
  }
  if (const auto structured = result.find("structuredContent"); structured != result.end()) {
    tool_result.structured_content = *structured;
  }
  (void)crux::mcp::ContentToText(tool_result);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  auto message = crux::mcp::DecodeMessage(line);
  if (!message.ok()) {
    Check(!message.error().message().empty());
    return 0;
  }
  const std::string encoded = crux::mcp::EncodeMessage(*message);
  Check(encoded.find('\n') == std::string::npos && encoded.find('\r') == std::string::npos);
  auto again = crux::mcp::DecodeMessage(encoded);
  Check(again.ok() && again->index() == message->index());
  Check(crux::mcp::EncodeMessage(*again) == encoded);
  if (const auto* response = std::get_if<crux::mcp::Response>(&*message)) {
    RenderContent(response->result);
    (void)crux::mcp::RequestIdText(response->id);
  }
  return 0;
}
