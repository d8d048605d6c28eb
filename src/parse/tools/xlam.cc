// xlam: Salesforce xLAM (xLAM-1b/7b-fc-r, xLAM-2; template Llama-xLAM-2-8b-fc-r). The calls
// are a JSON list of {"name", "arguments"} objects ("parameters" accepted too), found:
//   at the start of the output:        [{"name": "get_weather", "arguments": {…}}]
//   in a code fence:                   ```json\n[{…}]\n```
//   after the `[TOOL_CALLS]` marker:   [TOOL_CALLS][{…}]
//   right after `</think>`:            …</think>\n[{…}]   (`</think>` stays in the content,
//                                      as in the reference)
// A list anywhere else is text, so ordinary brackets and JSON in prose are never calls. A
// list whose elements are not call objects (`[1, 2]`, `[{"label": "x"}]`) is returned as
// content, as is `[]`; a bare object is not a call. Deviations from the reference: text
// before and after the list is content; fences that hold no call list stay in the content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

// `[TOOL_CALLS]` is a start marker; "```" opens a fence; `</think>` stays in the content and
// a list may open right after it, as at the start of the output.
const ListFormat& XlamFormat() {
  static const text::MarkerSet outside{"[TOOL_CALLS]", "```", "</think>"};
  static const ListFormat format{
      .outside = &outside,
      .starts = 1,
      .at_start = BareStart::kList,
      .reopen = 2,
      .fence = 1,
      .single = false,
      .empty_is_text = true,
  };
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeXlamParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, XlamFormat());
}

const ToolParserInfo& XlamToolFormat() {
  static const CallGrammar grammar = EnvelopeList("[", "]");

  static const ToolParserInfo format{
      .name = "xlam",
      .aliases = {},
      .models = "Salesforce xLAM (1b/7b-fc-r, xLAM-2)",
      .format =
          "[{\"name\": …, \"arguments\": {…}}] at the start, in a ```json fence, after "
          "[TOOL_CALLS] (anywhere, the start included) or </think>",
      .create = MakeXlamParser,
      .grammar = &grammar,
  };
  return format;
}

}  // namespace crux::parse::tools
