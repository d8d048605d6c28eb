// inkling: Inkling models (read from SGLang's InklingDetector and the control tokens of its
// Inkling tokenizer; vLLM registers the same format as `inkling`). The output is a sequence of
// typed messages; a tool call is one message whose header names the function:
//   <|message_model|>get_weather<|content_invoke_tool_json|>{"name": "get_weather",
//   "args": {"city": "Paris"}}<|end_message|>
// and an answer is `<|message_model|><|content_text|>text<|end_message|>`. Several calls are
// several messages. Read by the header-JSON engine: the header is the name, the payload is a
// call envelope whose arguments key is `args`; a payload naming another function than the
// header is malformed. The text-message framing, `<|end_message|>` and the end-of-sampling
// token are dropped from content.
// Deviations from the reference: a malformed call (bad payload, a name mismatch) is returned
// as content, markers included (the reference drops it); a payload without a header
// (`<|content_invoke_tool_json|>` alone) is not a call; text after the calls is content.
// Other typed blocks (thinking) are not this parser's: their markers stay in the content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kMessage = "<|message_model|>";
constexpr std::string_view kInvoke = "<|content_invoke_tool_json|>";
constexpr std::string_view kEnd = "<|end_message|>";

// {"name": …, "args": {…}}
constexpr CallKeys kInklingKeys{.args = "args", .args_alt = {}, .args_required = true};

const HeaderJsonFormat& Format() {
  static const HeaderJsonFormat format(HeaderJsonSyntax{
      .calls = {{.call_begin = kMessage,
                 .fields = {{.kind = HeaderField::Kind::kName,
                             .text = HeaderField::Text::kNameWord}},
                 .args_begin = kInvoke,
                 .call_end = kEnd,
                 .args_envelope = &kInklingKeys}},
      .drop = {kEnd, "<|message_model|><|content_text|>", "<|content_model_end_sampling|>"},
  });
  return format;
}

// The payload's arguments: `args` after the name (the header repeats it).
std::vector<CallGrammar::Part> InklingCall() {
  using S = CallGrammar::Slot;
  return {{S::kText, kMessage},      {S::kName},       {S::kText, kInvoke},
          {S::kText, "{\"name\": "}, {S::kNameString}, {S::kText, ", \"args\": "},
          {S::kArguments},           {S::kText, "}"},  {S::kText, kEnd}};
}

}  // namespace

std::unique_ptr<ToolParser> MakeInklingParser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

const ToolParserInfo& InklingToolFormat() {
  static const CallGrammar grammar{.call = InklingCall()};
  static const ToolParserInfo format{
      .name = "inkling",
      .aliases = {},
      .models = "Inkling",
      .format =
          "<|message_model|>f<|content_invoke_tool_json|>{\"name\": \"f\", \"args\": {…}}"
          "<|end_message|>",
      .create = MakeInklingParser,
      .grammar = &grammar,
      .detect_markers = {kMessage},
  };
  return format;
}

}  // namespace crux::parse::tools
