#include "crux/text/json_scan.h"

#include "crux/base/utf8.h"
#include "text/json_escape.h"

namespace crux::text {
namespace {

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
uint16_t HexValue(char c) {
  return static_cast<uint16_t>(IsDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
}

}  // namespace

void JsonScanner::Reset() {
  state_ = State::kStart;
  number_ = NumberPart::kSign;
  string_is_key_ = false;
  array_may_close_ = false;
  count_ = 0;
  unit_ = 0;
  want_low_ = false;
  literal_ = nullptr;
  first_ = 0;
  error_ = "";
  stack_.clear();
}

JsonScanner::Status JsonScanner::Fail(const char* why) {
  state_ = State::kError;
  error_ = why;
  return Status::kError;
}

bool JsonScanner::StartValue(char c) {
  if (first_ == 0) first_ = c;
  switch (c) {
    case '{':
      stack_.push_back('{');
      state_ = State::kKeyOrEnd;
      return true;
    case '[':
      stack_.push_back('[');
      state_ = State::kValue;  // may also be ']' (handled by the caller)
      return true;
    case '"':
      string_is_key_ = false;
      state_ = State::kString;
      return true;
    case 't':
      literal_ = "rue";
      count_ = 0;
      state_ = State::kLiteral;
      return true;
    case 'f':
      literal_ = "alse";
      count_ = 0;
      state_ = State::kLiteral;
      return true;
    case 'n':
      literal_ = "ull";
      count_ = 0;
      state_ = State::kLiteral;
      return true;
    case '-':
      number_ = NumberPart::kSign;
      state_ = State::kNumber;
      return true;
    default:
      if (IsDigit(c)) {
        number_ = c == '0' ? NumberPart::kZero : NumberPart::kInt;
        state_ = State::kNumber;
        return true;
      }
      return false;
  }
}

void JsonScanner::ValueEnded() {
  state_ = stack_.empty() ? State::kDone : State::kAfter;
}

// Advances the number state with `c`. Sets `ends` when `c` is not part of the number (the
// number is complete if its last part was final).
bool JsonScanner::NumberByte(char c, bool& ends) {
  ends = false;
  switch (number_) {
    case NumberPart::kSign:
      if (c == '0')
        number_ = NumberPart::kZero;
      else if (IsDigit(c))
        number_ = NumberPart::kInt;
      else
        return false;
      return true;
    case NumberPart::kZero:
    case NumberPart::kInt:
      if (IsDigit(c) && number_ == NumberPart::kInt) return true;
      if (c == '.') {
        number_ = NumberPart::kDot;
        return true;
      }
      if (c == 'e' || c == 'E') {
        number_ = NumberPart::kExp;
        return true;
      }
      if (IsDigit(c)) return false;  // leading zero
      ends = true;
      return true;
    case NumberPart::kDot:
      if (!IsDigit(c)) return false;
      number_ = NumberPart::kFrac;
      return true;
    case NumberPart::kFrac:
      if (IsDigit(c)) return true;
      if (c == 'e' || c == 'E') {
        number_ = NumberPart::kExp;
        return true;
      }
      ends = true;
      return true;
    case NumberPart::kExp:
      if (c == '+' || c == '-') {
        number_ = NumberPart::kExpSign;
        return true;
      }
      if (!IsDigit(c)) return false;
      number_ = NumberPart::kExpDigits;
      return true;
    case NumberPart::kExpSign:
      if (!IsDigit(c)) return false;
      number_ = NumberPart::kExpDigits;
      return true;
    case NumberPart::kExpDigits:
      if (IsDigit(c)) return true;
      ends = true;
      return true;
  }
  return false;
}

JsonScanner::Status JsonScanner::Feed(std::string_view text, size_t& consumed) {
  size_t i = 0;
  consumed = 0;
  if (state_ == State::kDone) return Status::kDone;
  if (state_ == State::kError) return Status::kError;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    switch (state_) {
      case State::kString: {
        // Fast path: skip plain string bytes.
        size_t j = i;
        while (j < text.size() && text[j] != '"' && text[j] != '\\' &&
               static_cast<unsigned char>(text[j]) >= 0x20) {
          ++j;
        }
        i = j;
        if (i == text.size()) {
          consumed = i;
          return Status::kNeedMore;
        }
        const char d = text[i];
        if (d == '"') {
          if (string_is_key_) {
            state_ = State::kColon;
          } else {
            ValueEnded();
            if (state_ == State::kDone) {
              consumed = i + 1;
              return Status::kDone;
            }
          }
        } else if (d == '\\') {
          state_ = State::kEscape;
        } else {
          consumed = i;
          return Fail("control character in string");
        }
        break;
      }
      case State::kEscape:
        if (c == 'u') {
          state_ = State::kUnicode;
          count_ = 4;
          unit_ = 0;
        } else if (want_low_) {
          consumed = i;
          return Fail("unpaired surrogate in \\u escape");
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
                   c == 'r' || c == 't') {
          state_ = State::kString;
        } else {
          consumed = i;
          return Fail("invalid escape in string");
        }
        break;
      case State::kUnicode:
        if (!IsHex(c)) {
          consumed = i;
          return Fail("invalid \\u escape");
        }
        unit_ = static_cast<uint16_t>(unit_ * 16 + HexValue(c));
        if (--count_ == 0) {
          // A high surrogate must be followed by a \u low surrogate; a low one must follow a
          // high one: what is left cannot be written as UTF-8.
          const bool high = unit_ >= 0xD800 && unit_ <= 0xDBFF;
          const bool low = unit_ >= 0xDC00 && unit_ <= 0xDFFF;
          if (want_low_ != low || (want_low_ && high)) {
            consumed = i;
            return Fail("unpaired surrogate in \\u escape");
          }
          want_low_ = high;
          state_ = high ? State::kSurrogate : State::kString;
        }
        break;
      case State::kSurrogate:
        if (c != '\\') {
          consumed = i;
          return Fail("unpaired surrogate in \\u escape");
        }
        state_ = State::kEscape;
        break;
      case State::kLiteral:
        if (c != literal_[count_]) {
          consumed = i;
          return Fail("invalid literal");
        }
        ++count_;
        if (literal_[count_] == '\0') {
          ValueEnded();
          if (state_ == State::kDone) {
            consumed = i + 1;
            return Status::kDone;
          }
        }
        break;
      case State::kNumber: {
        bool ends = false;
        if (!NumberByte(c, ends)) {
          consumed = i;
          return Fail("invalid number");
        }
        if (!ends) break;
        if (number_ == NumberPart::kSign || number_ == NumberPart::kDot ||
            number_ == NumberPart::kExp || number_ == NumberPart::kExpSign) {
          consumed = i;
          return Fail("unfinished number");
        }
        ValueEnded();
        if (state_ == State::kDone) {
          consumed = i;  // the byte after the number is not ours
          return Status::kDone;
        }
        --i;  // re-read `c` as the byte after a value
        break;
      }
      case State::kStart:
      case State::kValue:
        if (IsJsonSpace(c)) break;
        if (c == ']' && state_ == State::kValue && array_may_close_) {
          stack_.pop_back();
          ValueEnded();
          if (state_ == State::kDone) {
            consumed = i + 1;
            return Status::kDone;
          }
          break;
        }
        if (!StartValue(c)) {
          consumed = i;
          return Fail("expected a JSON value");
        }
        array_may_close_ = c == '[';
        break;
      case State::kKeyOrEnd:
        if (IsJsonSpace(c)) break;
        if (c == '}') {
          stack_.pop_back();
          ValueEnded();
          if (state_ == State::kDone) {
            consumed = i + 1;
            return Status::kDone;
          }
          break;
        }
        [[fallthrough]];
      case State::kKey:
        if (IsJsonSpace(c)) break;
        if (c != '"') {
          consumed = i;
          return Fail("expected a string key");
        }
        string_is_key_ = true;
        state_ = State::kString;
        break;
      case State::kColon:
        if (IsJsonSpace(c)) break;
        if (c != ':') {
          consumed = i;
          return Fail("expected ':' after key");
        }
        array_may_close_ = false;
        state_ = State::kValue;
        break;
      case State::kAfter:
        if (IsJsonSpace(c)) break;
        if (c == ',') {
          if (stack_.back() == '{') {
            state_ = State::kKey;
          } else {
            array_may_close_ = false;  // a value must follow
            state_ = State::kValue;
          }
          break;
        }
        if ((c == '}' && stack_.back() == '{') || (c == ']' && stack_.back() == '[')) {
          stack_.pop_back();
          ValueEnded();
          if (state_ == State::kDone) {
            consumed = i + 1;
            return Status::kDone;
          }
          break;
        }
        consumed = i;
        return Fail("expected ',' or a closing bracket");
      case State::kDone:
      case State::kError:
        break;
    }
  }
  consumed = text.size();
  return Status::kNeedMore;
}

JsonScanner::Status JsonScanner::Finish() {
  if (state_ == State::kDone) return Status::kDone;
  if (state_ == State::kNumber && stack_.empty() &&
      (number_ == NumberPart::kZero || number_ == NumberPart::kInt ||
       number_ == NumberPart::kFrac || number_ == NumberPart::kExpDigits)) {
    state_ = State::kDone;
    return Status::kDone;
  }
  return Fail(state_ == State::kStart ? "no JSON value" : "unfinished JSON value");
}

namespace internal {

void AppendJsonEscape(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
  switch (c) {
    case '"':
      out.append("\\\"");
      break;
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
    case '\b':
      out.append("\\b");
      break;
    case '\f':
      out.append("\\f");
      break;
    default:
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
  }
}

}  // namespace internal

void AppendJsonEscaped(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const int len = utf8::SequenceLength(c);
      if (len > 0 && i + len <= text.size() && utf8::IsValid(text.substr(i, len))) {
        out.append(text.substr(i, len));
        i += len;
      } else {
        out.append("\xEF\xBF\xBD");  // U+FFFD
        ++i;
      }
      continue;
    }
    if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') {
      internal::AppendJsonEscape(out, c);
    } else {
      out.push_back(static_cast<char>(c));
    }
    ++i;
  }
}

void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  AppendJsonEscaped(out, text);
  out.push_back('"');
}

bool DecodeJsonString(std::string_view body, std::string& out) {
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i >= body.size()) return false;
    switch (body[i]) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        auto hex4 = [&](size_t at, char32_t& v) {
          if (at + 4 > body.size()) return false;
          v = 0;
          for (size_t k = at; k < at + 4; ++k) {
            const char h = body[k];
            if (!IsHex(h)) return false;
            v = v * 16 + static_cast<char32_t>(IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10);
          }
          return true;
        };
        char32_t cp = 0;
        if (!hex4(i + 1, cp)) return false;
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 2 < body.size() && body[i + 1] == '\\' &&
            body[i + 2] == 'u') {
          char32_t low = 0;
          if (hex4(i + 3, low) && low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            i += 6;
          }
        }
        utf8::AppendCodePoint(out, cp);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace crux::text
