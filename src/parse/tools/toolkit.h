// The shared toolkit every tool-call family is built from:
// * ToolParserCore — the driver: StreamBuffer hold-back, trimmed content, the call lifecycle
//   (begin / argument fragments / end / cancel), ids, and the raw text of the open call so a
//   malformed call can be returned as content instead of being dropped.
// * JsonStringDecoder — decodes a JSON string body incrementally (escapes split anywhere).
// * JsonCallObject — streams one JSON call object ({"name": …, "arguments": {…}} by default;
//   the keys are configurable, and the function name may be the object's only key): the name
//   is sent once, the arguments are validated byte by byte and passed through as they arrive.
// * ArgsWriter — builds an arguments object from key/value parts (XML-style families), with
//   values typed from the tool's schema (ConvertValue).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/parser.h"
#include "crux/text/ids.h"
#include "crux/text/json_scan.h"
#include "crux/text/json_text.h"
#include "crux/text/marker_set.h"
#include "crux/text/stream_buffer.h"

namespace crux::parse::tools {

// Bytes of a function name written bare in markup: [A-Za-z0-9_.-] (tool names may carry '-'
// and '.', which the reference rejects).
inline bool IsNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.';
}
inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// Where call events go. ToolParserCore implements it; components (JsonCallObject, …) call it.
class CallSink {
 public:
  // Starts a call (at most once per region). `id` empty: a generated "call_…" id (the id of
  // the last cancelled call when there is one).
  virtual void BeginCall(std::string_view name, std::string id = {}) = 0;
  virtual void Args(std::string_view fragment) = 0;
  // The arguments are complete.
  virtual void EndCall() = 0;
  virtual ~CallSink() = default;
};

// Returned by a state-machine step that must see more text before it can use any.
inline constexpr size_t kHold = static_cast<size_t>(-1);

class ToolParserCore : public ToolParser, public CallSink {
 public:
  explicit ToolParserCore(const ToolParserOptions& options);

  void BeginCall(std::string_view name, std::string id = {}) override;
  void Args(std::string_view fragment) override;
  void EndCall() override;

  void Feed(std::string_view delta, EventSink& out) final;
  void Finish(EventSink& out) final;
  void Reset() final;

 protected:
  // Family hook: processes `text` (held bytes + delta; an unfinished UTF-8 character is kept
  // out unless `at_end`) and returns how many bytes it consumed; the rest is held back and
  // offered again, followed by the next delta. Must not consume bytes it cannot decide on.
  virtual size_t Process(std::string_view text, bool at_end) = 0;
  // Family hook: end of stream, after the last Process(…, at_end = true). The default
  // cancels a call that is still open (its raw text becomes content).
  virtual void OnFinish();
  // Family hook: return to the initial state (the core resets its own state).
  virtual void OnReset() = 0;

  // Answer text outside calls (trimmed like complete extraction).
  void Content(std::string_view text);

  // The call region: from the start marker to the end marker. Everything consumed inside it
  // is recorded with Capture() so that a malformed call can be given back as content.
  void OpenRegion(std::string_view marker_text);
  void Capture(std::string_view text) { raw_.append(text); }
  bool region_open() const { return region_open_; }
  // Closes the region: the call (if begun and not ended) is ended.
  void CloseRegion();
  // Abandons the region: a begun call is cancelled, and the raw text becomes content.
  void CancelRegion();

  bool call_begun() const { return call_begun_; }
  bool call_ended() const { return call_ended_; }

  // Runs a family's state machine over `text`: `step(rest)` handles the bytes at the front and
  // returns how many it used (0 is fine when it moved to another state), or kHold when it must
  // see more text first. Returns the bytes used.
  template <class Step>
  static size_t RunSteps(std::string_view text, Step&& step) {
    size_t pos = 0;
    while (pos < text.size()) {
      const size_t n = step(text.substr(pos));
      if (n == kHold) break;
      pos += n;
    }
    return pos;
  }
  // The same for machines whose whole state is `state`: a step that uses nothing and leaves
  // `state` as it was waits for more text.
  template <class State, class Step>
  static size_t RunSteps(std::string_view text, const State& state, Step&& step) {
    return RunSteps(text, [&](std::string_view rest) {
      const State before = state;
      const size_t n = step(rest);
      return n == 0 && state == before ? kHold : n;
    });
  }

  const ToolParserOptions& options() const { return options_; }
  text::IdGenerator& ids() { return ids_; }
  EventSink& out() { return *out_; }

 private:
  void Run(std::string_view delta, bool at_end);

  const ToolParserOptions options_;
  text::IdGenerator ids_;
  text::StreamBuffer buffer_;
  text::TrimStream content_;
  std::string scratch_;
  std::string raw_;
  std::string current_id_;  // the id of the open call
  std::string spare_id_;    // the id of a cancelled call, given to the next call (so ids do not
                            // depend on whether a malformed call had begun before it failed)
  EventSink* out_ = nullptr;
  int next_index_ = 0;
  bool region_open_ = false;
  bool call_begun_ = false;
  bool call_ended_ = false;
};

// Decodes the body of a JSON string (after the opening quote) incrementally. Stops at the
// closing quote. Escapes may be split across feeds.
class JsonStringDecoder {
 public:
  using Status = text::FeedStatus;
  // Appends decoded bytes to `out`; `consumed` counts input bytes (the closing quote included
  // when kDone).
  Status Feed(std::string_view text, size_t& consumed, std::string& out);
  void Reset();

 private:
  enum class State : uint8_t { kPlain, kEscape, kUnicode };
  // One step of Feed: the bytes it used, and whether the string ended or is malformed.
  struct Step {
    size_t n;
    Status status;
  };
  Step Plain(std::string_view rest, std::string& out);
  Step Escape(char c, std::string& out);
  Step Unicode(char c, std::string& out);
  // A high surrogate not followed by a low one is written as U+FFFD.
  void FlushHigh(std::string& out);

  State state_ = State::kPlain;
  int hex_left_ = 0;
  char32_t code_ = 0;
  char32_t high_surrogate_ = 0;
};

enum class CallShape : uint8_t {
  kEnvelope,       // {"name": "f", "arguments": {…}} (other keys are validated and ignored)
  kFunctionIsKey,  // {"f": {…}}: the only key is the function name
};

// Which keys of a JSON call object carry the name and the arguments.
struct CallKeys {
  CallShape shape = CallShape::kEnvelope;
  std::string_view name = "name";
  std::string_view name_alt = {};  // a second accepted name key (empty: none)
  std::string_view args = "arguments";
  std::string_view args_alt = "parameters";
  bool args_required = false;  // an object without an arguments key is not a call (kError)
};

// {"name": …, "arguments" | "parameters": …}: the envelope most families write.
inline constexpr CallKeys kEnvelopeKeys{};

// Streams one JSON call object: {"name": "f", "arguments": {…}} with the keys of CallKeys
// (other keys are validated and ignored). The arguments may be an object, a JSON string holding an
// object, or null (→ {}). The call begins once the name is known and the arguments have
// started (arguments seen before the name are buffered); argument bytes pass through as
// they are validated; EndCall comes with the object's closing brace. No name, non-object
// arguments or invalid JSON is kError.
class JsonCallObject {
 public:
  using Status = text::FeedStatus;

  void Reset(const CallKeys& keys);
  void Reset() { Reset(kEnvelopeKeys); }
  bool started() const { return state_ != State::kStart; }
  // Consumes object bytes (leading whitespace allowed); `consumed` excludes a bad byte.
  Status Feed(std::string_view text, size_t& consumed, CallSink& sink);

 private:
  enum class State : uint8_t {
    kStart,
    kKeyOrEnd,
    kKey,
    kKeyString,
    kColon,
    kValue,
    kName,
    kArgs,
    kArgsString,
    kSkipValue,
    kAfterValue,
    kDone,
    kError
  };
  enum class KeyKind : uint8_t { kName, kArgs, kOther };

  // Bytes consumed by one step, and kNeedMore to go on.
  struct Step {
    size_t n;
    Status status;
  };
  Step Punctuation(char c, CallSink& sink);
  Step ReadString(std::string_view rest, CallSink& sink);  // a key or the name
  Step ReadArgs(std::string_view rest, CallSink& sink);
  Step ReadArgsString(std::string_view rest, CallSink& sink);
  Step ReadSkipped(std::string_view rest);
  bool KeyDone();
  bool ValueStart(char c, CallSink& sink);
  bool ArgsStringBytes(CallSink& sink);
  void ArgsBytes(std::string_view bytes, CallSink& sink);
  void MaybeBegin(CallSink& sink);
  bool Finish(CallSink& sink);

  const CallKeys* keys_ = &kEnvelopeKeys;
  State state_ = State::kStart;
  KeyKind key_kind_ = KeyKind::kOther;
  int key_count_ = 0;
  std::string key_;
  std::string name_;
  bool has_name_ = false;
  bool has_args_ = false;
  bool args_null_ = false;
  bool begun_ = false;
  std::string pending_args_;  // arguments seen before the name
  std::string decoded_;       // scratch for string-wrapped arguments
  JsonStringDecoder string_;
  text::JsonScanner args_;
  text::JsonScanner skip_;
};

// Converts a parameter value written as plain text (XML-style families) to JSON text, typed
// by the schema: strings stay strings (verbatim); integers, numbers, booleans and null are
// parsed from the trimmed text (falling back to a string when the text is not one); objects
// and arrays are parsed as JSON, then as a Python literal, else kept as a string; untyped
// values are JSON when they parse (then, with `python_literals`, a Python literal), else a
// string.
std::string ConvertValue(std::string_view text, ParamType type, bool python_literals = false);

// True when `text` (surrounding whitespace allowed) is exactly one valid JSON value.
bool IsJsonValue(std::string_view text);

// Parses a Python literal (str with ' or ", int, float, True/False/None, list, tuple, dict,
// set) to JSON text; nullopt when `text` is not one.
std::optional<std::string> PythonLiteralToJson(std::string_view text);

// The reverse, as Python's repr() writes it: {'k': [1, True, None]}; "" when `json` is not
// JSON. For renderers (tests, benchmarks).
std::string JsonToPythonLiteral(std::string_view json);

// Renderer toolkit (python_render.cc). Arguments stay text: these walk JSON text with an
// explicit stack (text::JsonTokenReader), so renderers handle arguments of any depth and
// width in linear time, where a tree would recurse and ordered_json insert quadratically.

// A literal syntax that mirrors JSON's structure (Python's repr, Gemma's literals).
struct LiteralStyle {
  std::string_view item_separator;  // between elements and members
  std::string_view key_separator;   // between a key and its value
  // Writes a decoded string; `key`: an object member's name.
  void (*string)(std::string& out, std::string_view decoded, bool key);
  std::string_view true_text, false_text, null_text;  // numbers are written as in the JSON
};

// Appends the JSON value `json` in `style`; appends nothing when `json` is not one JSON value.
void AppendLiteral(std::string& out, std::string_view json, const LiteralStyle& style);

// One member of a JSON object held as text.
struct JsonMember {
  std::string key;         // decoded
  std::string_view value;  // the value's JSON text, as written
  text::JsonType type;
};

// The members of `json`, in order, when it is a JSON object; empty otherwise.
std::vector<JsonMember> ObjectMembers(std::string_view json);

// The decoded contents of a JSON string literal (quotes included in `literal`).
std::string DecodedString(std::string_view literal);

// `json` (one JSON value) without whitespace between tokens.
std::string CompactJson(std::string_view json);

// Builds {"k": v, …} incrementally: Key() writes `{"k": ` or `, "k": `; string values can be
// streamed with StringBegin/StringPart/StringEnd; Close() writes `}` (or `{}`).
class ArgsWriter {
 public:
  void Reset() { keys_ = 0; }
  void Key(std::string& out, std::string_view key);
  void StringBegin(std::string& out) { out.push_back('"'); }
  void StringPart(std::string& out, std::string_view text) { text::AppendJsonEscaped(out, text); }
  void StringEnd(std::string& out) { out.push_back('"'); }
  void Close(std::string& out);
  int keys() const { return keys_; }

 private:
  int keys_ = 0;
};

// True when `name` is a declared function tool, or when no tools were declared.
bool IsDeclared(const ToolParserOptions& options, std::string_view name);

// The schema type of `param` of tool `name` (kAny when unknown).
ParamType ParamTypeOf(const ToolParserOptions& options, std::string_view name,
                      std::string_view param);

}  // namespace crux::parse::tools
