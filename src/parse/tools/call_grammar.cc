// Writing calls from a family's CallGrammar (see crux/parse/call_grammar.h).
#include "crux/parse/call_grammar.h"

#include <algorithm>

#include "crux/text/json_scan.h"
#include "crux/text/json_text.h"
#include "parse/tools/toolkit.h"

namespace crux::parse {
namespace {

using Slot = CallGrammar::Slot;

std::string_view TypeName(text::JsonType type) {
  switch (type) {
    case text::JsonType::kString:
      return "string";
    case text::JsonType::kObject:
      return "object";
    case text::JsonType::kArray:
      return "array";
    case text::JsonType::kBoolean:
      return "boolean";
    case text::JsonType::kNull:
      return "null";
    default:
      return "number";
  }
}

// A non-string value as the family's templates write it.
std::string ValueText(const tools::JsonMember& member, CallGrammar::Values style) {
  const bool container =
      member.type == text::JsonType::kObject || member.type == text::JsonType::kArray;
  if (style == CallGrammar::Values::kJson ||
      (style == CallGrammar::Values::kPythonScalars && container)) {
    return tools::CompactJson(member.value);
  }
  return tools::JsonToPythonLiteral(member.value);
}

void AppendValue(std::string& out, const CallGrammar& grammar, const tools::JsonMember& member) {
  if (member.type != text::JsonType::kString) {
    out += ValueText(member, grammar.values);
    return;
  }
  const std::string decoded = tools::DecodedString(member.value);
  if (grammar.cdata_strings && decoded.find_first_of("<&\n") != std::string::npos) {
    out.append("<![CDATA[").append(decoded).append("]]>");
  } else {
    out += decoded;
  }
}

void AppendKeyValues(std::string& out, const CallGrammar& grammar, std::string_view json) {
  bool first = true;
  for (const tools::JsonMember& member : tools::ObjectMembers(json)) {
    if (!first) out.append(grammar.argument_separator);
    first = false;
    for (const CallGrammar::Part& part : grammar.argument) {
      switch (part.slot) {
        case Slot::kKey:
        case Slot::kKeyAgain:
          out += member.key;
          break;
        case Slot::kValue:
          AppendValue(out, grammar, member);
          break;
        case Slot::kValueType:
          out.append(TypeName(member.type));
          break;
        case Slot::kIsString:
          out.append(member.type == text::JsonType::kString ? "true" : "false");
          break;
        default:
          out.append(part.text);
          break;
      }
    }
  }
}

void AppendPythonKeywords(std::string& out, std::string_view json) {
  bool first = true;
  for (const tools::JsonMember& member : tools::ObjectMembers(json)) {
    if (!first) out.append(", ");
    first = false;
    out.append(member.key).append("=").append(tools::JsonToPythonLiteral(member.value));
  }
}

void AppendArguments(std::string& out, const CallGrammar& grammar, std::string_view json) {
  switch (grammar.args) {
    case CallGrammar::Args::kJsonObject:
      out.append(json);
      break;
    case CallGrammar::Args::kKeyValue:
      AppendKeyValues(out, grammar, json);
      break;
    case CallGrammar::Args::kPythonKeywords:
      AppendPythonKeywords(out, json);
      break;
    case CallGrammar::Args::kCustom:
      if (grammar.write_arguments != nullptr) grammar.write_arguments(out, json);
      break;
  }
}

std::string IdFor(size_t index) {
  std::string digits = std::to_string(index);
  return "call" + std::string(6 - std::min<size_t>(6, digits.size()), '0') + digits;
}

void AppendCall(std::string& out, const CallGrammar& grammar, const ToolCall& call, size_t index) {
  const std::string_view arguments = text::JsonTextType(call.arguments) == text::JsonType::kObject
                                         ? std::string_view(call.arguments)
                                         : std::string_view("{}");
  for (const CallGrammar::Part& part : grammar.call) {
    switch (part.slot) {
      case Slot::kName:
        out += call.name;
        break;
      case Slot::kNameString:
        text::AppendJsonString(out, call.name);
        break;
      case Slot::kId:
        out += IdFor(index);
        break;
      case Slot::kIndex:
        out += std::to_string(index);
        break;
      case Slot::kIndex1:
        out += std::to_string(index + 1);
        break;
      case Slot::kArguments:
        AppendArguments(out, grammar, arguments);
        break;
      default:
        out.append(part.text);
        break;
    }
  }
}

}  // namespace

std::string RenderToolCalls(const CallGrammar& grammar, const std::vector<ToolCall>& calls) {
  std::string out(grammar.open);
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i > 0) out.append(grammar.separator);
    AppendCall(out, grammar, calls[i], i);
  }
  out.append(grammar.close);
  return out;
}

std::string FormatLine(const CallGrammar& grammar) {
  return RenderToolCalls(grammar, {ToolCall{"", "f", R"({"k": "v"})", true}});
}

std::vector<std::string_view> GrammarMarkers(const CallGrammar& grammar) {
  std::vector<std::string_view> markers;
  const auto add = [&markers](std::string_view text) {
    if (!text.empty() && std::find(markers.begin(), markers.end(), text) == markers.end()) {
      markers.push_back(text);
    }
  };
  add(grammar.open);
  for (const CallGrammar::Part& part : grammar.call) {
    if (part.slot == Slot::kText) add(part.text);
  }
  if (grammar.args == CallGrammar::Args::kKeyValue) {  // kCustom's form is plain punctuation
    for (const CallGrammar::Part& part : grammar.argument) {
      if (part.slot == Slot::kText) add(part.text);
    }
    add(grammar.argument_separator);
  }
  add(grammar.string_quote);
  add(grammar.separator);
  add(grammar.close);
  return markers;
}

}  // namespace crux::parse
