// hyperclovax / hyperclovax_seed_think: NAVER HyperCLOVA X SEED Think (naver-hyperclovax)
//   <tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call><|im_end|>
// Read from vLLM's hyperclovax_seed_think parser and its tests. GLM's key/value shape: the name
// is the block's first line; a call without arguments is the bare name; several blocks are
// separated by newlines. Values are stripped and typed by the schema; untyped values are JSON
// when they parse, else the text. `<|im_end|>` (the end of turn) and everything after it are
// dropped. Under a required tool choice the model writes a JSON envelope instead,
// `{"name": "f", "arguments": {…}}`: read for declared tools. Deviations: text between and after
// calls is content (the reference keeps only the text before the first call; the part before
// `</think>` is the reasoning parser's); the JSON-list fallback and the 14B model's
// ` -> tool/function_call\n[…]` form are not read (they are a JSON list after a marker, which
// the tag engine does not express).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .bare_calls = {&kGlmSyntax},
      .raw_json = true,
      .end_of_turn = {"<|im_end|>"},
      .values = {ValueTrim::kStrip, Untyped::kJson},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeHyperclovaxParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& HyperclovaxToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .separator = "\n",
      .call = {{S::kText, "<tool_call>"},
               {S::kName},
               {S::kText, "\n"},
               {S::kArguments},
               {S::kText, "</tool_call>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = ArgKeyValue("</arg_key>\n<arg_value>", "</arg_value>\n"),
  };
  static const ToolParserInfo format{
      .name = "hyperclovax",
      .aliases = {"hyperclovax_seed_think"},
      .models = "NAVER HyperCLOVA X SEED Think",
      .format =
          "<tool_call>f\\n<arg_key>k</arg_key>\\n<arg_value>v</arg_value>\\n</tool_call> | "
          "{\"name\": \"f\", \"arguments\": {…}}",
      .create = tags::MakeHyperclovaxParser,
      .grammar = &grammar,
      // `<tool_call>` followed by a name is glm47's marker: output alone cannot tell
      // HyperCLOVA X from GLM, so `auto` never picks it by its markers.
      .detect_markers = {},
  };
  return format;
}

}  // namespace crux::parse::tools
