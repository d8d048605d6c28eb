// minicpm5 / minicpm: OpenBMB MiniCPM5, calls without a wrapper, one after another:
//   <function name="f"><param name="k">v</param></function>
// A value holding <, & or a newline is wrapped in <![CDATA[ … ]]> (taken verbatim); other
// string values are verbatim too. Non-string values are Python's str() of the value (`True`,
// `{'a': 1}`): typed by the schema, untyped ones JSON, else a Python literal, else text.
// `<function name="f">` is a call only once `<param name=` or `</function>` follows; otherwise
// it is prose and given back verbatim. Reasoning (`<think>`) is handled upstream.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kFunctionName{.start = "<function name=\"",
                                  .name_close = "\">",
                                  .key_open = "<param name=\"",
                                  .key_close = "\">",
                                  .value_close = "</param>",
                                  .call_close = "</function>",
                                  .cdata = true};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .bare_calls = {&kFunctionName},
      .values = {ValueTrim::kNone, Untyped::kJsonOrPython},
  });
  return family;
}
}  // namespace

std::unique_ptr<ToolParser> MakeMiniCpm5Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Minicpm5ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .separator = "\n",
      .call = {{S::kText, "<function name=\""},
               {S::kName},
               {S::kText, "\">"},
               {S::kArguments},
               {S::kText, "</function>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<param name=\""},
                   {S::kKey},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</param>"}},
      .values = CallGrammar::Values::kPython,
      .cdata_strings = true,
  };
  static const ToolParserInfo format{
      .name = "minicpm5",
      .aliases = {"minicpm"},
      .models = "OpenBMB MiniCPM5",
      .format = "<function name=\"f\"><param name=\"k\">v | <![CDATA[…]]></param></function>",
      .create = tags::MakeMiniCpm5Parser,
      .grammar = &grammar,
      .detect_markers = {"<function name=\""},
      .template_needles = {{250, "<function name=", "<param name="}},
  };
  return format;
}

}  // namespace crux::parse::tools
