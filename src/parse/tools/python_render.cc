// The renderer toolkit: JSON argument text written as Python or Gemma literals, split into
// members, compacted — all by walking the text (text::JsonTokenReader), never a tree, so
// renderers (tests, benchmarks) take arguments of any depth and width.
#include "parse/tools/toolkit.h"

namespace crux::parse::tools {
namespace {

using Kind = text::JsonTokenReader::Kind;

// Python's repr() of a str: single quotes unless the text holds ' and no "; control
// characters other than \n, \r, \t as \xNN.
void AppendPythonString(std::string& out, std::string_view s) {
  const char quote =
      (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos) ? '"'
                                                                                        : '\'';
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

constexpr LiteralStyle kPythonStyle{
    .item_separator = ", ",
    .key_separator = ": ",
    .string = [](std::string& out, std::string_view s, bool) { AppendPythonString(out, s); },
    .true_text = "True",
    .false_text = "False",
    .null_text = "None",
};

text::JsonType TypeOfFirstToken(Kind kind) {
  switch (kind) {
    case Kind::kObjectBegin:
      return text::JsonType::kObject;
    case Kind::kArrayBegin:
      return text::JsonType::kArray;
    case Kind::kString:
      return text::JsonType::kString;
    case Kind::kTrue:
    case Kind::kFalse:
      return text::JsonType::kBoolean;
    case Kind::kNull:
      return text::JsonType::kNull;
    default:
      return text::JsonType::kNumber;
  }
}

}  // namespace

std::string DecodedString(std::string_view literal) {
  std::string out;
  if (literal.size() >= 2) text::DecodeJsonString(literal.substr(1, literal.size() - 2), out);
  return out;
}

std::string CompactJson(std::string_view json) {
  std::string out;
  text::AppendCompactJson(out, json);
  return out;
}

void AppendLiteral(std::string& out, std::string_view json, const LiteralStyle& style) {
  if (!text::JsonTextType(json)) return;
  text::JsonTokenReader reader(json);
  std::vector<bool> empty;  // per open container: nothing written in it yet
  bool after_key = false;
  for (auto token = reader.Next(); token.kind != Kind::kEnd; token = reader.Next()) {
    if (token.kind == Kind::kObjectEnd || token.kind == Kind::kArrayEnd) {
      out.push_back(token.kind == Kind::kObjectEnd ? '}' : ']');
      empty.pop_back();
      continue;
    }
    if (after_key) {
      out.append(style.key_separator);
      after_key = false;
    } else if (!empty.empty()) {
      if (!empty.back()) out.append(style.item_separator);
      empty.back() = false;
    }
    switch (token.kind) {
      case Kind::kObjectBegin:
      case Kind::kArrayBegin:
        out.push_back(token.kind == Kind::kObjectBegin ? '{' : '[');
        empty.push_back(true);
        break;
      case Kind::kKey:
      case Kind::kString:
        style.string(out, DecodedString(token.raw), token.kind == Kind::kKey);
        after_key = token.kind == Kind::kKey;
        break;
      case Kind::kTrue:
        out.append(style.true_text);
        break;
      case Kind::kFalse:
        out.append(style.false_text);
        break;
      case Kind::kNull:
        out.append(style.null_text);
        break;
      default:
        out.append(token.raw);
    }
  }
}

std::vector<JsonMember> ObjectMembers(std::string_view json) {
  std::vector<JsonMember> members;
  if (text::JsonTextType(json) != text::JsonType::kObject) return members;
  text::JsonTokenReader reader(json);
  reader.Next();  // '{'
  for (auto key = reader.Next(); key.kind == Kind::kKey; key = reader.Next()) {
    text::JsonTokenReader::Token first;
    const std::string_view value = reader.NextValue(&first);
    members.push_back({DecodedString(key.raw), value, TypeOfFirstToken(first.kind)});
  }
  return members;
}

std::string JsonToPythonLiteral(std::string_view json) {
  std::string out;
  AppendLiteral(out, json, kPythonStyle);
  return out;
}

}  // namespace crux::parse::tools
