// kimi / kimi_k2 / moonshot / kimi_k2_thinking: Moonshot Kimi K2 (Instruct, 0905, Thinking).
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0
//   <|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>
// (templates moonshotai-Kimi-K2, Kimi-K2-Instruct, Kimi-K2-Thinking: the tool-call format is
// the same; Thinking differs only in its reasoning, which the reasoning parser handles.)
// The model writes its own call id, `functions.NAME:IDX`; it is used as the call id (the
// templates send it back as `## Return of functions.NAME:IDX`), and the name is the part
// after the last '.' without the `:IDX` suffix. The section markers (also the singular
// `<|tool_call_section_begin|>` spelling) are dropped; a call outside a section is accepted.
// Empty arguments (`<|tool_call_argument_begin|><|tool_call_end|>`) are `{}`; anything else
// must be a JSON object, else the call is returned as content. Text after the section is
// content (the reference drops it).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"

namespace crux::parse::tools {
namespace {

const HeaderJsonFormat& Format() {
  static const HeaderJsonFormat format(HeaderJsonSyntax{
      .calls = {{.call_begin = "<|tool_call_begin|>",
                 .fields = {{.kind = HeaderField::Kind::kNamingId}},
                 .args_begin = "<|tool_call_argument_begin|>",
                 .call_end = "<|tool_call_end|>"}},
      .block_open = {"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>"},
      .block_close = {"<|tool_calls_section_end|>", "<|tool_call_section_end|>"},
      .drop = {"<|tool_call_argument_begin|>", "<|tool_call_end|>"},
  });
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeKimiParser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

const ToolParserInfo& KimiToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tool_calls_section_begin|>",
      .close = "<|tool_calls_section_end|>",
      .call = {{S::kText, "<|tool_call_begin|>functions."},
               {S::kName},
               {S::kText, ":"},
               {S::kIndex},
               {S::kText, "<|tool_call_argument_begin|>"},
               {S::kArguments},
               {S::kText, "<|tool_call_end|>"}},
  };
  static const ToolParserInfo format{
      .name = "kimi",
      .aliases = {"kimi_k2", "moonshot", "kimi_k2_thinking"},
      .models = "Kimi K2 Instruct, K2-0905, K2 Thinking",
      .format =
          "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
          "{…}"
          "<|tool_call_end|><|tool_calls_section_end|>",
      .create = MakeKimiParser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_calls_section_begin|>", "<|tool_call_section_begin|>",
                         "<|tool_call_begin|>"},
      .template_needles = {{40, "<|tool_calls_section_begin|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
