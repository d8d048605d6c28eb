// lfm2 (Liquid LFM2 / LFM2.5): calls between special tokens, as a Python list by default
//   <|tool_call_start|>[get_weather(city="Paris"), get_time(tz='CET')]<|tool_call_end|>
// or, when the system prompt asks for JSON, as a list of JSON envelopes
//   <|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>
// The brackets are optional. Python keyword arguments are converted to JSON as they stream
// (LFM2.5's template writes strings in single quotes, dicts as JSON and other values with
// Python's str(), so both True and true are accepted). A malformed call is returned as content
// with its markup, up to the end marker; a missing end marker is tolerated.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {

std::unique_ptr<ToolParser> MakeLfm2Parser(const ToolParserOptions& options) {
  static const PythonListFormat format(PythonListSyntax{
      .open = "<|tool_call_start|>",
      .close = "<|tool_call_end|>",
      .optional_brackets = true,
      .json_items = true,
  });
  return MakePythonListParser(options, format);
}

const ToolParserInfo& Lfm2ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tool_call_start|>[",
      .close = "]<|tool_call_end|>",
      .separator = ", ",
      .call = {{S::kName}, {S::kText, "("}, {S::kArguments}, {S::kText, ")"}},
      .args = CallGrammar::Args::kPythonKeywords,
  };
  static const ToolParserInfo format{
      .name = "lfm2",
      .aliases = {"lfm2.5", "liquid"},
      .models = "Liquid LFM2, LFM2.5",
      .format = "<|tool_call_start|>[f(a=\"x\"), g()]<|tool_call_end|> (or a JSON list)",
      .create = MakeLfm2Parser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_call_start|>"},
      .template_needles = {{120, "<|tool_list_start|>", ""},
                           {130, "<|tool_call_start|>", ""},
                           {140, "List of tools: [", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
