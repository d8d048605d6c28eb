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

std::unique_ptr<ToolParser> MakeGlm47Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Glm47ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "<tool_call>"}, {S::kName}, {S::kArguments}, {S::kText, "</tool_call>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = ArgKeyValue(),
  };
  static const ToolParserInfo format{
      .name = "glm47",
      .aliases = {"glm4", "glm45", "glm", "spark25"},
      .models = "GLM-4.5, GLM-4.6, GLM-4.7, iFlytek Spark 2.5",
      .format = "<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
      .create = tags::MakeGlm47Parser,
      .grammar = &grammar,
      .detect_markers = {"<tool_call>"},
      .template_needles = {{300, "<arg_key>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
