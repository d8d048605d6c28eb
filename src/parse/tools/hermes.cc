// hermes / nous: `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`.
//
// Accepted, in the order the reference tries them (all at once here, by what follows):
// * a `<tool_call>` block holding JSON envelopes (several in a row are several calls) or
//   Qwen3-Coder / Nemotron XML (`<function=f><parameter=k>v</parameter></function>`, also with a
//   JSON object body); XML values: JSON, else a Python literal, else the stripped text;
// * a bare `<function=f>…</function>` (the template put `<tool_call>` in the prompt), committed
//   only when `<parameter=`, `{` or `</function>` follows the name — otherwise it was prose and
//   is given back verbatim;
// * a raw `{"name": "f", "arguments": {…}}` in prose, only for a declared tool (any name when
//   the request declares none), since without tags it cannot be told from JSON in an answer.
// The arguments stream as they are generated. A block whose body is invalid is returned whole,
// tags included, as content; a block cut off by the end of the stream is content unless its
// arguments were complete (generation often stops before `</tool_call>`).
// Not supported (reference fallbacks): `<tool_call_reasoning>` spans (plain content here) and
// the lenient `<tool_call` + junk + JSON form.
#include "parse/tools/hermes.h"

#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools {
namespace {

const tags::TagFamily& Family() {
  static const tags::TagFamily family(tags::TagFamilyDef{
      .container_open = "<tool_call>",
      .container_close = "</tool_call>",
      .container_json = true,
      .container_calls = {&tags::kFunctionSyntax},
      .bare_calls = {&tags::kFunctionSyntax},
      .raw_json = true,
      .values = {ValueTrim::kStrip, tags::Untyped::kJsonOrPython},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeHermesParser(const ToolParserOptions& options) {
  return tags::MakeTagParser(Family(), options);
}

const ToolParserInfo& HermesToolFormat() {
  static const CallGrammar grammar = Envelopes("<tool_call>\n", "\n</tool_call>", "\n");

  static const ToolParserInfo format{
      .name = "hermes",
      .aliases = {"nous"},
      .models = "Hermes 2 Pro / Hermes 3, Qwen2.5, models trained on the Hermes format",
      .format =
          "<tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>; <function=f> XML; raw JSON",
      .create = MakeHermesParser,
      .grammar = &grammar,
      .detect_markers = {"<tool_call>"},
      .template_needles = {{370, "<tool_call>", ""}},
      // Its models also write this block inside reasoning (promoted to the answer).
      .promoted_blocks = {{"<tool_call>", "</tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
