// longcat: Meituan LongCat-Flash-Chat. Hermes' JSON envelopes in tags of the family's own
// (special tokens of the LongCat vocabulary; vLLM's LongcatFlashToolParser is Hermes with
// these tags, SGLang's detector writes a newline inside each tag):
//   <longcat_tool_call>
//   {"name": "get_weather", "arguments": {"city": "Tokyo"}}
//   </longcat_tool_call>
// Several calls are consecutive blocks. A last block cut off by the end of the output is a
// call only when its arguments are complete (the reference also accepts an unclosed block).
// Deviations from the reference: text before, between and after the blocks is content; a
// malformed block is returned whole as content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<longcat_tool_call>",
      .container_close = "</longcat_tool_call>",
      .container_json = true,
  });
  return family;
}

std::unique_ptr<ToolParser> MakeLongcatParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& LongcatToolFormat() {
  static const CallGrammar grammar =
      Envelopes("<longcat_tool_call>\n", "\n</longcat_tool_call>", "\n");

  static const ToolParserInfo format{
      .name = "longcat",
      .models = "Meituan LongCat-Flash-Chat",
      .format = "<longcat_tool_call>{\"name\": …, \"arguments\": {…}}</longcat_tool_call>",
      .create = tags::MakeLongcatParser,
      .grammar = &grammar,
      .detect_markers = {"<longcat_tool_call>"},
      .template_needles = {{100, "<longcat_tool_call>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
