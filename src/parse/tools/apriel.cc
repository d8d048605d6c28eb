// apriel: ServiceNow Apriel 1.5 / 1.6 Thinker. All calls of a turn are one JSON list between
// `<tool_calls>` and `</tool_calls>`:
//   <tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, …]</tool_calls>
// (templates unsloth-Apriel-1.5, Apriel-1.6-15b-Thinker). The "id" key the templates write for
// past calls is ignored; ids are generated. The 1.5 system prompt also names the singular
// `<tool_call></tool_call>` tags, so those are accepted too, with a list or a single object.
// `[BEGIN FINAL RESPONSE]` and the reasoning are the reasoning parser's business.
#include <memory>

#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& AprielFormat() {
  static const text::MarkerSet outside{"<tool_calls>", "<tool_call>"};
  static const text::MarkerSet end{"</tool_calls>", "</tool_call>"};
  static const ListFormat format{&outside, 2, &end, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeAprielParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, AprielFormat());
}

std::string RenderApriel(const std::vector<ToolCall>& calls) {
  return "<tool_calls>" + RenderJsonList(calls, "name", "arguments") + "</tool_calls>";
}

}  // namespace crux::parse::tools
