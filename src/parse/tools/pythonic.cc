// pythonic (Llama 3.2 / Llama 4 pythonic tool calling, vLLM's `pythonic` format): a Python
// list of calls with keyword arguments and literal values, without markers:
//   [get_weather(city='Paris', days=3), get_time(tz="CET")]
// Llama 4 may wrap it in <|python_start|> … <|python_end|>, which are dropped as framing.
// A list is recognised wherever '[' is followed by a name and '(' — the bytes from '[' are held
// only until that is decided (a name is at most 256 bytes), so `[1, 2]` or `[link](url)` pass
// through as content. Arguments are converted from Python literals to JSON as they stream
// (True/False/None, tuples → arrays, 'single' or "double" quoted strings with Python escapes).
// A call begins with its first keyword argument, so `[see(figure 1)]` never starts a call. A
// malformed call (positional arguments, expressions) is returned as content, and so is the
// rest of its list; calls already complete stay calls.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {

std::unique_ptr<ToolParser> MakePythonicParser(const ToolParserOptions& options) {
  static const PythonListFormat format(
      PythonListSyntax{.drop = {"<|python_start|>", "<|python_end|>"}});
  return MakePythonListParser(options, format);
}

const ToolParserInfo& PythonicToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "[",
      .close = "]",
      .separator = ", ",
      .call = {{S::kName}, {S::kText, "("}, {S::kArguments}, {S::kText, ")"}},
      .args = CallGrammar::Args::kPythonKeywords,
  };
  static const ToolParserInfo format{
      .name = "pythonic",
      .aliases = {"llama4_pythonic"},
      .models = "Llama 3.2 / Llama 4 pythonic templates, models prompted for Python call lists",
      .format = "[f(a='x', b=1), g()] (optionally <|python_start|> … <|python_end|>)",
      .create = MakePythonicParser,
      .grammar = &grammar,
      .detect_markers = {"<|python_start|>"},
      .template_needles = {{340, "[func_name1(", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
