// Rendering helpers of the tag group: argument values written the way chat templates write
// them (tojson, Python str()). Used by the families' render functions (tests, benchmarks).
#include <nlohmann/json.hpp>

#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

using Json = nlohmann::ordered_json;

std::string ValueText(const Json& value, ValueStyle style) {
  if (value.is_string()) return value.get<std::string>();
  switch (style) {
    case ValueStyle::kJson:
      return value.dump();
    case ValueStyle::kPythonScalars:
      if (value.is_object() || value.is_array()) return value.dump();
      break;
    case ValueStyle::kPython:
      break;
  }
  return JsonToPythonLiteral(value.dump());
}

}  // namespace

std::vector<RenderedArg> RenderArgs(std::string_view arguments_json, ValueStyle style) {
  std::vector<RenderedArg> out;
  const Json args = Json::parse(arguments_json, nullptr, false);
  if (!args.is_object()) return out;
  for (const auto& [k, v] : args.items())
    out.push_back({k, ValueText(v, style), v.is_string()});
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
