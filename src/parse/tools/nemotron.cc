// nemotron / nemotron3: Nemotron 3 (Qwen3-Coder layout, always wrapped)
//   <tool_call>\n<function=f>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>
// or a JSON object body `<tool_call><function=f>{…}</function></tool_call>`.
// Values are stripped, typed by the schema; untyped values are JSON when they parse, else the
// text (no Python literals: `True` stays "True").
// Deviations: `<function=f></function>` is a call with `{}` (the reference drops it); a body
// that is neither parameters nor a JSON object is returned as content instead of becoming raw
// arguments (arguments are always a JSON object).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<tool_call>",
      .container_close = "</tool_call>",
      .container_calls = {&kFunctionSyntax},
      .values = {ValueTrim::kStrip, Untyped::kJson},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeNemotronParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& NemotronToolFormat() {
  static const CallGrammar grammar = FunctionXml(
      "<tool_call>", "</tool_call>", /*value_newlines=*/true, CallGrammar::Values::kPythonScalars);

  static const ToolParserInfo format{
      .name = "nemotron",
      .aliases = {"nemotron3"},
      .models = "NVIDIA Nemotron 3 (Nano)",
      .format = "<tool_call><function=f><parameter=k>v</parameter></function></tool_call>",
      .create = tags::MakeNemotronParser,
      .grammar = &grammar,
      .template_needles = {{310, "truncate_history_thinking", "<parameter="}},
      // Its models also write this block inside reasoning (promoted to the answer).
      .promoted_blocks = {{"<tool_call>", "</tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
