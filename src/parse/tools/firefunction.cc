// firefunction_v2: Fireworks FireFunction v2 (Llama 3 based). Calls are one JSON list after
// the plain-text marker `functools` with no closing marker (template
// fireworks-ai-llama-3-firefunction-v2):
//   I will check. functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]
// The marker is matched as `functools[` so that prose about Python's functools module stays
// text. Text after the list is content.
#include <memory>

#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& FirefunctionFormat() {
  static const text::MarkerSet outside{"functools["};
  static const ListFormat format{&outside, 1, nullptr, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeFirefunctionParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, FirefunctionFormat());
}

std::string RenderFirefunction(const std::vector<ToolCall>& calls) {
  return " functools" + RenderJsonList(calls, "name", "arguments");
}

}  // namespace crux::parse::tools
