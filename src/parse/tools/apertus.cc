// apertus: Swiss AI Apertus (8B / 70B Instruct). Calls are one JSON list between
// `<|tools_prefix|>` and `<|tools_suffix|>`, each element an object whose only key is the
// function name (template Apertus-8B-Instruct):
//   <|tools_prefix|>[{"get_weather": {"city": "Oslo"}}, {"get_time": {}}]<|tools_suffix|>
// An element with more than one key is malformed (returned as content). Reasoning
// (`<|inner_prefix|>` … `<|inner_suffix|>`) belongs to the reasoning parser.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& ApertusFormat() {
  static const text::MarkerSet outside{"<|tools_prefix|>"};
  static const text::MarkerSet end{"<|tools_suffix|>"};
  static const ListFormat format{&outside, 1, &end, CallKeys{CallShape::kFunctionIsKey}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeApertusParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, ApertusFormat());
}

const ToolParserInfo& ApertusToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tools_prefix|>[",
      .close = "]<|tools_suffix|>",
      .separator = ", ",
      .call =
          {{S::kText, "{"}, {S::kNameString}, {S::kText, ": "}, {S::kArguments}, {S::kText, "}"}},
  };
  static const ToolParserInfo format{
      .name = "apertus",
      .aliases = {"apertus2509"},
      .models = "Swiss AI Apertus 8B / 70B",
      .format = "<|tools_prefix|>[{\"f\": {…}}]<|tools_suffix|>",
      .create = MakeApertusParser,
      .grammar = &grammar,
      .detect_markers = {"<|tools_prefix|>"},
      .template_needles = {{170, "<|tools_prefix|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
