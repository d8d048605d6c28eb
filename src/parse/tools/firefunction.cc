// firefunction_v2: Fireworks FireFunction v2 (Llama 3 based). Calls are one JSON list after
// the plain-text marker `functools` with no closing marker (template
// fireworks-ai-llama-3-firefunction-v2):
//   I will check. functools[{"name": "get_weather", "arguments": {"city": "Oslo"}}]
// The marker is matched as `functools[` so that prose about Python's functools module stays
// text. Text after the list is content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& FirefunctionFormat() {
  static const text::MarkerSet outside{"functools["};
  static const ListFormat format{&outside, 1, nullptr, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeFirefunctionParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, FirefunctionFormat());
}

const ToolParserInfo& FirefunctionV2ToolFormat() {
  static const CallGrammar grammar = EnvelopeList(" functools[", "]");

  static const ToolParserInfo format{
      .name = "firefunction_v2",
      // Phi-4-mini writes the same `functools[…]` list (vLLM phi4_mini_json).
      .aliases = {"firefunction", "phi4mini", "phi4_mini_json"},
      .models = "Fireworks FireFunction v2, Microsoft Phi-4-mini",
      .format = "functools[{\"name\": …, \"arguments\": {…}}]",
      .create = MakeFirefunctionParser,
      .grammar = &grammar,
      .detect_markers = {"functools["},
      .template_needles = {{200, "functools[", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
