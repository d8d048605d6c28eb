// minimax / minimax_m2: MiniMax-M1 / M2
//   <minimax:tool_call>
//   <invoke name="f">
//   <parameter name="k">v</parameter>
//   </invoke>
//   </minimax:tool_call>
// A block holds any number of invokes. A bare `<invoke name="f">` (no block) is a call once a
// `<parameter name=` or `</invoke>` follows; otherwise it is prose. Values are stripped and
// typed by the schema; untyped values are JSON when they parse, else the text. `[e~[` (the end
// of turn token) and everything after it never reach the content; a stray `</invoke>` or
// `</minimax:tool_call>` is removed. Reasoning (`<think>`) is handled upstream.
// Deviation: an invoke without parameters is a call with `{}` (the reference skips it).
// MiniMax-M1 writes one JSON envelope per line in a `<tool_calls>` section:
//   <tool_calls>
//   {"name": "get_weather", "arguments": {"city": "Oslo"}}
//   </tool_calls>
// `<tool_calls>` is the family's second container, holding JSON envelopes.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<minimax:tool_call>",
      .container_close = "</minimax:tool_call>",
      .container_calls = {&kInvokeSyntax},
      .bare_calls = {&kInvokeSyntax},
      .end_of_turn = {"[e~["},
      .drop = {"</invoke>", "</minimax:tool_call>"},
      .values = {ValueTrim::kStrip, Untyped::kJson},
      .more_containers = {{"<tool_calls>", "</tool_calls>", /*json=*/true}},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeMinimaxParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& MinimaxToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<minimax:tool_call>\n",
      .close = "</minimax:tool_call>",
      .call = {{S::kText, "<invoke name=\""},
               {S::kName},
               {S::kText, "\">\n"},
               {S::kArguments},
               {S::kText, "</invoke>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<parameter name=\""},
                   {S::kKey},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</parameter>\n"}},
  };
  static const ToolParserInfo format{
      .name = "minimax",
      .aliases = {"minimax_m2", "minimax-m2"},
      .models = "MiniMax-M1, MiniMax-M2",
      .format =
          "<minimax:tool_call><invoke name=\"f\"><parameter name=\"k\">v</parameter></invoke>"
          "</minimax:tool_call> (M1: <tool_calls>\\n{\"name\": \"f\", \"arguments\": "
          "{…}}\\n</tool_calls>)",
      .create = tags::MakeMinimaxParser,
      .grammar = &grammar,
      .detect_markers = {"<minimax:tool_call>", "<tool_calls>"},
      .template_needles = {{90, "<minimax:tool_call>", ""}},
      // Its models also write this block inside reasoning (promoted to the answer).
      .promoted_blocks = {{"<minimax:tool_call>", "</minimax:tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
