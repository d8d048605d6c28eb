// gigachat3: Sber GigaChat 3 / 3.1 (10B-A1.8B, 702B). One call per assistant message, a JSON
// envelope after a role header:
//   3.0: answer<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {…}}
//   3.1: answer<|function_call|>{"name": "f", "arguments": {…}}
// (templates GigaChat3-10B-A1.8B, GigaChat3.1-10B-A1.8B). Both headers start a call;
// `<|message_sep|>` (end of a message) is dropped from content. Several calls in a row are
// accepted although the templates write one.
#include <memory>

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

std::string RenderGigaChat(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    out += "<|function_call|>{\"name\": ";
    text::AppendJsonString(out, call.name);
    out += ", \"arguments\": " + call.arguments + "}";
  }
  return out;
}

}  // namespace crux::parse::tools
