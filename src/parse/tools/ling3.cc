// ling3 / ling / bailing: inclusionAI Ling 3.0 (Bailing V3 template). Calls use GLM's shape
//   <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>…\n</tool_call>
// with string values verbatim (the template writes them raw; other values with tojson, so
// non-string values are stripped and typed by the schema, untyped ones JSON when they parse).
// What tells it from glm47: the turn ends with `<|role_end|>`, which the model may spell out
// as text; it and anything after it never reach the content. Reasoning (`<think>`, opened by
// the generation prompt) is handled upstream by a think reasoning parser.
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
      .end_of_turn = {"<|role_end|>"},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeLing3Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Ling3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .close = "<|role_end|>",
      .separator = "\n",
      .call = {{S::kText, "<tool_call>"},
               {S::kName},
               {S::kText, "\n"},
               {S::kArguments},
               {S::kText, "\n</tool_call>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = ArgKeyValue("</arg_key>\n<arg_value>", "</arg_value>"),
  };
  static const ToolParserInfo format{
      .name = "ling3",
      .aliases = {"ling", "bailing"},
      .models = "inclusionAI Ling 3.0 (Bailing V3)",
      .format =
          "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call>"
          "<|role_end|>",
      .create = tags::MakeLing3Parser,
      .grammar = &grammar,
      .template_needles = {{280, "<role>ASSISTANT</role>", "<arg_key>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
