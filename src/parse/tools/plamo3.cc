// plamo3: PFN PLaMo 3 (pfnet/plamo-3-*; read from vLLM's plamo3 tool parser and its tests, the
// tag constants of its plamo3 reasoning parser). Every tag is plain text (several tokens each):
//   <|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>
//   <|plamo:begin_tool_name:plamo|>get_weather<|plamo:end_tool_name:plamo|>
//   <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{"city": "Tokyo"}
//   <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>
//   <|plamo:end_tool_requests:plamo|><|plamo:tag|>
// (no line breaks in real output). Several requests follow each other inside one requests group.
// Read by the header-JSON engine: the request and name tags open a call whose one field is the
// name; the end-name tag with the composite arguments tag begin the JSON object; the end tags
// close it. The group tags are a block (dropped), `<|plamo:tag|>` (end of turn) is dropped.
// Deviations from the reference: the group is not all-or-nothing (each well-formed request is a
// call, a malformed one is returned as content); a request outside a group is accepted; text
// after the calls or after `<|plamo:tag|>` is content (the reference discards it); a trailing
// partial tag at the very end stays content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/header_json.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kCallBegin =
    "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>";
constexpr std::string_view kArgsBegin =
    "<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json"
    "<|plamo:msg|>";
constexpr std::string_view kCallEnd =
    "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>";
constexpr std::string_view kGroupOpen = "<|plamo:begin_tool_requests:plamo|>";
constexpr std::string_view kGroupClose = "<|plamo:end_tool_requests:plamo|>";

const HeaderJsonFormat& Format() {
  static const HeaderJsonFormat format(HeaderJsonSyntax{
      .calls = {{.call_begin = kCallBegin,
                 .fields = {{.kind = HeaderField::Kind::kName,
                             .text = HeaderField::Text::kNameWord}},
                 .args_begin = kArgsBegin,
                 .call_end = kCallEnd}},
      .block_open = {kGroupOpen},
      .block_close = {kGroupClose},
      .drop = {kCallEnd, "<|plamo:tag|>"},
  });
  return format;
}

}  // namespace

std::unique_ptr<ToolParser> MakePlamo3Parser(const ToolParserOptions& options) {
  return MakeHeaderJsonParser(Format(), options);
}

const ToolParserInfo& Plamo3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = kGroupOpen,
      .close = kGroupClose,
      .call = {{S::kText, kCallBegin},
               {S::kName},
               {S::kText, kArgsBegin},
               {S::kArguments},
               {S::kText, kCallEnd}},
  };
  static const ToolParserInfo format{
      .name = "plamo3",
      .aliases = {},
      .models = "PFN PLaMo 3",
      .format =
          "<|plamo:begin_tool_requests:plamo|><|plamo:begin_tool_request:plamo|>"
          "<|plamo:begin_tool_name:plamo|>f<|plamo:end_tool_name:plamo|>"
          "<|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{…}"
          "<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>"
          "<|plamo:end_tool_requests:plamo|>",
      .create = MakePlamo3Parser,
      .grammar = &grammar,
      .detect_markers = {kGroupOpen, kCallBegin},
  };
  return format;
}

}  // namespace crux::parse::tools
