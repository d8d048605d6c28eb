// apertus: Swiss AI Apertus (8B / 70B Instruct). Calls are one JSON list between
// `<|tools_prefix|>` and `<|tools_suffix|>`, each element an object whose only key is the
// function name (template Apertus-8B-Instruct):
//   <|tools_prefix|>[{"get_weather": {"city": "Oslo"}}, {"get_time": {}}]<|tools_suffix|>
// An element with more than one key is malformed (returned as content). Reasoning
// (`<|inner_prefix|>` … `<|inner_suffix|>`) belongs to the reasoning parser.
#include <memory>

#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& ApertusFormat() {
  static const text::MarkerSet outside{"<|tools_prefix|>"};
  static const text::MarkerSet end{"<|tools_suffix|>"};
  static const ListFormat format{&outside, 1, &end, CallKeys{CallShape::kFunctionIsKey}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeApertusParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, ApertusFormat());
}

std::string RenderApertus(const std::vector<ToolCall>& calls) {
  std::string out = "<|tools_prefix|>[";
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i > 0) out += ", ";
    out += "{";
    text::AppendJsonString(out, calls[i].name);
    out += ": " + calls[i].arguments + "}";
  }
  out += "]<|tools_suffix|>";
  return out;
}

}  // namespace crux::parse::tools
