// gigachat3: Sber GigaChat 3 / 3.1 (10B-A1.8B, 702B). One call per assistant message, a JSON
// envelope after a role header:
//   3.0: answer<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {…}}
//   3.1: answer<|function_call|>{"name": "f", "arguments": {…}}
// (templates GigaChat3-10B-A1.8B, GigaChat3.1-10B-A1.8B). Both headers start a call;
// `<|message_sep|>` (end of a message) is dropped from content. Several calls in a row are
// accepted although the templates write one.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

const ListFormat& GigaChatFormat() {
  static const text::MarkerSet outside{"<|function_call|>", "function call<|role_sep|>",
                                       "<|message_sep|>"};
  static const text::MarkerSet end{"<|message_sep|>"};
  static const ListFormat format{&outside, 2, &end, CallKeys{}};
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakeGigaChatParser(const ToolParserOptions& options) {
  return std::make_unique<ListParser>(options, GigaChatFormat());
}

const ToolParserInfo& Gigachat3ToolFormat() {
  static const CallGrammar grammar = Envelopes("<|function_call|>", "", "");

  static const ToolParserInfo format{
      .name = "gigachat3",
      .aliases = {"gigachat", "gigachat3.1"},
      .models = "Sber GigaChat 3, GigaChat 3.1",
      .format =
          "<|function_call|>{\"name\": …, \"arguments\": {…}} | "
          "<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{…}",
      .create = MakeGigaChatParser,
      .grammar = &grammar,
      .detect_markers = {"<|function_call|>", "function call<|role_sep|>"},
      .template_needles = {{190, "<|role_sep|>", "<|message_sep|>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
