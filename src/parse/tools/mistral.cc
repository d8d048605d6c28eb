// mistral: Mistral, Mixtral, Mistral Nemo / Small / Large, Ministral, Devstral, Magistral.
// Every call starts with the `[TOOL_CALLS]` token; four shapes follow it:
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}                 v11+ tokenizers (Devstral,
//                                                                  Ministral 3, Magistral)
//   [TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{…}            Mistral Small 3.2
//   [TOOL_CALLS]get_weather{"city": "Oslo"}                       the same without [ARGS]
//   [TOOL_CALLS] [{"name": "get_weather", "arguments": {…}}, …]  pre-v11 (7B v0.3, Nemo)
// Names are [A-Za-z0-9_.-]{1,256} (whitespace around allowed); anything else after the token
// returns it as content. Arguments are a JSON object, passed through as validated, so a
// `[TOOL_CALLS]` inside a JSON string is data.
// Ids: Mistral's chat templates reject ids that are not 9 alphanumerics when the conversation
// comes back, so ids are 9 random [A-Za-z0-9] characters (no "call_" prefix); a [CALL_ID]
// written by the model is used as the id. "id" keys inside the old JSON list are ignored
// (they follow the arguments, too late for a streamed begin).
// Read by the header-JSON engine: the name, an optional `[CALL_ID]` id (a word of the same
// bytes, at most 64), then `[ARGS]` or directly the object; the list and a bare call object
// are its JSON-call alternative. There is no call end: a call ends with its object.
// Deviation from the reference: text after a call is content (the reference rejects the
// `[ARGS]` call, or appends the text to the arguments of a `name{…}` call).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const HeaderJsonFormat& Format() {
  using F = HeaderField;
  static const HeaderJsonFormat format(HeaderJsonSyntax{
      .calls = {{.call_begin = "[TOOL_CALLS]",
                 .fields = {{.kind = F::Kind::kName, .text = F::Text::kNameWord},
                            {.kind = F::Kind::kId,
                             .begin = "[CALL_ID]",
                             .max = 64,
                             .optional = true,
                             .text = F::Text::kNameWord}},
                 .args_begin = "[ARGS]",
                 .bare_args = true,
                 .json_calls = JsonCalls::kListOrObject}},
      .id_length = 9,
  });
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeMistralParser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

const ToolParserInfo& MistralToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "[TOOL_CALLS]"}, {S::kName}, {S::kText, "[ARGS]"}, {S::kArguments}},
  };
  static const ToolParserInfo format{
      .name = "mistral",
      .aliases = {},
      .models = "Mistral, Mixtral, Mistral Nemo/Small/Large, Ministral, Devstral, Magistral",
      .format =
          "[TOOL_CALLS]f[ARGS]{…} | [TOOL_CALLS]f[CALL_ID]id[ARGS]{…} | [TOOL_CALLS]f{…} | "
          "[TOOL_CALLS] [{\"name\": …, \"arguments\": {…}}]",
      .create = MakeMistralParser,
      .grammar = &grammar,
      .detect_markers = {"[TOOL_CALLS]"},
      .template_needles = {{30, "[TOOL_CALLS]", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
