// qwen3_xml / qwen3.5 / qwen3_coder: Qwen3-Coder / Qwen3.5 XML calls
//   <tool_call>\n<function=f>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>
// One leading and one trailing "\n" of a value are layout and dropped; the rest is verbatim.
// Values are typed by the tool's schema (integers, numbers, booleans parsed; objects and arrays
// as JSON, else Python literals); untyped parameters are strings, streamed as they arrive.
// Missing `</parameter>` / `</function>` are implied by the next `<parameter=`, `</function>`
// or `</tool_call>`. A bare `<function=f>` (no wrapper) is a call only once `<parameter=`,
// `{` or `</function>` follows; otherwise it is prose and given back verbatim.
// Deviations (reference quirks fixed): content between and after calls is kept and trimmed;
// unparsable integers stay strings; a `null` string value stays "null"; repeated keys keep
// the first value.
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
      .container_calls = {&kFunctionAutoCloseSyntax},
      .bare_calls = {&kFunctionAutoCloseSyntax},
      .values = {ValueTrim::kOneNewline, Untyped::kString},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeQwen3XmlParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Qwen3XmlToolFormat() {
  static const CallGrammar grammar = FunctionXml(
      "<tool_call>", "</tool_call>", /*value_newlines=*/true, CallGrammar::Values::kPythonScalars);

  static const ToolParserInfo format{
      .name = "qwen3_xml",
      .aliases = {"qwen3.5", "qwen3_coder", "mimo", "mimov2_flash", "iquest_coder"},
      .models = "Qwen3-Coder, Qwen3.5, Xiaomi MiMo (MiMo-V2-Flash), IQuest Coder",
      .format = "<tool_call><function=f><parameter=k>\\nv\\n</parameter></function></tool_call>",
      .create = tags::MakeQwen3XmlParser,
      .grammar = &grammar,
      .detect_markers = {"<tool_call>", "<function="},
      .template_needles = {{330, "<function=", "<parameter="}},
      // Its models also write this block inside reasoning (promoted to the answer).
      .promoted_blocks = {{"<tool_call>", "</tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
