// step3: StepFun Step3 (stepfun-ai/step3; `｜` is U+FF5C, the separators are ASCII `_`)
//   <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">
//   <steptml:parameter name="k">v</steptml:parameter></steptml:invoke><｜tool_call_end｜>
//   <｜tool_calls_end｜>
// Read from vLLM's step3 parser and its tests (the model's output keeps the
// `function<｜tool_sep｜>` type prefix; the tests' fixtures omit it, so both are read). The block
// is a container of the tag engine (tags_common.h); each
// `<｜tool_call_begin｜>…</steptml:invoke><｜tool_call_end｜>` in it is one call, whitespace
// between calls is layout; a malformed call is returned with the block's markup. String values are
// verbatim; typed values are stripped and typed by the schema; untyped values stay strings
// (as in the reference). Deviations: text before and after the block is content (the
// reference also keeps both, but strips them); a block without `<｜tool_calls_end｜>` still
// yields its finished calls; a malformed call is returned as content; a type prefix other than
// `function`, or a name between `<｜tool_sep｜>` and the invoke, is malformed.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kTypedInvoke{
    .start = "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"",
    .name_close = "\">",
    .key_open = "<steptml:parameter name=\"",
    .key_close = "\">",
    .value_close = "</steptml:parameter>",
    .call_close = "</steptml:invoke><｜tool_call_end｜>"};

constexpr XmlSyntax kInvoke{.start = "<｜tool_call_begin｜><steptml:invoke name=\"",
                            .name_close = "\">",
                            .key_open = "<steptml:parameter name=\"",
                            .key_close = "\">",
                            .value_close = "</steptml:parameter>",
                            .call_close = "</steptml:invoke><｜tool_call_end｜>"};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<｜tool_calls_begin｜>",
      .container_close = "<｜tool_calls_end｜>",
      .container_calls = {&kTypedInvoke, &kInvoke},
      .drop = {"<｜tool_calls_end｜>"},
      .values = {ValueTrim::kNone, Untyped::kString},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeStep3Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Step3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<｜tool_calls_begin｜>",
      .close = "<｜tool_calls_end｜>",
      .call = {{S::kText, "<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\""},
               {S::kName},
               {S::kText, "\">"},
               {S::kArguments},
               {S::kText, "</steptml:invoke><｜tool_call_end｜>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<steptml:parameter name=\""},
                   {S::kKey},
                   {S::kText, "\">"},
                   {S::kValue},
                   {S::kText, "</steptml:parameter>"}},
  };
  static const ToolParserInfo format{
      .name = "step3",
      .aliases = {},
      .models = "StepFun Step3",
      .format =
          "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke "
          "name=\"f\"><steptml:parameter name=\"k\">v</steptml:parameter></steptml:invoke>"
          "<｜tool_call_end｜><｜tool_calls_end｜>",
      .create = tags::MakeStep3Parser,
      .grammar = &grammar,
      .detect_markers = {"<｜tool_calls_begin｜>"},
      .template_needles = {{95, "<steptml:invoke", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
