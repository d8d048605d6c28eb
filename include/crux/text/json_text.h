// Iterative tools for JSON held as text: what one value is, its compact form, its tokens, and
// string literals written exactly as nlohmann::json writes them.
//
// None of them builds a tree or recurses, so argument text of any depth or width costs time
// and memory linear in its size (the bracket stack is the only state that grows with depth).
// Tool-call arguments stay text from the parser to the wire; these are what the encoders and
// renderers use to look inside them. Thread-compatible: no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crux::text {

enum class JsonType : uint8_t { kNull, kBoolean, kNumber, kString, kArray, kObject };

// The type of the one JSON value (RFC 8259) that `text` holds, surrounding JSON whitespace
// allowed; nullopt when `text` is empty, invalid, or holds more than one value. Strings are
// checked for JSON syntax, not for UTF-8 (AppendCompactJson repairs it).
std::optional<JsonType> JsonTextType(std::string_view text);

// Appends `text` without the whitespace between tokens when it is one JSON value (as
// JsonTextType says) and returns its type; otherwise appends nothing and returns nullopt.
// Tokens are copied as written (numbers and escapes are not normalised), except that invalid
// UTF-8 inside strings is repaired (utf8::AppendRepaired), so the output is valid JSON.
std::optional<JsonType> AppendCompactJson(std::string& out, std::string_view text);

// Appends `text` as a quoted JSON string byte for byte as nlohmann::json's
// dump(-1, ' ', false, error_handler_t::replace) writes a string: `"`, `\`, \b \f \n \r \t
// escaped by name, other control characters as \u00xx, everything else (DEL and non-ASCII
// included) as is, and each maximal ill-formed UTF-8 subpart as U+FFFD.
void AppendJsonStringLikeDump(std::string& out, std::string_view text);

// Reads the tokens of JSON text that is known to be valid (check it with JsonTextType
// first: on invalid text the tokens are unspecified, though reading stays in bounds and ends).
// The separators ':' and ',' are not tokens. O(1) per token; the only state is one bit per
// open container.
class JsonTokenReader {
 public:
  enum class Kind : uint8_t {
    kObjectBegin,
    kObjectEnd,
    kArrayBegin,
    kArrayEnd,
    kKey,     // an object member's name; `raw` is the quoted literal
    kString,  // `raw` is the quoted literal (decode with DecodeJsonString on its inside)
    kNumber,
    kTrue,
    kFalse,
    kNull,
    kEnd,  // no more tokens
  };
  struct Token {
    Kind kind = Kind::kEnd;
    std::string_view raw;  // the token's bytes in the text
  };

  explicit JsonTokenReader(std::string_view json) : text_(json) {}

  Token Next();
  // The raw text of the next whole value (a scalar, or a container through its closing
  // bracket) and its first token; the reader moves past it. Empty raw at the end.
  std::string_view NextValue(Token* first = nullptr);
  // Containers open after the tokens read so far.
  size_t depth() const { return in_object_.size(); }

 private:
  void SkipSeparators();

  std::string_view text_;
  size_t pos_ = 0;
  bool key_next_ = false;        // the next string is an object member's name
  std::vector<bool> in_object_;  // per open container: an object (else an array)
};

}  // namespace crux::text
