// granite_20b_fc / granite-20b-fc: IBM granite-20b-functioncalling. Each call is one JSON
// object after its own plain-text `<function_call>` marker, with no closing marker; several
// calls are several markers, one per line (template tool_chat_template_granite_20b_fc.jinja):
//   <function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}
//   <function_call> {"name": "get_time", "arguments": {"timezone": "Asia/Tokyo"}}
// The "arguments" key is required, as in the reference; a list after the marker is not a call.
// Deviations from the reference: text before and after the calls is content (the reference
// parses the whole output only when it starts with the marker while streaming, and ignores
// bytes after an object); a malformed call is returned as content while the calls before it
// are kept (the reference drops every call then).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& Granite20bFcFormat() {
  static const text::MarkerSet outside{"<function_call>"};
  static const ListFormat format{.outside = &outside,
                                 .starts = 1,
                                 .keys = CallKeys{.args_alt = {}, .args_required = true},
                                 .list = false};
  return format;
}

std::unique_ptr<ToolParser> MakeGranite20bFcParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, Granite20bFcFormat());
}

}  // namespace

const ToolParserInfo& Granite20bFcToolFormat() {
  static const CallGrammar grammar = Envelopes("<function_call> ", "", "\n");

  static const ToolParserInfo format{
      .name = "granite_20b_fc",
      .aliases = {"granite-20b-fc"},
      .models = "IBM Granite 20B function calling",
      .format = "<function_call> {\"name\": …, \"arguments\": {…}} (one marker per call)",
      .create = MakeGranite20bFcParser,
      .grammar = &grammar,
      .detect_markers = {"<function_call>"},
      .template_needles = {{330, "<function_call>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
