// rwkv: RWKV-7 (RWKV7ForCausalLM; read from vLLM's rwkv tool parser and its tests, a PR-branch
// file). Each call is a markdown label followed by a fenced JSON envelope:
//   **Tool Call:**
//   ```json
//   {"name": "get_weather", "arguments": {"city": "Paris"}}
//   ```
// Several calls are several labelled blocks. The legacy form `<tool_call>` followed by one
// envelope (no closing tag) is read too. Read by the JSON-list engine: the label is the start
// marker, the fence (`start_fence`) is optional, the arguments may be a JSON string holding
// an object. A malformed call is returned as content from its label.
// Deviations from the reference: text after the calls is content; a call is kept even when
// another block is malformed (the reference then returns no calls); Python-literal payloads,
// the bare ```json fences of the legacy mode and its argument renamings are not read; names
// are not checked against the declared tools (undeclared calls are reported as such). The
// vllm-ascend plugin's XML variant (`<tool_call><invoke name=…>`) is minimax's format.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kLabel = "**Tool Call:**";

const ListFormat& RwkvFormat() {
  static const text::MarkerSet outside{kLabel, "<tool_call>"};
  static const ListFormat format{
      .outside = &outside,
      .starts = 2,
      .keys = CallKeys{},
      .list = false,
      .start_fence = "```",
  };
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeRwkvParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, RwkvFormat());
}

const ToolParserInfo& RwkvToolFormat() {
  static const CallGrammar grammar = Envelopes("**Tool Call:**\n```json\n", "\n```", "\n\n");

  static const ToolParserInfo format{
      .name = "rwkv",
      .aliases = {},
      .models = "RWKV-7",
      .format = "**Tool Call:** ```json {\"name\": …, \"arguments\": {…}} ``` | <tool_call>{…}",
      .create = MakeRwkvParser,
      .grammar = &grammar,
      .detect_markers = {kLabel},
  };
  return format;
}

}  // namespace crux::parse::tools
