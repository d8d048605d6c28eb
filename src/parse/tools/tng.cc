// tng: TNG Technology Consulting's DeepSeek merges (DeepSeek-TNG-R1T2-Chimera). Calls are
// Hermes-style `<tool_call>` … `</tool_call>` blocks whose body is one JSON envelope or a JSON
// list of them, so one block may hold several calls (read from vLLM's TngToolParser tests;
// its parser source is not public):
//   <tool_call>
//   [{"name": "get_weather", "arguments": {"city": "Seattle"}},
//    {"name": "get_weather", "arguments": {"city": "Munich"}}]
//   </tool_call>
// Text before, between and after the blocks is content, as in the reference. The reference
// leaves blocks inside `<think>` … `</think>` verbatim in the content; in crux the reasoning
// parser (deepseek_r1) takes the reasoning out before this parser runs. A malformed block is
// returned as content; the reference only requires that it raises nothing.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& TngFormat() {
  static const text::MarkerSet outside{"<tool_call>"};
  static const text::MarkerSet end{"</tool_call>"};
  static const ListFormat format{&outside, 1, &end, CallKeys{}};
  return format;
}

std::unique_ptr<ToolParser> MakeTngParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, TngFormat());
}

}  // namespace

const ToolParserInfo& TngToolFormat() {
  static const CallGrammar grammar = EnvelopeList("<tool_call>\n[", "]\n</tool_call>");

  static const ToolParserInfo format{
      .name = "tng",
      .models = "TNG DeepSeek merges (DeepSeek-TNG-R1T2-Chimera)",
      .format = "<tool_call>[{\"name\": …, \"arguments\": {…}}, …]</tool_call> or one envelope",
      .create = MakeTngParser,
      .grammar = &grammar,
      // Shared with hermes and others: detect.cc sends a list body to tng.
      .detect_markers = {"<tool_call>"},
  };
  return format;
}

}  // namespace crux::parse::tools
