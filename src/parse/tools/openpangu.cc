// openpangu / pangu / openpangu_v2: Huawei openPangu. All calls of a turn are one JSON list
// between the special tokens `<|tool_call_start|>` and `<|tool_call_end|>` (read from vLLM's
// pangu and openpangu_v2 parsers and tests; the files name no checkpoint):
//   Thought: I need to check weather.<|tool_call_start|>[{"name": "get_weather",
//   "arguments": {"city": "Beijing"}}]<|tool_call_end|>
// Vocabularies without those tokens spell them `[unused11]` … `[unused12]` (the pangu parser's
// fallback), read here as well. As in openpangu_v2, a single object that is not in a list is
// not a call. Deviations from the reference: text after the block is content; a complete list
// whose end marker is missing is a call (generation often stops before it); a malformed element
// is returned as content while the calls before it are kept.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& OpenpanguFormat() {
  static const text::MarkerSet outside{"<|tool_call_start|>", "[unused11]"};
  static const text::MarkerSet end{"<|tool_call_end|>", "[unused12]"};
  static const ListFormat format{
      .outside = &outside, .starts = 2, .end = &end, .keys = CallKeys{}, .single = false};
  return format;
}

std::unique_ptr<ToolParser> MakeOpenpanguParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, OpenpanguFormat());
}

}  // namespace

const ToolParserInfo& OpenpanguToolFormat() {
  static const CallGrammar grammar = EnvelopeList("<|tool_call_start|>[", "]<|tool_call_end|>");

  static const ToolParserInfo format{
      .name = "openpangu",
      .aliases = {"pangu", "openpangu_v2"},
      .models = "Huawei openPangu",
      .format = "<|tool_call_start|>[{\"name\": …, \"arguments\": {…}}]<|tool_call_end|>",
      .create = MakeOpenpanguParser,
      .grammar = &grammar,
      // `<|tool_call_start|>` is lfm2's marker too; its parser also reads a JSON list there.
      .detect_markers = {"[unused11]"},
  };
  return format;
}

}  // namespace crux::parse::tools
