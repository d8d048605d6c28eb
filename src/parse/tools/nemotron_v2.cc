// nemotron_v2: NVIDIA Nemotron Nano v2 (9B / 12B). All calls of a turn are one JSON list
// between `<TOOLCALL>` and `</TOOLCALL>` (template NVIDIA-Nemotron-Nano-v2):
//   <TOOLCALL>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]</TOOLCALL>
// Arguments written as a JSON string holding an object are decoded. Not to be confused with
// `nemotron` (Nemotron 3, XML parameters), which is another family.
#include <memory>

#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& NemotronV2Format() {
  static const text::MarkerSet outside{"<TOOLCALL>"};
  static const text::MarkerSet end{"</TOOLCALL>"};
  static const ListFormat format{&outside, 1, &end, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeNemotronV2Parser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, NemotronV2Format());
}

std::string RenderNemotronV2(const std::vector<ToolCall>& calls) {
  return "<TOOLCALL>" + RenderJsonList(calls, "name", "arguments") + "</TOOLCALL>";
}

}  // namespace crux::parse::tools
