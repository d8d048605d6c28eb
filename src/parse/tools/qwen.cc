// qwen / qwen3: every form Qwen models write, in any mix and order:
// * `<tool_call>\n{"name": "f", "arguments": {…}}\n</tool_call>` (Qwen2.5, Qwen3);
// * `<tool_call><function=f><parameter=k>v</parameter></function></tool_call>` and the bare
//   `<function=f>…</function>` (committed only when `<parameter=`, `{` or `</function>` follows
//   the name; otherwise given back verbatim as prose); a `{…}` body is JSON arguments;
// * `[Calling tool: f({…})]`.
// XML values are stripped, then JSON, else a Python literal (True, 'x', {1, 2} → [1, 2]), else
// the text; declared parameter types take precedence. Empty `<tool_call></tool_call>` wrappers
// are removed.
// Deviation: the reference cuts unclosed markup out of the content (`Let me check.
// <tool_call>` → `Let me check.`); crux follows the parser contract and returns an unfinished
// call's raw text as content, while a call whose arguments are complete is kept.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<tool_call>",
      .container_close = "</tool_call>",
      .container_json = true,
      .container_calls = {&kFunctionSyntax},
      .bare_calls = {&kFunctionSyntax},
      .bracket = true,
      .values = {ValueTrim::kStrip, Untyped::kJsonOrPython},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeQwenParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& QwenToolFormat() {
  static const CallGrammar grammar = Envelopes("<tool_call>\n", "\n</tool_call>", "\n");

  static const ToolParserInfo format{
      .name = "qwen",
      // ERNIE-4.5 and Arcee Trinity (a Qwen2.5 detector in SGLang) write the same envelopes.
      .aliases = {"qwen3", "qwen25", "ernie45", "trinity"},
      .models = "Qwen2.5, Qwen3, QwQ, ERNIE-4.5, Arcee Trinity",
      .format =
          "<tool_call>{json}</tool_call> | <function=f><parameter=k>v</parameter></function> | "
          "[Calling tool: f({…})]",
      .create = tags::MakeQwenParser,
      .grammar = &grammar,
      .detect_markers = {"[Calling tool:"},
      // Its models also write this block inside reasoning (promoted to the answer).
      .promoted_blocks = {{"<tool_call>", "</tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
