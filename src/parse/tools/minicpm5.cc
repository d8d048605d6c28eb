// minicpm5 / minicpm: OpenBMB MiniCPM5, calls without a wrapper, one after another:
//   <function name="f"><param name="k">v</param></function>
// A value holding <, & or a newline is wrapped in <![CDATA[ … ]]> (taken verbatim); other
// string values are verbatim too. Non-string values are Python's str() of the value (`True`,
// `{'a': 1}`): typed by the schema, untyped ones JSON, else a Python literal, else text.
// `<function name="f">` is a call only once `<param name=` or `</function>` follows; otherwise
// it is prose and given back verbatim. Reasoning (`<think>`) is handled upstream.
#include <memory>

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

bool NeedsCdata(const RenderedArg& arg) {
  return arg.is_string && arg.text.find_first_of("<&\n") != std::string::npos;
}

}  // namespace

std::unique_ptr<ToolParser> MakeMiniCpm5Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

std::string RenderMiniCpm5(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    if (!out.empty()) out += "\n";
    out += "<function name=\"" + call.name + "\">";
    for (const RenderedArg& arg : RenderArgs(call.arguments, ValueStyle::kPython)) {
      out += "<param name=\"" + arg.key + "\">";
      out += NeedsCdata(arg) ? "<![CDATA[" + arg.text + "]]>" : arg.text;
      out += "</param>";
    }
    out += "</function>";
  }
  return out;
}

}  // namespace crux::parse::tools::tags
