// functionary / meetkai: MeetKai Functionary v3.x. Three shapes, all accepted:
//   v3.2: >>>get_weather\n{"city": "Oslo"}>>>all\nText for the user
//   v3:   <|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "Oslo"}
//   v3.1: <function=get_weather>{"city": "Oslo"}</function>
// (templates meetkai-functionary-medium-v3.1 / v3.2). The recipients `all` and `user` are not
// calls: their text is content and the header is dropped. The v3.2 generation prompt ends
// with `>>>`, so the output starts with the first recipient without the marker: a word of
// [A-Za-z0-9_.-] followed by a newline at the start of the output is read as a recipient
// (a word not followed by a newline is ordinary text). As in the reference, an output that
// starts with a JSON list of {"name", "arguments"} objects is a list of calls.
// Read by the header-JSON engine: one layout per shape, plus the bare v3.2 header at the
// start of the output (which also takes the list). A v3.2 recipient is exactly a name, so a
// REPL prompt `>>> x` in prose stays text; a v3 recipient may have whitespace around it.
// Arguments are a JSON object, streamed as validated; a call whose arguments are not one is
// returned, markers included, as content. `<|from|>ROLE` headers are dropped, and so is a
// stray `</function>`. `<function=f></function>` is a call with `{}` arguments.
#include <memory>
#include <string_view>
#include <vector>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

// Built once: the two v3.2 layouts differ only in their marker.
HeaderJsonFormat MakeFormat() {
  using F = HeaderField;
  const F recipient{.kind = F::Kind::kName, .text = F::Text::kTightName};
  const std::vector<std::string_view> text_recipients = {"all", "user"};
  const HeaderCall v32{.call_begin = ">>>",
                       .fields = {recipient},
                       .args_begin = "\n",
                       .content_names = text_recipients};
  HeaderCall v32_start = v32;  // the prompt ended with `>>>`: a bare header, or a list
  v32_start.call_begin = {};
  v32_start.json_calls = JsonCalls::kList;
  return HeaderJsonFormat(HeaderJsonSyntax{
      .calls = {v32,
                v32_start,
                {.call_begin = "<|recipient|>",
                 .fields = {{.kind = F::Kind::kName, .text = F::Text::kNameWord}},
                 .args_begin = "<|content|>",
                 .content_names = text_recipients},
                {.call_begin = "<function=",
                 .fields = {recipient},
                 .args_begin = ">",
                 .call_end = "</function>"}},
      .drop_word = {"<|from|>"},
  });
}

const HeaderJsonFormat& Format() {
  static const HeaderJsonFormat format = MakeFormat();
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeFunctionaryParser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

// The v3.2 shape, as generated after the `>>>` that ends the generation prompt.

const ToolParserInfo& FunctionaryToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .separator = ">>>",
      .call = {{S::kName}, {S::kText, "\n"}, {S::kArguments}},
  };
  static const ToolParserInfo format{
      .name = "functionary",
      .aliases = {"meetkai", "functionary_v3"},
      .models = "MeetKai Functionary v3, v3.1, v3.2",
      .format = ">>>f\\n{…} | <|recipient|>f\\n<|content|>{…} | <function=f>{…}</function>",
      .create = MakeFunctionaryParser,
      .grammar = &grammar,
      .detect_markers = {"<|recipient|>"},
      .template_needles = {{210, ">>>all", ""}, {220, "start_tag => `<function`", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
