// k2_horizon: K2 Horizon ("K2-v3", the vendor's `ifm|` tokens; `|` is ASCII)
//   <ifm|tool_calls>
//   <ifm|tool_call>f<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v</ifm|arg_value></ifm|tool_call>
//   </ifm|tool_calls>
// Read from SGLang's K2V3Detector (registered as k2_horizon) and vLLM's k2_horizon parser and
// tests (its default "xml" wire format). GLM's key/value shape with `ifm|` tags: the name runs to
// the first tag or newline; a call without arguments is the bare name. The group is a container
// of the tag engine (tags_common.h), whitespace between its calls is layout; a malformed call
// is returned with the group's markup as content. A bare `<ifm|tool_call>` outside a group is read
// too (as SGLang). String values are verbatim; other values are stripped and typed by the schema;
// untyped ones are JSON when they parse. Deviations: the group is not all-or-nothing (vLLM drops
// every call of a group with one bad call; here only the bad call is returned as content); text
// after the group is content; the "xml_typed" form's `<ifm|arg_type>` tag and the "json" form are
// not read (such a call is returned as content); calls to undeclared tools are reported, not
// dropped. Reasoning
// (`<ifm|think>`) is upstream.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kCall{.start = "<ifm|tool_call>",
                          .key_open = "<ifm|arg_key>",
                          .key_close = "</ifm|arg_key>",
                          .value_open = "<ifm|arg_value>",
                          .value_close = "</ifm|arg_value>",
                          .call_close = "</ifm|tool_call>"};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<ifm|tool_calls>",
      .container_close = "</ifm|tool_calls>",
      .container_calls = {&kCall},
      .bare_calls = {&kCall},
      .drop = {"</ifm|tool_calls>"},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeK2HorizonParser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& K2HorizonToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<ifm|tool_calls>\n",
      .close = "</ifm|tool_calls>",
      .call = {{S::kText, "<ifm|tool_call>"},
               {S::kName},
               {S::kArguments},
               {S::kText, "</ifm|tool_call>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<ifm|arg_key>"},
                   {S::kKey},
                   {S::kText, "</ifm|arg_key><ifm|arg_value>"},
                   {S::kValue},
                   {S::kText, "</ifm|arg_value>"}},
  };
  static const ToolParserInfo format{
      .name = "k2_horizon",
      .aliases = {"k2_v3"},
      .models = "K2 Horizon (K2-v3)",
      .format =
          "<ifm|tool_calls><ifm|tool_call>f<ifm|arg_key>k</ifm|arg_key><ifm|arg_value>v"
          "</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
      .create = tags::MakeK2HorizonParser,
      .grammar = &grammar,
      .detect_markers = {"<ifm|tool_calls>", "<ifm|tool_call>"},
      .template_needles = {{235, "<ifm|arg_key>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
