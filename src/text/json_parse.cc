#include "crux/text/json_parse.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "crux/base/utf8.h"

namespace crux::text {
namespace {

constexpr uint64_t kOnes = 0x0101010101010101ULL;
constexpr uint64_t kHighBits = 0x8080808080808080ULL;

// High bit set in each byte of `word` that is zero; exact up to the first such byte (a borrow
// can mark bytes after it, never before), which is all the scan below looks at.
constexpr uint64_t ZeroBytes(uint64_t word) {
  return (word - kOnes) & ~word & kHighBits;
}

// High bit set in each byte that is a quote, a backslash, a control character or non-ASCII:
// the bytes a string scan must stop at. Exact up to the first one, like ZeroBytes.
constexpr uint64_t StringStopBytes(uint64_t word) {
  const uint64_t quote = ZeroBytes(word ^ (kOnes * '"'));
  const uint64_t backslash = ZeroBytes(word ^ (kOnes * '\\'));
  const uint64_t control = (word - kOnes * 0x20) & ~word & kHighBits;
  return quote | backslash | control | (word & kHighBits);
}

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Printable(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 15];
}

template <class BasicJson>
class Parser {
 public:
  Parser(std::string_view text, const JsonParseLimits& limits)
      : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), limits_(limits) {}

  // The whole parse: one loop over values with an explicit stack of open containers.
  Expected<BasicJson> Run() {
    BasicJson root;
    BasicJson* slot = &root;
    while (slot != nullptr) {
      SkipSpace();
      if (p_ < end_ && (*p_ == '{' || *p_ == '[')) {
        slot = Open(slot);
        if (slot != nullptr) continue;  // the first member's slot
        if (error_) return *error_;     // otherwise `{}` or `[]`: complete
      } else if (!Scalar(slot)) {
        return *error_;
      }
      slot = Next();
      if (error_) return *error_;
    }
    SkipSpace();
    if (p_ != end_) {
      Fail("unexpected " + Printable(*p_) + " after the end of the value", p_);
      return *error_;
    }
    return root;
  }

 private:
  struct Frame {
    BasicJson* container;
    int members;
  };

  void SkipSpace() {
    while (p_ < end_ && IsSpace(*p_))
      ++p_;
  }

  // Opens the container at p_ in *slot. Returns the slot of its first member, or nullptr for
  // an empty container (complete) or an error (error_ set).
  BasicJson* Open(BasicJson* slot) {
    if (stack_.size() >= static_cast<size_t>(limits_.max_depth)) {
      FailLimit("nests deeper than " + std::to_string(limits_.max_depth) + " levels");
      return nullptr;
    }
    const bool object = *p_ == '{';
    ++p_;
    *slot = object ? BasicJson::object() : BasicJson::array();
    SkipSpace();
    if (p_ < end_ && *p_ == (object ? '}' : ']')) {
      ++p_;
      return nullptr;
    }
    stack_.push_back({slot, 0});
    return object ? Member(stack_.back()) : Element(stack_.back());
  }

  // After a complete value: closes finished containers and returns the next member's slot, or
  // nullptr when the top-level value is complete (or on an error).
  BasicJson* Next() {
    while (!stack_.empty()) {
      SkipSpace();
      Frame& frame = stack_.back();
      const bool object = frame.container->is_object();
      const char close = object ? '}' : ']';
      if (p_ < end_ && *p_ == ',') {
        ++p_;
        return object ? Member(frame) : Element(frame);
      }
      if (p_ < end_ && *p_ == close) {
        ++p_;
        stack_.pop_back();
        continue;
      }
      Expecting(object ? "',' or '}'" : "',' or ']'");
      return nullptr;
    }
    return nullptr;
  }

  BasicJson* Member(Frame& frame) {
    SkipSpace();
    if (p_ == end_ || *p_ != '"') {
      Expecting("an object key (a string)");
      return nullptr;
    }
    key_.clear();
    if (!String(key_)) return nullptr;
    SkipSpace();
    if (p_ == end_ || *p_ != ':') {
      Expecting("':'");
      return nullptr;
    }
    ++p_;
    if (++frame.members > limits_.max_object_members) {
      FailLimit("has an object with more than " + std::to_string(limits_.max_object_members) +
                " members");
      return nullptr;
    }
    Reserve(frame.container->template get_ref<typename BasicJson::object_t&>());
    return &(*frame.container)[key_];
  }

  // An ordered object is a vector of (const key, value) pairs, which a vector grows by
  // copying, for the key cannot be moved: a body whose "messages" come before two more keys
  // would have its whole conversation copied. Grown here instead, moving the values.
  template <typename Members>
  static void Reserve(Members& members) {
    if constexpr (requires { members.capacity(); }) {
      if (members.size() < members.capacity()) return;
      Members grown;
      grown.reserve(std::max<size_t>(4, 2 * members.size()));
      for (auto& [key, value] : members)
        grown.emplace_back(key, std::move(value));
      members.swap(grown);
    }
  }

  BasicJson* Element(Frame& frame) {
    frame.container->push_back(BasicJson());
    return &frame.container->back();
  }

  bool Scalar(BasicJson* slot) {
    if (p_ == end_) return Expecting("a value");
    switch (*p_) {
      case '"': {
        std::string text;
        if (!String(text)) return false;
        *slot = BasicJson(std::move(text));
        return true;
      }
      case 't':
        return Literal("true", slot, BasicJson(true));
      case 'f':
        return Literal("false", slot, BasicJson(false));
      case 'n':
        return Literal("null", slot, BasicJson(nullptr));
      default:
        if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) return Number(slot);
        return Expecting("a value");
    }
  }

  bool Literal(std::string_view word, BasicJson* slot, BasicJson value) {
    if (static_cast<size_t>(end_ - p_) < word.size() ||
        std::memcmp(p_, word.data(), word.size()) != 0) {
      return Expecting("a value");
    }
    p_ += word.size();
    *slot = std::move(value);
    return true;
  }

  // p_ at the opening quote. Appends the decoded text to `out`; p_ ends after the closing
  // quote.
  bool String(std::string& out) {
    const char* const open = p_++;
    const char* run = p_;  // start of the bytes not yet appended
    for (;;) {
      p_ = SkipPlain(p_);
      if (p_ == end_) return Fail("unterminated string", open);
      const auto byte = static_cast<unsigned char>(*p_);
      if (byte == '"') {
        out.append(run, p_);
        ++p_;
        return true;
      }
      if (byte == '\\') {
        out.append(run, p_);
        if (!Escape(out)) return false;
        run = p_;
      } else if (byte < 0x20) {
        return Fail("control character " + Printable(*p_) + " in a string (escape it)", p_);
      } else {
        const utf8::CharSpan span = utf8::NextChar(std::string_view(p_, end_ - p_));
        if (!span.valid) return Fail("invalid UTF-8 in a string", p_);
        p_ += span.length;
      }
    }
  }

  // The first byte at or after `at` that a string scan must stop at (or end_).
  const char* SkipPlain(const char* at) const {
    if constexpr (std::endian::native == std::endian::little) {
      while (end_ - at >= 8) {
        uint64_t word;
        std::memcpy(&word, at, sizeof word);
        if (const uint64_t stops = StringStopBytes(word); stops != 0) {
          return at + (std::countr_zero(stops) >> 3);
        }
        at += 8;
      }
    }
    while (at < end_) {
      const auto byte = static_cast<unsigned char>(*at);
      if (byte == '"' || byte == '\\' || byte < 0x20 || byte >= 0x80) return at;
      ++at;
    }
    return at;
  }

  // p_ at a backslash inside a string.
  bool Escape(std::string& out) {
    const char* const at = p_++;
    if (p_ == end_) return Fail("unterminated string", at);
    const char c = *p_++;
    switch (c) {
      case '"':
        out += '"';
        return true;
      case '\\':
        out += '\\';
        return true;
      case '/':
        out += '/';
        return true;
      case 'b':
        out += '\b';
        return true;
      case 'f':
        out += '\f';
        return true;
      case 'n':
        out += '\n';
        return true;
      case 'r':
        out += '\r';
        return true;
      case 't':
        out += '\t';
        return true;
      case 'u':
        return UnicodeEscape(out, at);
      default:
        return Fail("invalid escape \\" + std::string(1, c) + " in a string", at);
    }
  }

  // p_ after `\u`; `at` is the backslash.
  bool UnicodeEscape(std::string& out, const char* at) {
    uint32_t unit = 0;
    if (!CodeUnit(unit)) return Fail("\\u must be followed by four hex digits", at);
    if (unit >= 0xDC00 && unit <= 0xDFFF) {
      return Fail("\\u escape is a low surrogate without a high one before it", at);
    }
    if (unit >= 0xD800 && unit <= 0xDBFF) {
      uint32_t low = 0;
      if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u' || (p_ += 2, !CodeUnit(low)) ||
          low < 0xDC00 || low > 0xDFFF) {
        return Fail("\\u escape is a high surrogate without a low one after it", at);
      }
      unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
    }
    utf8::AppendCodePoint(out, static_cast<char32_t>(unit));
    return true;
  }

  bool CodeUnit(uint32_t& unit) {
    if (end_ - p_ < 4) return false;
    unit = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = HexDigit(p_[i]);
      if (digit < 0) return false;
      unit = unit * 16 + static_cast<uint32_t>(digit);
    }
    p_ += 4;
    return true;
  }

  // RFC 8259's number grammar; then int64 / uint64 / double as nlohmann chooses.
  bool Number(BasicJson* slot) {
    const char* const start = p_;
    const bool negative = *p_ == '-';
    if (negative) ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9')
      return Fail("a '-' must be followed by digits", start);
    if (*p_ == '0') {
      ++p_;
    } else {
      p_ = Digits(p_);
    }
    bool integral = true;
    if (p_ < end_ && *p_ == '.') {
      integral = false;
      if (++p_ == end_ || *p_ < '0' || *p_ > '9')
        return Fail("a '.' must be followed by digits", start);
      p_ = Digits(p_);
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      integral = false;
      if (++p_ < end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (p_ == end_ || *p_ < '0' || *p_ > '9') return Fail("an exponent must have digits", start);
      p_ = Digits(p_);
    }
    if (integral && Integer(start, negative, slot)) return true;
    return Double(start, slot);
  }

  const char* Digits(const char* at) const {
    while (at < end_ && *at >= '0' && *at <= '9')
      ++at;
    return at;
  }

  bool Integer(const char* start, bool negative, BasicJson* slot) {
    if (negative) {
      int64_t value = 0;
      if (std::from_chars(start, p_, value).ec != std::errc()) return false;
      *slot = BasicJson(value);
    } else {
      uint64_t value = 0;
      if (std::from_chars(start, p_, value).ec != std::errc()) return false;
      *slot = BasicJson(value);
    }
    return true;
  }

  bool Double(const char* start, BasicJson* slot) {
    double value = 0;
    const auto result = std::from_chars(start, p_, value);
    if (result.ec == std::errc::result_out_of_range) {
      // Underflow reads as the nearest double (as strtod does); overflow cannot be read.
      const std::string copy(start, p_);
      value = std::strtod(copy.c_str(), nullptr);
      if (!std::isfinite(value)) {
        error_ = Error(ErrorCode::kInvalidArgument, "number " + copy + " at byte " +
                                                        std::to_string(Offset(start)) +
                                                        " is beyond the range of a double");
        return false;
      }
    }
    *slot = BasicJson(value);
    return true;
  }

  bool Fail(std::string message, const char* at) {
    error_ =
        Error(ErrorCode::kParse, std::move(message) + " at byte " + std::to_string(Offset(at)));
    return false;
  }

  bool Expecting(std::string_view what) {
    if (p_ == end_) return Fail("unexpected end of input; expected " + std::string(what), p_);
    return Fail("unexpected " + Printable(*p_) + "; expected " + std::string(what), p_);
  }

  void FailLimit(std::string message) { error_ = Error(ErrorCode::kLimit, std::move(message)); }

  size_t Offset(const char* at) const { return static_cast<size_t>(at - begin_); }

  const char* begin_;
  const char* p_;
  const char* end_;
  JsonParseLimits limits_;
  std::vector<Frame> stack_;
  std::string key_;
  std::optional<Error> error_;
};

}  // namespace

template <class BasicJson>
Expected<BasicJson> ParseJson(std::string_view text, const JsonParseLimits& limits) {
  return Parser<BasicJson>(text, limits).Run();
}

template Expected<nlohmann::json> ParseJson(std::string_view, const JsonParseLimits&);
template Expected<nlohmann::ordered_json> ParseJson(std::string_view, const JsonParseLimits&);

}  // namespace crux::text
