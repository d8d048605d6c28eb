// solar_open: Upstage Solar Open (100B). The assistant turn is `<|begin|>assistant` followed
// by `<|content|>text<|end|>` or by tool calls (template upstage-Solar-Open-100B):
//   <|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather
//   <|tool_call:args|>{"city": "Oslo"}<|tool_call:end|><|calls|>
// The model writes its own call id (10 lowercase alphanumerics, which the template sends
// back with the tool result); it is used as the call id, and an empty one gets a generated
// id. Empty arguments are `{}`; anything else must be a JSON object, else the call is
// returned as content. The turn wrappers (`<|begin|>assistant`, `<|content|>`, `<|end|>`,
// `<|tool_calls|>`, `<|calls|>`) are dropped from content; `<|think|>` reasoning belongs to
// the reasoning parser.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"

namespace crux::parse::tools {
namespace {

const HeaderJsonFormat& Format() {
  static const HeaderJsonFormat format(HeaderJsonSyntax{
      .calls = {{.call_begin = "<|tool_call:begin|>",
                 .fields = {{.kind = HeaderField::Kind::kId, .max = 64},
                            {.kind = HeaderField::Kind::kName, .begin = "<|tool_call:name|>"}},
                 .args_begin = "<|tool_call:args|>",
                 .call_end = "<|tool_call:end|>"}},
      .drop = {"<|tool_call:end|>", "<|tool_calls|>", "<|calls|>", "<|content|>", "<|end|>",
               "<|begin|>assistant"},
  });
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeSolarOpenParser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

const ToolParserInfo& SolarOpenToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tool_calls|>",
      .close = "<|calls|>",
      .call = {{S::kText, "<|tool_call:begin|>"},
               {S::kId},
               {S::kText, "<|tool_call:name|>"},
               {S::kName},
               {S::kText, "<|tool_call:args|>"},
               {S::kArguments},
               {S::kText, "<|tool_call:end|>"}},
  };
  static const ToolParserInfo format{
      .name = "solar_open",
      .aliases = {"solar"},
      .models = "Upstage Solar Open 100B",
      .format = "<|tool_call:begin|>id<|tool_call:name|>f<|tool_call:args|>{…}<|tool_call:end|>",
      .create = MakeSolarOpenParser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_calls|>", "<|tool_call:begin|>"},
      .template_needles = {{240, "<|tool_call:begin|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
