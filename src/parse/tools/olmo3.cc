// olmo3: AllenAI Olmo 3 (Olmo-3-7B-Instruct, Olmo-3-32B-Think; read from vLLM's olmo3 tool
// parser, its tests and the tool-calling docs). Python calls, one per line, between plain-text
// tags:
//   <function_calls>get_weather(city='San Francisco', metric='celsius')
//   register_user(name='John Doe', age=37, role=null, passed_test=true)</function_calls>
// Keyword arguments only; values are Python literals or the JSON literals true/false/null,
// converted to JSON as they stream (a PythonListSyntax with newline-separated items;
// commas and a `[…]` list are accepted too). A malformed call is returned as content with the
// rest of the block, up to `</function_calls>`; a missing end tag is tolerated.
// Deviations from the reference: text around the block is content (the reference returns no
// content once a call is found); calls without the tags are not read (the reference tries the
// whole output when there is no tag, in non-streaming mode only); a bad call does not let the
// calls after it through (the reference drops only the bad sibling).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kOpen = "<function_calls>";
constexpr std::string_view kClose = "</function_calls>";

std::unique_ptr<ToolParser> MakeOlmo3Parser(const ToolParserOptions& options) {
  static const PythonListFormat format(PythonListSyntax{
      .open = kOpen,
      .close = kClose,
      .optional_brackets = true,
      .line_items = true,
  });
  return MakePythonListParser(options, format);
}

}  // namespace

const ToolParserInfo& Olmo3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = kOpen,
      .close = kClose,
      .separator = "\n",
      .call = {{S::kName}, {S::kText, "("}, {S::kArguments}, {S::kText, ")"}},
      .args = CallGrammar::Args::kPythonKeywords,
  };
  static const ToolParserInfo format{
      .name = "olmo3",
      .aliases = {},
      .models = "AllenAI Olmo 3 Instruct / Think",
      .format = "<function_calls>f(a='x', b=1)\\ng()</function_calls>",
      .create = MakeOlmo3Parser,
      .grammar = &grammar,
      .detect_markers = {kOpen},
  };
  return format;
}

}  // namespace crux::parse::tools
