// Rendering helpers of the tag group: argument values written the way chat templates write
// them (tojson, Python str()). Used by the families' render functions (tests, benchmarks);
// the arguments are walked as text, so any width or depth renders in linear time.
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

std::string ValueText(const JsonMember& member, ValueStyle style) {
  if (member.type == text::JsonType::kString) return DecodedString(member.value);
  switch (style) {
    case ValueStyle::kJson:
      return CompactJson(member.value);
    case ValueStyle::kPythonScalars:
      if (member.type == text::JsonType::kObject || member.type == text::JsonType::kArray) {
        return CompactJson(member.value);
      }
      break;
    case ValueStyle::kPython:
      break;
  }
  return JsonToPythonLiteral(member.value);
}

}  // namespace

std::vector<RenderedArg> RenderArgs(std::string_view arguments_json, ValueStyle style) {
  std::vector<RenderedArg> out;
  for (const JsonMember& member : ObjectMembers(arguments_json)) {
    out.push_back({member.key, ValueText(member, style), member.type == text::JsonType::kString});
  }
  return out;
}

std::string RenderFunctionCalls(const std::vector<ToolCall>& calls, std::string_view open,
                                std::string_view close, bool value_newlines, ValueStyle style) {
  std::string out;
  for (const ToolCall& call : calls) {
    if (!out.empty()) out += "\n";
    out.append(open);
    out += "\n<function=" + call.name + ">\n";
    for (const RenderedArg& arg : RenderArgs(call.arguments, style)) {
      out += "<parameter=" + arg.key + ">";
      out += value_newlines ? "\n" + arg.text + "\n" : arg.text;
      out += "</parameter>\n";
    }
    out += "</function>\n";
    out.append(close);
  }
  return out;
}

}  // namespace crux::parse::tools::tags
