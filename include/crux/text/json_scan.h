// JsonScanner: an incremental validator for one JSON value (RFC 8259) fed in pieces.
//
// Feed() consumes bytes until the value is complete or proven invalid, and reports how many
// bytes it took; bytes after the value are left to the caller. State is a few integers and a
// bracket stack: no allocation once the stack has grown, no re-scan of consumed bytes.
// Strings are checked for JSON syntax (escapes, no raw control characters, surrogate escapes
// in pairs), not for UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace crux::text {

// What an incremental reader says after a piece of input: it needs more, it is done (the
// value, string or call ended), or the input is not what it reads. Every streaming component
// of crux's parsers reports this one type.
enum class FeedStatus : uint8_t { kNeedMore, kDone, kError };

class JsonScanner {
 public:
  using Status = FeedStatus;

  // Consumes from `text`; `consumed` is set to the bytes used (leading whitespace included;
  // for kDone, up to and including the value's last byte; for kError, up to the bad byte).
  Status Feed(std::string_view text, size_t& consumed);

  // End of input: completes a top-level number; anything else unfinished is an error.
  Status Finish();

  void Reset();

  bool done() const { return state_ == State::kDone; }
  bool started() const { return state_ != State::kStart; }
  size_t depth() const { return stack_.size(); }
  // The first significant byte of the value ('{', '[', '"', 't', '-', '1', ...), or 0.
  char first_byte() const { return first_; }
  const char* error() const { return error_; }

 private:
  enum class State : uint8_t {
    kStart,      // before the value: whitespace, then a value
    kValue,      // a value is expected (after ':' or ',' in an array, or '[')
    kKeyOrEnd,   // after '{': a key or '}'
    kKey,        // after ',' in an object: a key
    kColon,      // after a key
    kAfter,      // after a value inside a container: ',' or the closer
    kString,     // inside a string
    kEscape,     // after a backslash
    kUnicode,    // inside \uXXXX; `count_` hex digits left, `unit_` the value so far
    kSurrogate,  // after a high surrogate escape: the backslash of its low half
    kNumber,     // inside a number; `number_` tracks the part
    kLiteral,    // inside true/false/null; `literal_` and `count_` track progress
    kDone,
    kError,
  };
  enum class NumberPart : uint8_t { kSign, kZero, kInt, kDot, kFrac, kExp, kExpSign, kExpDigits };

  // What one byte did (Feed turns it into `consumed` and a Status).
  enum class Step : uint8_t {
    kNext,       // consumed; on to the next byte
    kReread,     // the value before it ended: read the byte again in the new state
    kEndAfter,   // the top-level value ended with this byte
    kEndBefore,  // the top-level value ended before this byte
    kFail,       // an error (error_ says which)
  };

  bool StartValue(char c);
  void ValueEnded();
  bool NumberByte(char c, bool& ends);
  Status Fail(const char* why);
  // One handler per state (ByteStep dispatches on state_).
  Step ByteStep(char c);
  Step StringByte(char c);
  Step EscapeByte(char c);
  Step UnicodeByte(char c);
  Step LiteralByte(char c);
  Step NumberStep(char c);
  Step ValueByte(char c);
  Step KeyByte(char c);
  Step ColonByte(char c);
  Step AfterByte(char c);
  Step Ended();
  Step FailStep(const char* why);

  State state_ = State::kStart;
  NumberPart number_ = NumberPart::kSign;
  bool string_is_key_ = false;
  bool array_may_close_ = false;  // kValue right after '[': ']' closes an empty array
  uint8_t count_ = 0;
  uint16_t unit_ = 0;      // the UTF-16 code unit of a \uXXXX escape
  bool want_low_ = false;  // a high surrogate was read; a low surrogate escape must follow
  const char* literal_ = nullptr;
  char first_ = 0;
  const char* error_ = "";
  std::vector<char> stack_;  // '{' or '['
};

// Appends `text` to `out` as the contents of a JSON string (no quotes): escapes quotes,
// backslashes and control characters; invalid UTF-8 bytes become U+FFFD.
void AppendJsonEscaped(std::string& out, std::string_view text);

// Appends `text` as a quoted JSON string.
void AppendJsonString(std::string& out, std::string_view text);

// Decodes the body of a JSON string (no quotes). Returns false on a bad escape.
bool DecodeJsonString(std::string_view body, std::string& out);

}  // namespace crux::text
