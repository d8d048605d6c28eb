// hy3 / hunyuan: Tencent Hy3 (HYTK = ":opensource" on every tag)
//   <tool_calls:opensource>
//   <tool_call:opensource>f<tool_sep:opensource>
//   <arg_key:opensource>k</arg_key:opensource>
//   <arg_value:opensource>v</arg_value:opensource>
//   </tool_call:opensource>
//   </tool_calls:opensource>
// GLM's key/value shape with an explicit name separator and a section around all calls. A
// `<tool_call:opensource>` outside a section is accepted too. String values are verbatim (the
// template writes them raw); other values were written with tojson: stripped, typed by the
// schema, untyped ones JSON when they parse. Reasoning (`<think:opensource>`) is upstream.
// Hy3-preview's tokenizer has no suffix: the same tags without `:opensource`
//   <tool_calls><tool_call>f<tool_sep><arg_key>k</arg_key><arg_value>v</arg_value>
//   </tool_call></tool_calls>
// Its plain `<tool_calls>` section is the family's second container; plain calls outside a
// section are read too (committed once a key or `</tool_call>` follows the name).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kHy3Call{.start = "<tool_call:opensource>",
                             .name_close = "<tool_sep:opensource>",
                             .key_open = "<arg_key:opensource>",
                             .key_close = "</arg_key:opensource>",
                             .value_open = "<arg_value:opensource>",
                             .value_close = "</arg_value:opensource>",
                             .call_close = "</tool_call:opensource>"};

constexpr XmlSyntax kHy3PlainCall{.start = "<tool_call>",
                                  .name_close = "<tool_sep>",
                                  .key_open = "<arg_key>",
                                  .key_close = "</arg_key>",
                                  .value_open = "<arg_value>",
                                  .value_close = "</arg_value>",
                                  .call_close = "</tool_call>"};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<tool_calls:opensource>",
      .container_close = "</tool_calls:opensource>",
      .container_calls = {&kHy3Call, &kHy3PlainCall},
      .bare_calls = {&kHy3Call, &kHy3PlainCall},
      .values = {ValueTrim::kNone, Untyped::kJson},
      .more_containers = {{"<tool_calls>", "</tool_calls>", false, {&kHy3PlainCall}}},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeHy3Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& Hy3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<tool_calls:opensource>\n",
      .close = "</tool_calls:opensource>",
      .call = {{S::kText, "<tool_call:opensource>"},
               {S::kName},
               {S::kText, "<tool_sep:opensource>\n"},
               {S::kArguments},
               {S::kText, "</tool_call:opensource>\n"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<arg_key:opensource>"},
                   {S::kKey},
                   {S::kText, "</arg_key:opensource>\n<arg_value:opensource>"},
                   {S::kValue},
                   {S::kText, "</arg_value:opensource>\n"}},
  };
  static const ToolParserInfo format{
      .name = "hy3",
      .aliases = {"hunyuan", "hy_v3"},
      .models = "Tencent Hy3, Hy3-preview",
      .format =
          "<tool_calls:opensource><tool_call:opensource>f<tool_sep:opensource>"
          "<arg_key:opensource>k</arg_key:opensource><arg_value:opensource>v"
          "</arg_value:opensource></tool_call:opensource></tool_calls:opensource> (Hy3-preview: "
          "the "
          "same tags without :opensource)",
      .create = tags::MakeHy3Parser,
      .grammar = &grammar,
      .detect_markers = {"<tool_calls:opensource>", "<tool_call:opensource>", "<tool_calls>"},
      .template_needles = {{230, ":opensource", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
