// solar_open2: Upstage Solar Open 2 (upstage/Solar-Open2-250B)
//   <|tool_call:start|>f\n<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>\n<|tool_call:end|>
// Read from vLLM's solar_open2 parser, its tests and docs. The name is the rest of the start
// line; each argument is a key, `<|tool_arg:value|>`, then the raw value up to
// `<|tool_arg:end|>`. A missing `<|tool_arg:end|>` is implied by the next `<|tool_arg:start|>`
// or `<|tool_call:end|>`. Values are typed by the schema; untyped values stay strings (`5` is
// "5", as in the reference); a repeated key keeps the first value. Deviations: text after the
// calls is content (the reference drops it); a call left unterminated at the end of the output,
// or one whose `<|tool_call:end|>` is missing before the next `<|tool_call:start|>`, is
// returned as content; the fenced "```f\n<|tool_arg:start|>…" quirk is not read.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

constexpr XmlSyntax kCall{.start = "<|tool_call:start|>",
                          .key_open = "<|tool_arg:start|>",
                          .key_close = "<|tool_arg:value|>",
                          .value_close = "<|tool_arg:end|>",
                          .call_close = "<|tool_call:end|>",
                          .auto_close = true};

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .bare_calls = {&kCall},
      .values = {ValueTrim::kNone, Untyped::kString},
  });
  return family;
}

std::unique_ptr<ToolParser> MakeSolarOpen2Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace
}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& SolarOpen2ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "<|tool_call:start|>"},
               {S::kName},
               {S::kText, "\n"},
               {S::kArguments},
               {S::kText, "<|tool_call:end|>"}},
      .args = CallGrammar::Args::kKeyValue,
      .argument = {{S::kText, "<|tool_arg:start|>"},
                   {S::kKey},
                   {S::kText, "<|tool_arg:value|>"},
                   {S::kValue},
                   {S::kText, "<|tool_arg:end|>\n"}},
  };
  static const ToolParserInfo format{
      .name = "solar_open2",
      .aliases = {},
      .models = "Upstage Solar Open 2",
      .format =
          "<|tool_call:start|>f\\n<|tool_arg:start|>k<|tool_arg:value|>v<|tool_arg:end|>"
          "<|tool_call:end|>",
      .create = tags::MakeSolarOpen2Parser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_call:start|>"},
      .template_needles = {{241, "<|tool_arg:start|>", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
