// granite / granite3: IBM Granite 3.x. The model answers with `<|tool_call|>` followed by a
// JSON list of calls, with no closing marker (template ibm-granite-granite-3.3-2B-Instruct):
//   <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Oslo"}}]
// `<tool_call>` is accepted as the start marker too, with an optional `</tool_call>` after
// the list, and there a single object is one call (the shape Granite 4 writes).
// Deviations from the reference: text before the marker is content and does not disable
// parsing; text after the list is content (the reference returns null content).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& GraniteFormat() {
  static const text::MarkerSet outside{"<|tool_call|>", "<tool_call>"};
  static const text::MarkerSet end{"</tool_call>"};
  static const ListFormat format{&outside, 2, &end, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeGraniteParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, GraniteFormat());
}

const ToolParserInfo& GraniteToolFormat() {
  static const CallGrammar grammar = EnvelopeList("<|tool_call|>[", "]");

  static const ToolParserInfo format{
      .name = "granite",
      .aliases = {"granite3", "granite4"},
      .models = "IBM Granite 3.x",
      .format = "<|tool_call|>[{\"name\": …, \"arguments\": {…}}]",
      .create = MakeGraniteParser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_call|>"},
      .template_needles = {{160, "<|tool_call|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
