// step3p5 / step: the qwen parser on Step-3.5's layout
//   <tool_call>\n<function=f>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>
// (one leading and one trailing newline of a string value are the template's layout and
// dropped, `\nAustin\n` → "Austin"; the rest is verbatim, so indented code keeps its indent;
// other values are stripped and typed), plus Step's rule that a call repeating the
// previous call exactly is dropped (`a, a, a` → `a`; `a, b, a` stays three calls).
// Streaming the collapse: a call whose name equals the previous call's is held back only while
// its arguments are still a prefix of the previous call's arguments; the first differing byte
// releases it (begin + what was held) and it streams on. So no call is ever retracted, and
// duplicates cost only their own length in delay. Equality is on the arguments text crux emits
// (keys in source order), so the same arguments in another key order are not collapsed.
// Generation usually stops at `</tool_call>` (a stop string): a call whose `</function>` came
// is complete without it. As for Qwen3-Coder, a missing `</parameter>` / `</function>` is
// implied by the next `<parameter=`, `</function>` or `</tool_call>`, so a forgotten closing
// tag never swallows the next parameter.
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
      .container_json = true,
      .container_calls = {&kFunctionAutoCloseSyntax},
      .bare_calls = {&kFunctionAutoCloseSyntax},
      .bracket = true,
      .values = {ValueTrim::kOneNewline, Untyped::kJsonOrPython},
      .dedup_consecutive = true,
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeStep3p5Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Step3p5ToolFormat() {
  static const CallGrammar grammar = FunctionXml(
      "<tool_call>", "</tool_call>", /*value_newlines=*/true, CallGrammar::Values::kPythonScalars);

  static const ToolParserInfo format{
      .name = "step3p5",
      .aliases = {"step"},
      .models = "Step-3.5 (StepFun)",
      .format =
          "<tool_call><function=f><parameter=k>\\nv\\n</parameter></function></tool_call>; "
          "repeated calls collapsed",
      .create = tags::MakeStep3p5Parser,
      .grammar = &grammar,
      .template_needles = {{320, "<im_patch>", "<parameter="}},
      // Its models also write this block inside reasoning (promoted to the answer).
      .promoted_blocks = {{"<tool_call>", "</tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
