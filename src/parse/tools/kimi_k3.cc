// kimi_k3: Moonshot Kimi K3 ("XTML" markup: `<|open|>tag attrs<|sep|>` … `<|close|>tag<|sep|>`).
// The assistant turn is think / response / tools sections (template Kimi-K3):
//   <|open|>response<|sep|>Checking.<|close|>response<|sep|><|open|>tools<|sep|>
//   <|open|>call tool="get_weather" index="1"<|sep|>
//   <|open|>argument key="city" type="string"<|sep|>Oslo<|close|>argument<|sep|>
//   <|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
//   <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>
// Arguments come one tag per key with the JSON type of the value in `type`; string values
// are raw text, others JSON. Instead of argument tags a call may hold its arguments as one
// JSON object: `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`. Attribute values
// are XML-escaped (&amp; &quot;). A parameter's type is the tool schema's when it declares
// one, else the `type` attribute. Strings stream as they arrive; other values are emitted
// when their closing tag arrives. Ids are generated (`index` is a per-turn counter).
// The response / tools / message wrappers and `<|end_of_msg|>` are dropped from content; the
// think section belongs to the reasoning parser. A call outside a tools section is accepted.
// The tools section is a section of the tag engine (tags_common.h): after a good first call,
// whitespace between its calls is dropped too, and a malformed call inside it is returned as
// content up to its `<|close|>call<|sep|>`; a section without a good first call is content,
// its tags included. Tags are the name attribute (`tool`, `key`) first, then others.
// Deviation: a call whose `<|close|>call<|sep|>` is missing is ended by the section's close.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kCall{.start = "<|open|>call tool=\"",
                          .name_close = "\"",
                          .key_open = "<|open|>argument key=\"",
                          .key_close = "\"",
                          .value_close = "<|close|>argument<|sep|>",
                          .call_close = "<|close|>call<|sep|>",
                          .tag_close = "<|sep|>",
                          .type_attribute = "type",
                          .escaped = true,
                          .json_open = "<|open|>json",
                          .json_close = "<|close|>json<|sep|>"};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "<|open|>tools<|sep|>",
      .container_close = "<|close|>tools<|sep|>",
      .container_calls = {&kCall},
      .container_section = true,
      .bare_calls = {&kCall},
      .drop = {"<|close|>tools<|sep|>", "<|open|>response<|sep|>", "<|close|>response<|sep|>",
               "<|open|>message role=\"assistant\"<|sep|>", "<|close|>message<|sep|>",
               "<|end_of_msg|>"},
      .values = {ValueTrim::kNone, Untyped::kJson},
  });
  return family;
}

}  // namespace

std::unique_ptr<ToolParser> MakeKimiK3Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& KimiK3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|open|>tools<|sep|>",
      .close = "<|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>",
      .call = {{S::kText, "<|open|>call tool=\""},
               {S::kName},
               {S::kText, "\" index=\""},
               {S::kIndex1},
               {S::kText, "\"<|sep|>"},
               {S::kArguments},
               {S::kText, "<|close|>call<|sep|>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<|open|>argument key=\""},
                   {S::kKey},
                   {S::kText, "\" type=\""},
                   {S::kValueType},
                   {S::kText, "\"<|sep|>"},
                   {S::kValue},
                   {S::kText, "<|close|>argument<|sep|>"}},
  };
  static const ToolParserInfo format{
      .name = "kimi_k3",
      .aliases = {},
      .models = "Kimi K3",
      .format =
          "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>argument "
          "key=\"k\" type=\"string\"<|sep|>v<|close|>argument<|sep|><|close|>call<|sep|>"
          "<|close|>tools<|sep|>",
      .create = tags::MakeKimiK3Parser,
      .grammar = &grammar,
      .detect_markers = {"<|open|>"},
      .template_needles = {{50, "<|open|>", "<|close|>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
