// command_r7b: Cohere Command R7B and Cohere2 MoE. Calls are one JSON list between
// `<|START_ACTION|>` and `<|END_ACTION|>`, each element keyed "tool_name" / "parameters"
// (templates CohereForAI-c4ai-command-r7b-12-2024-tool_use, Cohere2MoE):
//   <|START_ACTION|>[
//       {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Oslo"}}
//   ]<|END_ACTION|>
// "tool_call_id" is a per-turn counter ("0", "1", …), not an id: it is ignored and ids are
// generated. "name" / "arguments" are accepted as well. The wrappers around the answer text
// (`<|START_RESPONSE|>`…`<|END_RESPONSE|>` for R7B, `<|START_TEXT|>`…`<|END_TEXT|>` for
// Cohere2 MoE) and `<|END_OF_TURN_TOKEN|>` are dropped from content; `<|START_THINKING|>` …
// `<|END_THINKING|>` belongs to the reasoning parser.
// Citations in grounded answers, `foo <co>bar</co: 0:[1,2],1:[3,4]>`, keep the cited text as
// content and drop the markup (as the reference's filter does): `<co>` is dropped, and so is
// `</co:` with the document references up to its `>` (digits, `:`, `,`, `[`, `]`, spaces);
// a closing tag that breaks off before its `>` stays in the content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& CommandR7bFormat() {
  // The start marker, the wrappers dropped from content, then the citation end tag (id 7).
  static const text::MarkerSet outside{"<|START_ACTION|>",
                                       "<|START_RESPONSE|>",
                                       "<|END_RESPONSE|>",
                                       "<|START_TEXT|>",
                                       "<|END_TEXT|>",
                                       "<|END_OF_TURN_TOKEN|>",
                                       "<co>",
                                       "</co:"};
  static const text::MarkerSet end{"<|END_ACTION|>"};
  static const ListFormat format{
      .outside = &outside,
      .starts = 1,
      .end = &end,
      .keys = CallKeys{CallShape::kEnvelope, "tool_name", "name", "parameters", "arguments"},
      .tags = 7,
      .tag_chars = " 0123456789:,[]"};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeCommandR7bParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, CommandR7bFormat());
}

const ToolParserInfo& CommandR7bToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|START_ACTION|>[\n    ",
      .close = "\n]<|END_ACTION|>",
      .separator = ",\n    ",
      .call = {{S::kText, "{\"tool_call_id\": \""},
               {S::kIndex},
               {S::kText, "\", \"tool_name\": "},
               {S::kNameString},
               {S::kText, ", \"parameters\": "},
               {S::kArguments},
               {S::kText, "}"}},
  };
  static const ToolParserInfo format{
      .name = "command_r7b",
      // Command A (vLLM / SGLang cohere_command3, cohere_command4) writes the same block.
      .aliases = {"cohere", "cohere2", "cohere2moe", "cohere_command3", "cohere_command4"},
      .models = "Cohere Command R7B, Cohere2 MoE, Command A (Reasoning)",
      .format =
          "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": …, \"parameters\": {…}}]"
          "<|END_ACTION|>; citations <co>text</co: 0:[1]> become text",
      .create = MakeCommandR7bParser,
      .grammar = &grammar,
      .detect_markers = {"<|START_ACTION|>"},
      .template_needles = {{150, "<|START_ACTION|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
