#include "crux/text/json_text.h"

#include "crux/base/utf8.h"
#include "crux/text/json_scan.h"
#include "text/json_escape.h"

namespace crux::text {
namespace {

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// The end (one past the closing quote) of the string literal that starts at text[open].
size_t StringEnd(std::string_view text, size_t open) {
  for (size_t i = open + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// A byte that ends a number or literal.
bool EndsScalar(char c) {
  switch (c) {
    case ',':
    case ':':
    case '[':
    case ']':
    case '{':
    case '}':
    case '"':
      return true;
    default:
      return IsJsonSpace(c);
  }
}

JsonType TypeOfFirstByte(char first) {
  switch (first) {
    case '{':
      return JsonType::kObject;
    case '[':
      return JsonType::kArray;
    case '"':
      return JsonType::kString;
    case 't':
    case 'f':
      return JsonType::kBoolean;
    case 'n':
      return JsonType::kNull;
    default:
      return JsonType::kNumber;
  }
}

}  // namespace

std::optional<JsonType> JsonTextType(std::string_view text) {
  JsonScanner scanner;
  size_t consumed = 0;
  JsonScanner::Status status = scanner.Feed(text, consumed);
  if (status == JsonScanner::Status::kNeedMore) status = scanner.Finish();
  if (status != JsonScanner::Status::kDone) return std::nullopt;
  for (size_t i = consumed; i < text.size(); ++i) {
    if (!IsJsonSpace(text[i])) return std::nullopt;
  }
  return TypeOfFirstByte(scanner.first_byte());
}

std::optional<JsonType> AppendCompactJson(std::string& out, std::string_view text) {
  const std::optional<JsonType> type = JsonTextType(text);
  if (!type) return std::nullopt;
  out.reserve(out.size() + text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '"') {
      const size_t end = StringEnd(text, i);
      utf8::AppendRepaired(out, text.substr(i, end - i));
      i = end;
      continue;
    }
    // Outside strings valid JSON is ASCII: whitespace is dropped, the rest copied.
    const size_t start = i;
    while (i < text.size() && text[i] != '"' && !IsJsonSpace(text[i]))
      ++i;
    out.append(text.substr(start, i - start));
    while (i < text.size() && IsJsonSpace(text[i]))
      ++i;
  }
  return type;
}

void AppendJsonStringLikeDump(std::string& out, std::string_view text) {
  out.push_back('"');
  size_t i = 0;
  while (i < text.size()) {
    // A run that needs no escaping is copied in one append.
    const size_t start = i;
    while (i < text.size()) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c < 0x20 || c == '"' || c == '\\') break;
      if (c < 0x80) {
        ++i;
        continue;
      }
      const utf8::CharSpan span = utf8::NextChar(text.substr(i));
      if (!span.valid) break;
      i += span.length;
    }
    out.append(text.substr(start, i - start));
    if (i >= text.size()) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      out.append("\xEF\xBF\xBD");
      i += utf8::NextChar(text.substr(i)).length;
      continue;
    }
    internal::AppendJsonEscape(out, c);  // a quote, a backslash or a control character
    ++i;
  }
  out.push_back('"');
}

void JsonTokenReader::SkipSeparators() {
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == ',') {
      key_next_ = !in_object_.empty() && in_object_.back();
    } else if (c != ':' && !IsJsonSpace(c)) {
      return;
    }
    ++pos_;
  }
}

JsonTokenReader::Token JsonTokenReader::Next() {
  SkipSeparators();
  if (pos_ >= text_.size()) return {Kind::kEnd, {}};
  const size_t start = pos_;
  const char c = text_[pos_];
  Kind kind = Kind::kNumber;
  switch (c) {
    case '{':
    case '[':
      ++pos_;
      in_object_.push_back(c == '{');
      key_next_ = c == '{';
      kind = c == '{' ? Kind::kObjectBegin : Kind::kArrayBegin;
      break;
    case '}':
    case ']':
      ++pos_;
      if (!in_object_.empty()) in_object_.pop_back();
      key_next_ = false;
      kind = c == '}' ? Kind::kObjectEnd : Kind::kArrayEnd;
      break;
    case '"':
      pos_ = StringEnd(text_, pos_);
      kind = key_next_ ? Kind::kKey : Kind::kString;
      key_next_ = false;
      break;
    default:
      while (pos_ < text_.size() && !EndsScalar(text_[pos_]))
        ++pos_;
      key_next_ = false;
      kind = c == 't'   ? Kind::kTrue
             : c == 'f' ? Kind::kFalse
             : c == 'n' ? Kind::kNull
                        : Kind::kNumber;
  }
  return {kind, text_.substr(start, pos_ - start)};
}

std::string_view JsonTokenReader::NextValue(Token* first) {
  const size_t base = depth();
  const Token token = Next();
  if (first != nullptr) *first = token;
  if (token.kind == Kind::kEnd) return {};
  const size_t start = static_cast<size_t>(token.raw.data() - text_.data());
  if (token.kind == Kind::kObjectBegin || token.kind == Kind::kArrayBegin) {
    while (depth() > base && Next().kind != Kind::kEnd) {
    }
  }
  return text_.substr(start, pos_ - start);
}

}  // namespace crux::text
