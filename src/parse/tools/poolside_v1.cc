// poolside_v1: Poolside Laguna, GLM's wire shape
//   <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>
// String-typed (and untyped-but-not-JSON) values are kept verbatim — no stripping, so code
// keeps its indentation and trailing newline; other values are stripped and typed by the
// schema (untyped: JSON when it parses). Repeated keys: the first wins.
// Deviations: calls to undeclared tools are reported (declared=false) instead of dropped, and
// an unclosed call is returned as content (the reference hides both); text after calls is kept.
#include <memory>

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

std::string RenderPoolsideV1(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    out += "<tool_call>" + call.name + "\n";
    for (const RenderedArg& arg : RenderArgs(call.arguments, ValueStyle::kJson)) {
      out += "<arg_key>" + arg.key + "</arg_key>\n<arg_value>" + arg.text + "</arg_value>\n";
    }
    out += "</tool_call>\n";
  }
  return out;
}

}  // namespace crux::parse::tools::tags
