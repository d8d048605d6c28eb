// iquest_coder_v2: IQuest Coder V2
//   <iquestcoder_tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</iquestcoder_tool_call>
// Read from vLLM's iquest_coder_v2 parser and its tests (both wrapper tags are tokens of the
// model's vocabulary). GLM's key/value shape in an own wrapper: the name runs to the first
// newline or tag; a call without arguments is the bare name. String values are verbatim; other
// values are stripped and typed by the schema; untyped values are JSON when they parse, else
// the text. Anything but whitespace between the tags makes the call malformed: it is returned
// as content. Deviations: text between and after calls is content (the reference keeps only
// the text before the first call); calls to undeclared tools are reported.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kCall{.start = "<iquestcoder_tool_call>",
                          .key_open = "<arg_key>",
                          .key_close = "</arg_key>",
                          .value_open = "<arg_value>",
                          .value_close = "</arg_value>",
                          .call_close = "</iquestcoder_tool_call>"};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .bare_calls = {&kCall},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeIquestCoderV2Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& IquestCoderV2ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "<iquestcoder_tool_call>"},
               {S::kName},
               {S::kText, "\n"},
               {S::kArguments},
               {S::kText, "</iquestcoder_tool_call>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = ArgKeyValue("</arg_key>\n<arg_value>", "</arg_value>\n"),
  };
  static const ToolParserInfo format{
      .name = "iquest_coder_v2",
      .aliases = {},
      .models = "IQuest Coder V2",
      .format =
          "<iquestcoder_tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value>"
          "</iquestcoder_tool_call>",
      .create = tags::MakeIquestCoderV2Parser,
      .grammar = &grammar,
      .detect_markers = {"<iquestcoder_tool_call>"},
      .template_needles = {{236, "<iquestcoder_tool_call>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
