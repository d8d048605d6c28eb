// Argument values written as plain text (XML-style formats): a parameter's schema type and
// nullability, and a string value streamed as escaped JSON while it arrives — trimmed as the
// format's template lays it out, and `null` when the parameter is nullable and the value is the
// bare word. Shared by every format that reads key/value arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "crux/parse/parser.h"

namespace crux::parse::tools {

// How string-typed values are trimmed (non-string values are always trimmed before typing).
enum class ValueTrim : uint8_t {
  kNone,        // verbatim
  kOneNewline,  // one leading and one trailing "\n" dropped (Qwen3-Coder layout)
  kStrip,       // leading and trailing whitespace dropped
};

// Streams the text of a string value as escaped JSON (no quotes), trimming as configured.
// Holds back only trailing whitespace that trimming may still drop.
class StringValueStream {
 public:
  void Start(ValueTrim trim);
  void Append(std::string_view text, std::string& out);

 private:
  ValueTrim trim_ = ValueTrim::kNone;
  bool started_ = false;
  std::string held_;  // trailing whitespace not yet known to be inside the value
};

// A parameter's schema type, and whether its schema also allows null (`["string", "null"]`,
// `anyOf: [{…}, {"type": "null"}]`).
struct ValueType {
  ParamType type = ParamType::kAny;
  bool nullable = false;
};

// The schema type of `param` of tool `tool` (kAny, not nullable, when unknown).
ValueType ValueTypeOf(const ToolParserOptions& options, std::string_view tool,
                      std::string_view param);

// True when `text`, surrounding whitespace aside, is the bare word `null`.
bool IsBareNull(std::string_view text);

// Streams one string value with its quotes: `"…"`, or `null` when the parameter is nullable and
// the whole value is the bare word null. For a nullable parameter the opening quote waits
// until the text can no longer be `null` (at most the word and the whitespace around it);
// otherwise it is written at Start.
class StringValue {
 public:
  void Start(ValueTrim trim, bool nullable, std::string& out);
  void Append(std::string_view text, std::string& out);
  // The value cannot be null (it was written as CDATA, say).
  void NotNull(std::string& out);
  void End(std::string& out);

 private:
  StringValueStream stream_;
  bool undecided_ = false;  // nullable, and all text so far is whitespace and a prefix of null
  size_t matched_ = 0;      // bytes of "null" seen
  std::string pending_;     // the text held while undecided
};

// ConvertValue, minus its undefined behaviour: toolkit's ConvertValue casts an integer-typed
// value such as `2.5e20` or `1e400` to long long before checking its range. Such values are
// returned as the JSON number they are, as ConvertValue means to.
std::string ConvertTyped(std::string_view text, ParamType type, bool python_literals);

// The value of one XML-style parameter, written to the arguments JSON text `out`: a string
// streams as a JSON string as it arrives (`null` when the parameter is nullable and the value
// is the bare word); other types are buffered and converted when the value is complete.
class ParamValue {
 public:
  void Begin(ValueType type, std::string& out);
  void Text(std::string_view text, std::string& out);
  void End(std::string& out);

 private:
  ValueType type_;
  std::string buffer_;
  StringValue string_;
};

}  // namespace crux::parse::tools
