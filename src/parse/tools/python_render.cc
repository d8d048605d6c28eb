// JSON → Python literal, for the renderers of families whose templates write Python values
// (tests and benchmarks write model output with them).
#include <nlohmann/json.hpp>

#include "parse/tools/toolkit.h"

namespace crux::parse::tools {
namespace {

using Json = nlohmann::ordered_json;

// Python's repr() of a str: single quotes unless the text holds ' and no "; control
// characters other than \n, \r, \t as \xNN.
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
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out.append("\\x");
          out.push_back(kHex[(c >> 4) & 0xF]);
          out.push_back(kHex[c & 0xF]);
        } else {
          if (c == quote) out.push_back('\\');
          out.push_back(c);
        }
    }
  }
  out.push_back(quote);
}

void AppendPython(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::string:
      AppendPythonString(out, value.get<std::string>());
      break;
    case Json::value_t::boolean:
      out.append(value.get<bool>() ? "True" : "False");
      break;
    case Json::value_t::null:
      out.append("None");
      break;
    case Json::value_t::array: {
      out.push_back('[');
      for (size_t i = 0; i < value.size(); ++i) {
        if (i > 0) out.append(", ");
        AppendPython(out, value[i]);
      }
      out.push_back(']');
      break;
    }
    case Json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out.append(", ");
        first = false;
        AppendPythonString(out, key);
        out.append(": ");
        AppendPython(out, item);
      }
      out.push_back('}');
      break;
    }
    default:
      out.append(value.dump());
      break;
  }
}

}  // namespace

std::string JsonToPythonLiteral(std::string_view json) {
  const Json value = Json::parse(json, nullptr, false);
  std::string out;
  if (!value.is_discarded()) AppendPython(out, value);
  return out;
}

}  // namespace crux::parse::tools
