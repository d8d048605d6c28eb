// poolside_v1: Poolside Laguna, GLM's wire shape
//   <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>
// String-typed (and untyped-but-not-JSON) values are kept verbatim — no stripping, so code
// keeps its indentation and trailing newline; other values are stripped and typed by the
// schema (untyped: JSON when it parses). Repeated keys: the first wins.
// Deviations: calls to undeclared tools are reported (declared=false) instead of dropped, and
// an unclosed call is returned as content (the reference hides both); text after calls is kept.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .bare_calls = {&kGlmSyntax},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakePoolsideV1Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& PoolsideV1ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "<tool_call>"},
               {S::kName},
               {S::kText, "\n"},
               {S::kArguments},
               {S::kText, "</tool_call>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = ArgKeyValue("</arg_key>\n<arg_value>", "</arg_value>\n"),
  };
  static const ToolParserInfo format{
      .name = "poolside_v1",
      .aliases = {},
      .models = "Poolside Laguna",
      .format = "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>",
      .create = tags::MakePoolsideV1Parser,
      .grammar = &grammar,
      .template_needles = {{290, "laguna", "<arg_key>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
