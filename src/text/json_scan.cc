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

// Reads four hex digits at `at` into `v`.
bool Hex4(std::string_view body, size_t at, char32_t& v) {
  if (at + 4 > body.size()) return false;
  v = 0;
  for (size_t k = at; k < at + 4; ++k) {
    if (!IsHex(body[k])) return false;
    v = v * 16 + HexValue(body[k]);
  }
  return true;
}

// `body[i]` is the 'u' of a \uXXXX escape: appends its code point (with the low half of a
// surrogate pair when one follows) and leaves `i` on the escape's last digit.
bool DecodeUnicodeEscape(std::string_view body, size_t& i, std::string& out) {
  char32_t cp = 0;
  if (!Hex4(body, i + 1, cp)) return false;
  i += 4;
  if (cp >= 0xD800 && cp <= 0xDBFF && i + 2 < body.size() && body[i + 1] == '\\' &&
      body[i + 2] == 'u') {
    char32_t low = 0;
    if (Hex4(body, i + 3, low) && low >= 0xDC00 && low <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      i += 6;
    }
  }
  utf8::AppendCodePoint(out, cp);
  return true;
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

// The per-state handlers below are inlined into Feed's loop: as calls they cost about a fifth
// of the scanner's throughput.
[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::Ended() {
  ValueEnded();
  return state_ == State::kDone ? Step::kEndAfter : Step::kNext;
}

[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::FailStep(const char* why) {
  Fail(why);
  return Step::kFail;
}

// The byte that ended a run of plain string bytes: the closing quote, a backslash, or a
// control character.
[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::StringByte(char c) {
  if (c == '"') {
    if (!string_is_key_) return Ended();
    state_ = State::kColon;
    return Step::kNext;
  }
  if (c != '\\') return FailStep("control character in string");
  state_ = State::kEscape;
  return Step::kNext;
}

[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::EscapeByte(char c) {
  if (c == 'u') {
    state_ = State::kUnicode;
    count_ = 4;
    unit_ = 0;
    return Step::kNext;
  }
  if (want_low_) return FailStep("unpaired surrogate in \\u escape");
  if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
      c == 't') {
    state_ = State::kString;
    return Step::kNext;
  }
  return FailStep("invalid escape in string");
}

[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::UnicodeByte(char c) {
  if (!IsHex(c)) return FailStep("invalid \\u escape");
  unit_ = static_cast<uint16_t>(unit_ * 16 + HexValue(c));
  if (--count_ != 0) return Step::kNext;
  // A high surrogate must be followed by a \u low surrogate; a low one must follow a high
  // one: what is left cannot be written as UTF-8.
  const bool high = unit_ >= 0xD800 && unit_ <= 0xDBFF;
  const bool low = unit_ >= 0xDC00 && unit_ <= 0xDFFF;
  if (want_low_ != low || (want_low_ && high)) return FailStep("unpaired surrogate in \\u escape");
  want_low_ = high;
  state_ = high ? State::kSurrogate : State::kString;
  return Step::kNext;
}

[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::LiteralByte(char c) {
  if (c != literal_[count_]) return FailStep("invalid literal");
  ++count_;
  return literal_[count_] == '\0' ? Ended() : Step::kNext;
}

// A number ends at the first byte that is not part of it; that byte is read again after it.
[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::NumberStep(char c) {
  bool ends = false;
  if (!NumberByte(c, ends)) return FailStep("invalid number");
  if (!ends) return Step::kNext;
  if (number_ == NumberPart::kSign || number_ == NumberPart::kDot || number_ == NumberPart::kExp ||
      number_ == NumberPart::kExpSign) {
    return FailStep("unfinished number");
  }
  ValueEnded();
  return state_ == State::kDone ? Step::kEndBefore : Step::kReread;
}

// kStart or kValue: whitespace, then a value (or, right after '[', the ']' of an empty array).
[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::ValueByte(char c) {
  if (IsJsonSpace(c)) return Step::kNext;
  if (c == ']' && state_ == State::kValue && array_may_close_) {
    stack_.pop_back();
    return Ended();
  }
  if (!StartValue(c)) return FailStep("expected a JSON value");
  array_may_close_ = c == '[';
  return Step::kNext;
}

// kKeyOrEnd or kKey: whitespace, then a key (or, right after '{', the '}' of an empty object).
[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::KeyByte(char c) {
  if (IsJsonSpace(c)) return Step::kNext;
  if (c == '}' && state_ == State::kKeyOrEnd) {
    stack_.pop_back();
    return Ended();
  }
  if (c != '"') return FailStep("expected a string key");
  string_is_key_ = true;
  state_ = State::kString;
  return Step::kNext;
}

[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::ColonByte(char c) {
  if (IsJsonSpace(c)) return Step::kNext;
  if (c != ':') return FailStep("expected ':' after key");
  array_may_close_ = false;
  state_ = State::kValue;
  return Step::kNext;
}

// kAfter: whitespace, then ',' or the closer of the innermost container.
[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::AfterByte(char c) {
  if (IsJsonSpace(c)) return Step::kNext;
  if (c == ',') {
    if (stack_.back() == '{') {
      state_ = State::kKey;
    } else {
      array_may_close_ = false;  // a value must follow
      state_ = State::kValue;
    }
    return Step::kNext;
  }
  if ((c == '}' && stack_.back() == '{') || (c == ']' && stack_.back() == '[')) {
    stack_.pop_back();
    return Ended();
  }
  return FailStep("expected ',' or a closing bracket");
}

[[gnu::always_inline]] inline JsonScanner::Step JsonScanner::ByteStep(char c) {
  switch (state_) {
    case State::kString:
      return StringByte(c);
    case State::kEscape:
      return EscapeByte(c);
    case State::kUnicode:
      return UnicodeByte(c);
    case State::kSurrogate:
      if (c != '\\') return FailStep("unpaired surrogate in \\u escape");
      state_ = State::kEscape;
      return Step::kNext;
    case State::kLiteral:
      return LiteralByte(c);
    case State::kNumber:
      return NumberStep(c);
    case State::kStart:
    case State::kValue:
      return ValueByte(c);
    case State::kKeyOrEnd:
    case State::kKey:
      return KeyByte(c);
    case State::kColon:
      return ColonByte(c);
    case State::kAfter:
      return AfterByte(c);
    case State::kDone:
    case State::kError:
      break;
  }
  return Step::kNext;
}

JsonScanner::Status JsonScanner::Feed(std::string_view text, size_t& consumed) {
  consumed = 0;
  if (state_ == State::kDone) return Status::kDone;
  if (state_ == State::kError) return Status::kError;
  for (size_t i = 0; i < text.size(); ++i) {
    if (state_ == State::kString) {
      // Fast path: skip plain string bytes.
      while (i < text.size() && text[i] != '"' && text[i] != '\\' &&
             static_cast<unsigned char>(text[i]) >= 0x20) {
        ++i;
      }
      if (i == text.size()) break;
    }
    switch (ByteStep(text[i])) {
      case Step::kNext:
        break;
      case Step::kReread:
        --i;
        break;
      case Step::kEndAfter:
        consumed = i + 1;
        return Status::kDone;
      case Step::kEndBefore:
        consumed = i;  // the byte after the number is not ours
        return Status::kDone;
      case Step::kFail:
        consumed = i;
        return Status::kError;
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
      case 'u':
        if (!DecodeUnicodeEscape(body, i, out)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

}  // namespace crux::text
