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

// Parser for Python literals, writing JSON. Iterative (a stack of open containers), so any
// depth is fine: list and tuple elements and dict values are written straight to the
// output; only what must wait is buffered per container (a brace's first element until the
// ':' or ',' after it tells dict from set, dict keys, set elements, which are sorted).
class PythonLiteral {
 public:
  explicit PythonLiteral(std::string_view text) : s_(text) {}

  std::optional<std::string> Parse() {
    std::string out;
    out_ = &out;
    SkipSpace();
    if (!Run()) return std::nullopt;
    SkipSpace();
    if (pos_ != s_.size()) return std::nullopt;
    return out;
  }

 private:
  enum class Kind : uint8_t { kSequence, kBrace, kDict, kSet };
  struct Frame {
    Kind kind;
    char close;
    int dest;                 // where this container's JSON goes (-1: the output)
    bool collecting;          // the value being read goes to `buffer`
    bool want_value = false;  // dict: the value being read is a member's value
    std::string buffer = {};
    std::vector<std::string> items = {};  // set elements
  };

  std::string& Dest(int dest) { return dest < 0 ? *out_ : frames_[dest].buffer; }
  // Where the next value goes.
  int ValueDest() const {
    if (frames_.empty()) return -1;
    const Frame& top = frames_.back();
    return top.collecting ? static_cast<int>(frames_.size()) - 1 : top.dest;
  }
  bool At(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  // Reads one value (which may open containers); false on a syntax error.
  bool Run() {
    for (;;) {
      if (!StartValue()) return false;
      if (opened_) continue;  // a container opened: its first value is next
      if (!ValueDone()) return false;
      if (frames_.empty()) return true;
    }
  }

  // A value at pos_: a scalar is read whole; a container is opened (or read whole when it
  // is empty). Sets `opened_` when a container is now open and waiting for its first value.
  bool StartValue() {
    opened_ = false;
    if (pos_ >= s_.size()) return false;
    const char c = s_[pos_];
    const int dest = ValueDest();
    if (c == '[' || c == '(') {
      ++pos_;
      SkipSpace();
      const char close = c == '[' ? ']' : ')';
      if (At(close)) {
        ++pos_;
        Dest(dest).append("[]");
        return true;
      }
      Dest(dest).push_back('[');
      frames_.push_back({Kind::kSequence, close, dest, false});
      opened_ = true;
      return true;
    }
    if (c == '{') {
      ++pos_;
      SkipSpace();
      if (At('}')) {
        ++pos_;
        Dest(dest).append("{}");
        return true;
      }
      frames_.push_back({Kind::kBrace, '}', dest, true});
      opened_ = true;
      return true;
    }
    std::string& out = Dest(dest);
    if (c == '\'' || c == '"') return String(out);
    if (Consume("True")) return out.append("true"), true;
    if (Consume("False")) return out.append("false"), true;
    if (Consume("None")) return out.append("null"), true;
    return Number(out);
  }

  // What the innermost container made of the text after one of its values.
  enum class After : uint8_t { kNextValue, kMalformed, kClosed };

  static After NextOr(bool ok) { return ok ? After::kNextValue : After::kMalformed; }

  // A set (`{1, 2}`): its elements, sorted and without duplicates, as a JSON array.
  After SetDone(Frame& f) {
    f.items.push_back(std::move(f.buffer));
    f.buffer.clear();
    if (At(',')) {
      ++pos_;
      SkipSpace();
      if (!At('}')) return After::kNextValue;
    }
    if (!At('}')) return After::kMalformed;
    ++pos_;
    std::sort(f.items.begin(), f.items.end());
    f.items.erase(std::unique(f.items.begin(), f.items.end()), f.items.end());
    std::string& out = Dest(f.dest);
    out.push_back('[');
    for (size_t i = 0; i < f.items.size(); ++i) {
      if (i) out.push_back(',');
      out.append(f.items[i]);
    }
    out.push_back(']');
    frames_.pop_back();
    return After::kClosed;
  }

  After DictDone(Frame& f, int top) {
    if (!f.want_value) return At(':') ? NextOr(Key(top, /*first=*/false)) : After::kMalformed;
    f.want_value = false;
    if (At(',')) {
      ++pos_;
      SkipSpace();
      if (!At('}')) {
        f.collecting = true;  // the next key
        return After::kNextValue;
      }
    }
    if (!At('}')) return After::kMalformed;
    ++pos_;
    Dest(f.dest).push_back('}');
    frames_.pop_back();
    return After::kClosed;
  }

  After SequenceDone(Frame& f) {
    if (At(',')) {
      ++pos_;
      SkipSpace();
      if (!At(f.close)) {
        Dest(f.dest).push_back(',');
        return After::kNextValue;
      }
    }
    if (!At(f.close)) return After::kMalformed;
    ++pos_;
    Dest(f.dest).push_back(']');
    frames_.pop_back();
    return After::kClosed;
  }

  // A value ended in the innermost container: reads what follows it, closing containers that
  // end here, until another value is due (true with frames open) or the outermost value
  // ended (true with none open).
  bool ValueDone() {
    while (!frames_.empty()) {
      SkipSpace();
      const int top = static_cast<int>(frames_.size()) - 1;
      Frame& f = frames_.back();
      After after = After::kClosed;
      switch (f.kind) {
        case Kind::kBrace:
          if (At(':')) {  // a dict: the first element was its first key
            f.kind = Kind::kDict;
            return Key(top, /*first=*/true);
          }
          f.kind = Kind::kSet;
          after = SetDone(f);
          break;
        case Kind::kSet:
          after = SetDone(f);
          break;
        case Kind::kDict:
          after = DictDone(f, top);
          break;
        case Kind::kSequence:
          after = SequenceDone(f);
          break;
      }
      if (after != After::kClosed) return after == After::kNextValue;
    }
    return true;
  }

  // At the ':' after a key (in frames_[top].buffer): writes the key, the value is next.
  bool Key(int top, bool first) {
    ++pos_;  // ':'
    SkipSpace();
    Frame& f = frames_[top];
    std::string& out = Dest(f.dest);
    out.push_back(first ? '{' : ',');
    if (f.buffer.empty() || f.buffer[0] != '"') {  // JSON keys are strings
      text::AppendJsonString(out, f.buffer);
    } else {
      out.append(f.buffer);
    }
    out.push_back(':');
    f.buffer.clear();
    f.collecting = false;
    f.want_value = true;
    return true;
  }

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

  std::string_view s_;
  size_t pos_ = 0;
  std::string* out_ = nullptr;
  std::vector<Frame> frames_;
  bool opened_ = false;
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
