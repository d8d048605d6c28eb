// llama / llama3 / llama4 (Llama 3.1–3.3 JSON tool calling, Llama 4 JSON mode; template
// Llama-3.1-8B-Instruct). Three forms, in any order:
//   <|python_tag|>{"name": "f", "parameters": {…}}; {"name": "g", "parameters": {…}}
//   <|python_tag|>brave_search.call(query="x")        (built-in tools; the name drops ".call")
//   {"name": "f", "parameters": {…}}                   (bare, only at the start of the output)
//   <function=f>{…}</function>                         (legacy)
// An object is a call when it has "name" and "parameters" (or "arguments"); the arguments
// stream as they are generated. A bare object is held only while it can still be a call: its
// first key must be "name" or "type", otherwise everything held is released as content at that
// byte. Several envelopes may follow each other separated by ';'. A malformed call is returned
// as content, markup included; a dangling ';' at the end of the output is dropped.
// Deviations from the reference: arguments must be a JSON object (null → {}); bare calls
// already streamed stay calls even if a later object in the same sequence is not one.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/other_common.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

// `<|python_tag|>` starts envelopes or a built-in call; `<function=` the legacy form.
const ListFormat& LlamaFormat() {
  static const text::MarkerSet outside{"<|python_tag|>", "<function="};
  static const ListFormat format{
      .outside = &outside,
      .starts = 1,
      .keys = CallKeys{.args_required = true},
      .at_start = BareStart::kObject,
      .named = 1,
      .named_close = "</function>",
      .list = false,
      .separator = ';',
      .python = true,
      .python_suffix = ".call",
  };
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeLlamaParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, LlamaFormat());
}

// Bare envelopes separated by "; " — the Llama 3.x JSON tool-calling output.

const ToolParserInfo& LlamaToolFormat() {
  static const CallGrammar grammar = Envelopes("", "", "; ", ", \"parameters\": ");

  static const ToolParserInfo format{
      .name = "llama",
      .aliases = {"llama3", "llama4", "llama3_json", "llama4_json"},
      .models = "Llama 3.1 / 3.2 / 3.3 (JSON tool calling), Llama 4 (JSON mode), Functionary v3.1",
      .format =
          "<|python_tag|>{\"name\": …, \"parameters\": {…}}; … | bare {\"name\": …, "
          "\"parameters\": {…}} at the start | <function=f>{…}</function>",
      .create = MakeLlamaParser,
      .grammar = &grammar,
      .detect_markers = {"<function=", "<|python_tag|>"},
      .template_needles = {{350, "<|python_tag|>", ""},
                           {360, "\"parameters\": dictionary of argument name", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
