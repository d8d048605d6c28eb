// Value conversion for XML-style families: schema-typed scalars and Python literals → JSON.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "crux/text/stream_buffer.h"
#include "parse/tools/toolkit.h"

namespace crux::parse::tools {
namespace {

bool IsInteger(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// JSON text for an integer written with an optional '+' and leading zeros; "" if not one.
std::string NormalizeInteger(std::string_view s) {
  if (!IsInteger(s)) return "";
  std::string out;
  size_t i = 0;
  if (s[0] == '-') out.push_back('-');
  if (s[0] == '-' || s[0] == '+') i = 1;
  while (i + 1 < s.size() && s[i] == '0')
    ++i;
  out.append(s.substr(i));
  if (out == "-0") out = "0";
  return out;
}

// Recursive-descent parser for Python literals, writing JSON.
class PythonLiteral {
 public:
  explicit PythonLiteral(std::string_view text) : s_(text) {}

  std::optional<std::string> Parse() {
    std::string out;
    SkipSpace();
    if (!Value(out, 0)) return std::nullopt;
    SkipSpace();
    if (pos_ != s_.size()) return std::nullopt;
    return out;
  }

 private:
  static constexpr int kMaxDepth = 64;

  void SkipSpace() {
    while (pos_ < s_.size() && text::IsSpace(s_[pos_]))
      ++pos_;
  }
  bool Consume(std::string_view word) {
    if (s_.compare(pos_, word.size(), word) != 0) return false;
    const size_t end = pos_ + word.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }

  bool Value(std::string& out, int depth) {
    if (depth > kMaxDepth || pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    if (c == '\'' || c == '"') return String(out);
    if (c == '[') return Sequence(out, depth, ']');
    if (c == '(') return Sequence(out, depth, ')');
    if (c == '{') return DictOrSet(out, depth);
    if (Consume("True")) return out.append("true"), true;
    if (Consume("False")) return out.append("false"), true;
    if (Consume("None")) return out.append("null"), true;
    return Number(out);
  }

  bool String(std::string& out) {
    const char quote = s_[pos_++];
    std::string decoded;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      char c = s_[pos_++];
      if (c == '\n') return false;
      if (c == '\\' && pos_ < s_.size()) {
        const char e = s_[pos_++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case 'r':
            c = '\r';
            break;
          case '0':
            c = '\0';
            break;
          case '\\':
          case '\'':
          case '"':
            c = e;
            break;
          default:
            decoded.push_back('\\');
            c = e;
        }
      }
      decoded.push_back(c);
    }
    if (pos_ >= s_.size()) return false;
    ++pos_;
    text::AppendJsonString(out, decoded);
    return true;
  }

  bool Number(std::string& out) {
    const size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) ||
                                s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' ||
                                ((s_[pos_] == '-' || s_[pos_] == '+') &&
                                 (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E')))) {
      ++pos_;
    }
    std::string_view num = s_.substr(start, pos_ - start);
    if (num.empty()) return false;
    const std::string_view digits = (num[0] == '-' || num[0] == '+') ? num.substr(1) : num;
    if (digits.size() > 1 && digits[0] == '0' &&
        std::isdigit(static_cast<unsigned char>(digits[1]))) {
      return false;  // Python 3 rejects leading zeros ("007")
    }
    if (std::string n = NormalizeInteger(num); !n.empty()) return out.append(n), true;
    // A float: Python allows "1." and ".5"; JSON needs digits on both sides.
    const std::string_view body = num[0] == '+' ? num.substr(1) : num;
    std::string f;
    for (size_t i = 0; i < body.size(); ++i) {
      const bool digit_before = i > 0 && std::isdigit(static_cast<unsigned char>(body[i - 1]));
      const bool digit_after =
          i + 1 < body.size() && std::isdigit(static_cast<unsigned char>(body[i + 1]));
      if (body[i] == '.' && !digit_before) f.push_back('0');
      f.push_back(body[i]);
      if (body[i] == '.' && !digit_after) f.push_back('0');
    }
    if (!IsJsonValue(f)) return false;
    out.append(f);
    return true;
  }

  bool Sequence(std::string& out, int depth, char close) {
    ++pos_;
    out.push_back('[');
    bool first = true;
    for (;;) {
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == close) {
        ++pos_;
        out.push_back(']');
        return true;
      }
      if (!first) {
        if (pos_ >= s_.size() || s_[pos_] != ',') return false;
        ++pos_;
        SkipSpace();
        if (pos_ < s_.size() && s_[pos_] == close) continue;  // trailing comma
      }
      if (!first) out.push_back(',');
      if (!Value(out, depth + 1)) return false;
      first = false;
    }
  }

  bool DictOrSet(std::string& out, int depth) {
    ++pos_;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
      out.append("{}");
      return true;
    }
    // Parse the first element to learn whether this is a dict or a set.
    std::string first;
    if (!Value(first, depth + 1)) return false;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ':') return Dict(out, depth, std::move(first));
    std::vector<std::string> items{std::move(first)};
    for (;;) {
      SkipSpace();
      if (pos_ >= s_.size()) return false;
      if (s_[pos_] == '}') {
        ++pos_;
        break;
      }
      if (s_[pos_] != ',') return false;
      ++pos_;
      SkipSpace();
      if (pos_ < s_.size() && s_[pos_] == '}') continue;
      std::string item;
      if (!Value(item, depth + 1)) return false;
      items.push_back(std::move(item));
    }
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    out.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out.push_back(',');
      out.append(items[i]);
    }
    out.push_back(']');
    return true;
  }

  bool Dict(std::string& out, int depth, std::string key) {
    out.push_back('{');
    bool first = true;
    for (;;) {
      if (!first) {
        SkipSpace();
        if (pos_ >= s_.size()) return false;
        if (s_[pos_] == '}') break;
        if (s_[pos_] != ',') return false;
        ++pos_;
        SkipSpace();
        if (pos_ < s_.size() && s_[pos_] == '}') break;
        key.clear();
        if (!Value(key, depth + 1)) return false;
        SkipSpace();
      }
      if (pos_ >= s_.size() || s_[pos_] != ':') return false;
      ++pos_;
      SkipSpace();
      if (!first) out.push_back(',');
      if (key.empty() || key[0] != '"') {  // JSON keys are strings
        std::string quoted;
        text::AppendJsonString(quoted, key);
        key = std::move(quoted);
      }
      out.append(key);
      out.push_back(':');
      if (!Value(out, depth + 1)) return false;
      first = false;
    }
    ++pos_;
    out.push_back('}');
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::string JsonString(std::string_view text) {
  std::string out;
  text::AppendJsonString(out, text);
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool IsJsonValue(std::string_view text) {
  text::JsonScanner scanner;
  size_t consumed = 0;
  auto st = scanner.Feed(text, consumed);
  if (st == text::JsonScanner::Status::kNeedMore) st = scanner.Finish();
  if (st != text::JsonScanner::Status::kDone) return false;
  return text::TrimLeft(text.substr(consumed)).empty();
}

std::optional<std::string> PythonLiteralToJson(std::string_view text) {
  return PythonLiteral(text).Parse();
}

std::string ConvertValue(std::string_view text, ParamType type, bool python_literals) {
  const std::string_view t = text::Trim(text);
  switch (type) {
    case ParamType::kString:
      return JsonString(text);
    case ParamType::kInteger: {
      if (std::string n = NormalizeInteger(t); !n.empty()) return n;
      if (IsJsonValue(t) && t.find_first_of(".eE") != std::string_view::npos) {
        // 3.0 → 3 when integral
        const double v = std::strtod(std::string(t).c_str(), nullptr);
        if (std::abs(v) < 9e15 && v == static_cast<double>(static_cast<long long>(v))) {
          return std::to_string(static_cast<long long>(v));
        }
        return std::string(t);
      }
      return JsonString(text);
    }
    case ParamType::kNumber: {
      if (std::string n = NormalizeInteger(t); !n.empty()) return n;
      if (!t.empty() && t[0] != '[' && t[0] != '{' && t[0] != '"' && IsJsonValue(t) &&
          t != "true" && t != "false" && t != "null") {
        return std::string(t);
      }
      if (auto lit = PythonLiteralToJson(t);
          lit && IsJsonValue(*lit) && (*lit)[0] != '"' && (*lit)[0] != '[' && (*lit)[0] != '{') {
        return *lit;
      }
      return JsonString(text);
    }
    case ParamType::kBoolean: {
      const std::string l = Lower(t);
      if (l == "true" || l == "false") return l;
      return JsonString(text);
    }
    case ParamType::kNull: {
      const std::string l = Lower(t);
      if (l == "null" || l == "none") return "null";
      return JsonString(text);
    }
    case ParamType::kObject:
    case ParamType::kArray:
      if (IsJsonValue(t)) return std::string(t);
      if (auto lit = PythonLiteralToJson(t)) return *lit;
      return JsonString(text);
    case ParamType::kAny:
      if (IsJsonValue(t)) return std::string(t);
      if (python_literals) {
        if (auto lit = PythonLiteralToJson(t)) return *lit;
      }
      return JsonString(text);
  }
  return JsonString(text);
}

}  // namespace crux::parse::tools
