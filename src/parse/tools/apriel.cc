// apriel: ServiceNow Apriel 1.5 / 1.6 Thinker. All calls of a turn are one JSON list between
// `<tool_calls>` and `</tool_calls>`:
//   <tool_calls>[{"name": "get_weather", "arguments": {"city": "Oslo"}}, …]</tool_calls>
// (templates unsloth-Apriel-1.5, Apriel-1.6-15b-Thinker). The "id" key the templates write for
// past calls is ignored; ids are generated. The 1.5 system prompt also names the singular
// `<tool_call></tool_call>` tags, so those are accepted too, with a list or a single object.
// `[BEGIN FINAL RESPONSE]` and the reasoning are the reasoning parser's business.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
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

const ToolParserInfo& AprielToolFormat() {
  static const CallGrammar grammar = EnvelopeList("<tool_calls>[", "]</tool_calls>");

  static const ToolParserInfo format{
      .name = "apriel",
      // AI21 Jamba 1.5 and Hunyuan-A13B write the same `<tool_calls>[…]</tool_calls>` list.
      .aliases = {"apriel15", "apriel16", "jamba", "hunyuan_a13b"},
      .models = "ServiceNow Apriel 1.5 / 1.6 Thinker, AI21 Jamba, Tencent Hunyuan-A13B",
      .format = "<tool_calls>[{\"name\": …, \"arguments\": {…}}]</tool_calls>",
      .create = MakeAprielParser,
      .grammar = &grammar,
      .detect_markers = {"<tool_calls>"},
      .template_needles = {{260, "<tool_calls>", "<|begin_assistant|>"},
                           {270, "<tool_calls>", "<|assistant|>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
