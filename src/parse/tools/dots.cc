// dots: rednote-hilab dots chat models
//   <dots_function_call><invoke name="f"><parameter name="k">v</parameter></invoke>
//   </dots_function_call>
// or a JSON envelope as the block's body:
//   <dots_function_call>{"name": "f", "arguments": {"k": "v"}}</dots_function_call>
// Read from vLLM's dots parser, its tests and SGLang's DotsToolDetector (the reference files name
// no Hugging Face id). A block holds any number of MiniMax-style invokes. Values are stripped
// and typed by the schema; untyped values are JSON when they parse, else the text. A stray
// `</dots_function_call>` is removed from the content. Deviations: text between and after
// blocks is content (as SGLang; vLLM drops it); calls to undeclared tools are reported, not
// dropped; a malformed block is returned whole as content; names must be double-quoted (the
// reference also reads single-quoted and bare names).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<dots_function_call>",
      .container_close = "</dots_function_call>",
      .container_json = true,
      .container_calls = {&kInvokeSyntax},
      .drop = {"</dots_function_call>"},
      .values = {ValueTrim::kStrip, Untyped::kJson},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeDotsParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& DotsToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<dots_function_call>",
      .close = "</dots_function_call>",
      .call = {{S::kText, "<invoke name=\""},
               {S::kName},
               {S::kText, "\">"},
               {S::kArguments},
               {S::kText, "</invoke>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<parameter name=\""},
                   {S::kKey},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</parameter>"}},
  };
  static const ToolParserInfo format{
      .name = "dots",
      .aliases = {},
      .models = "rednote-hilab dots",
      .format =
          "<dots_function_call><invoke name=\"f\"><parameter name=\"k\">v</parameter>"
          "</invoke></dots_function_call> | <dots_function_call>{\"name\": \"f\", "
          "\"arguments\": {…}}</dots_function_call>",
      .create = tags::MakeDotsParser,
      .grammar = &grammar,
      .detect_markers = {"<dots_function_call>"},
      .template_needles = {{85, "<dots_function_call>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
