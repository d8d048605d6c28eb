// glm47 / glm4: GLM-4.5 / 4.6 / 4.7
//   <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>
// (GLM-4.7 writes the same without newlines). The name runs to the first newline or tag;
// `<tool_call>get_time</tool_call>` is a call with `{}`. The template writes a string value
// verbatim between `<arg_value>` and `</arg_value>` (its newlines sit between the tags, never
// inside a value), so string values are kept verbatim: an indented code argument keeps its
// indent. Other values were written with tojson: they are stripped and typed by the schema;
// untyped values are JSON when they parse, else the verbatim text. The call begins at its first
// `<arg_key>` (or `</tool_call>`), so `<tool_call>` in prose is given back verbatim.
// Deviations: calls to undeclared tools are reported (declared=false), not dropped; content
// around calls is kept (the reference nulls it whenever a call exists, which cannot be done
// while streaming); repeated keys keep the first value.
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

std::unique_ptr<ToolParser> MakeGlm47Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

std::string RenderGlm47(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    out += "<tool_call>" + call.name;
    for (const RenderedArg& arg : RenderArgs(call.arguments, ValueStyle::kJson)) {
      out += "<arg_key>" + arg.key + "</arg_key><arg_value>" + arg.text + "</arg_value>";
    }
    out += "</tool_call>";
  }
  return out;
}

}  // namespace crux::parse::tools::tags
