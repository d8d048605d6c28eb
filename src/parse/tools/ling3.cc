// ling3 / ling / bailing: inclusionAI Ling 3.0 (Bailing V3 template). Calls use GLM's shape
//   <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>…\n</tool_call>
// with string values verbatim (the template writes them raw; other values with tojson, so
// non-string values are stripped and typed by the schema, untyped ones JSON when they parse).
// What tells it from glm47: the turn ends with `<|role_end|>`, which the model may spell out
// as text; it and anything after it never reach the content. Reasoning (`<think>`, opened by
// the generation prompt) is handled upstream by a think reasoning parser.
#include <memory>

#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .bare_calls = {&kGlmSyntax},
      .end_of_turn = {"<|role_end|>"},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeLing3Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

std::string RenderLing3(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    if (!out.empty()) out += "\n";
    out += "<tool_call>" + call.name + "\n";
    for (const RenderedArg& arg : RenderArgs(call.arguments, ValueStyle::kJson)) {
      out += "<arg_key>" + arg.key + "</arg_key>\n<arg_value>" + arg.text + "</arg_value>";
    }
    out += "\n</tool_call>";
  }
  return out + "<|role_end|>";
}

}  // namespace crux::parse::tools::tags
