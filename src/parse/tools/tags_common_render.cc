// Rendering helpers of the tag group: argument values written the way chat templates write
// them (tojson, Python str()). Used by the families' render functions (tests, benchmarks).
#include <nlohmann/json.hpp>

#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

using Json = nlohmann::ordered_json;

// Python's repr() of a str: single quotes unless the text holds ' and no ".
void AppendPythonString(std::string& out, const std::string& s) {
  const char quote =
      (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  out.push_back(quote);
  for (const char c : s) {
    switch (c) {
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (c == quote) out.push_back('\\');
        out.push_back(c);
    }
  }
  out.push_back(quote);
}

void AppendPython(std::string& out, const Json& value) {
  if (value.is_object()) {
    out.push_back('{');
    bool first = true;
    for (const auto& [k, v] : value.items()) {
      if (!first) out.append(", ");
      first = false;
      AppendPythonString(out, k);
      out.append(": ");
      AppendPython(out, v);
    }
    out.push_back('}');
  } else if (value.is_array()) {
    out.push_back('[');
    for (size_t i = 0; i < value.size(); ++i) {
      if (i) out.append(", ");
      AppendPython(out, value[i]);
    }
    out.push_back(']');
  } else if (value.is_string()) {
    AppendPythonString(out, value.get<std::string>());
  } else if (value.is_boolean()) {
    out.append(value.get<bool>() ? "True" : "False");
  } else if (value.is_null()) {
    out.append("None");
  } else {
    out.append(value.dump());
  }
}

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
  std::string out;
  AppendPython(out, value);
  return out;
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

std::string PythonLiteral(std::string_view json) {
  const Json value = Json::parse(json, nullptr, false);
  std::string out;
  if (!value.is_discarded()) AppendPython(out, value);
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
