// hy_v4: Tencent HY V4 (vLLM's hy_v4 parser)
//   <tool_calls><tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call></tool_calls>
// Read from vLLM's hy_v4 parser. Hy3's key/value shape without `<tool_sep>`: the name runs to
// the first `<arg_key>` (or newline); a call without arguments is the bare name. The group is a
// container of the tag engine (tags_common.h), whitespace between its calls is layout; a
// malformed call is returned with the group's markup as content. A bare `<tool_call>` outside a
// group is read too (committed once a key or
// `</tool_call>` follows the name). String values are verbatim; other values are stripped and
// typed by the schema; untyped ones are JSON when they parse. Reasoning is upstream.
// Deviations: the reference reads a per-checkpoint suffix of every tag from the vocabulary
// (`<tool_calls:6124c78e>`); this declaration reads the unsuffixed tags only (Hy3's
// `:opensource` tags are the hy3 family's); whitespace between `</arg_key>` and `<arg_value>`
// is accepted (the reference allows none).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<tool_calls>",
      .container_close = "</tool_calls>",
      .container_calls = {&kGlmSyntax},
      .bare_calls = {&kGlmSyntax},
      .drop = {"</tool_calls>"},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeHyV4Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& HyV4ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<tool_calls>",
      .close = "</tool_calls>",
      .call = {{S::kText, "<tool_call>"}, {S::kName}, {S::kArguments}, {S::kText, "</tool_call>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = ArgKeyValue(),
  };
  static const ToolParserInfo format{
      .name = "hy_v4",
      .aliases = {},
      .models = "Tencent HY V4",
      .format =
          "<tool_calls><tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value>"
          "</tool_call></tool_calls>",
      .create = tags::MakeHyV4Parser,
      .grammar = &grammar,
      // Shared with minimax, apriel and hy3; detect.cc tells them apart by what follows (HY V4:
      // a name, then `<arg_key>` or `</tool_call>`).
      .detect_markers = {"<tool_calls>"},
  };
  return format;
}

}  // namespace crux::parse::tools
