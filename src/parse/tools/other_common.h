// Helpers shared by the families of the "other" group (llama, gemma4, harmony, pythonic, lfm2,
// muse_glimmer, auto): streaming Python keyword arguments → JSON, a top-level key tracker for
// JSON envelopes, the Python call-list declaration and its parser, and the family detection
// (detect.cc, its tables built from the formats' declarations). Also the parser factories of the
// group's families (one .cc file per family, beside its declaration).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parse/tools/toolkit.h"

namespace crux::parse::tools {

// Longest function name (or parameter name) accepted in markup; longer is not a call.
inline constexpr size_t kMaxNameLength = 256;

// Streams the keyword arguments of a Python call — the bytes after `name(` up to and including
// the closing `)` — as the JSON text of an object: `a='x', b=[1, True], c={'k': None})` →
// `{"a": "x", "b": [1, true], "c": {"k": null}}`. Strings ('…' or "…", Python escapes) stream
// as escaped JSON text as they arrive; numbers and words are written when they end. JSON
// literals true/false/null are accepted beside True/False/None (LFM2 writes both); tuples
// become arrays; dict keys must be strings or numbers; trailing commas are allowed.
// Positional arguments, names, calls, sets and other expressions are errors.
// State is a few integers and a container stack; per byte O(1).
class PythonArgs {
 public:
  using Status = text::FeedStatus;

  // Consumes from `text`, appending JSON to `out`; `consumed` counts the bytes used (for
  // kDone, up to and including the closing parenthesis; for kError, up to the bad byte).
  Status Feed(std::string_view text, size_t& consumed, std::string& out);
  // Feeds as Feed and streams the JSON written as the arguments of call `name` into `sink`,
  // beginning the call (unless `begun`) with the first byte written — before an error is
  // reported, so the call begins at the same byte however the text is cut.
  Status FeedCall(std::string_view text, size_t& consumed, std::string_view name, bool begun,
                  CallSink& sink);
  void Reset();

 private:
  enum class State : uint8_t {
    kArgStart,    // a keyword or ')'
    kArgName,     // inside the keyword
    kArgEquals,   // after the keyword: '='
    kValue,       // a value (or a closer right after an opener / a comma)
    kString,      // inside a string
    kEscape,      // after a backslash in a string
    kHex,         // inside \x, \u or \U; `hex_left_` digits left
    kToken,       // a number or a word
    kAfterValue,  // ',' or a closer
    kDictColon,   // after a dict key: ':'
    kDone,
    kError,
  };

  // Steps: each consumes bytes of the current state and returns how many (0: the same byte
  // is read again in the state it switched to).
  size_t ArgStep(char c, std::string& out);
  size_t ValueStep(char c, std::string& out);
  size_t StringStep(std::string_view rest, std::string& out);
  size_t EscapeStep(char c, std::string& out);
  size_t HexStep(char c, std::string& out);
  size_t TokenStep(char c, std::string& out);
  size_t AfterValueStep(char c, std::string& out);
  size_t Fail();
  // A value starts with `c`; false when it cannot.
  bool StartValue(char c, std::string& out);
  // The token ended; writes it. False when it is not a literal.
  bool EndToken(std::string& out);
  // A value (string, token or container) ended.
  void ValueEnded();
  bool CloseContainer(char c, std::string& out);

  State state_ = State::kArgStart;
  std::string written_;      // FeedCall: the JSON of one feed
  std::vector<char> stack_;  // '[', '(' or '{'
  ArgsWriter writer_;
  std::string name_;   // the keyword being read
  std::string token_;  // the number or word being read
  char quote_ = 0;
  bool key_ = false;            // the string/token being read is a dict key
  bool pending_comma_ = false;  // a ',' was read in a container; written before the next item
  int hex_left_ = 0;
  char32_t code_ = 0;
};

// Follows the top-level keys of one JSON object fed in pieces (alongside JsonCallObject): the
// first key (to tell a call envelope from other JSON early) and whether an arguments key
// ("parameters" or "arguments") occurs. Does not validate.
class JsonKeyTracker {
 public:
  void Feed(std::string_view bytes);
  void Reset();

  // The first key, or its beginning while it is being read (at most 16 bytes kept).
  std::string_view first_key() const { return first_key_; }
  bool first_key_done() const { return keys_ > 0; }
  // True once a byte other than whitespace or '"' followed the opening brace: no key comes.
  bool no_key() const { return no_key_; }
  bool has_args() const { return has_args_; }

 private:
  int depth_ = 0;
  int keys_ = 0;
  bool in_string_ = false;
  bool escape_ = false;
  bool key_string_ = false;
  bool expect_key_ = false;
  bool no_key_ = false;
  bool has_args_ = false;
  std::string key_;
  std::string first_key_;
};

// A family whose calls form a Python-style list `[f(a=1), g(b="x")]` (pythonic, lfm2, olmo3),
// as data; MakePythonListParser runs any such declaration. Items are Python calls (keyword
// arguments streamed by PythonArgs; a call begins with its first argument, so `[see(figure 1)]`
// never shows a call) or, where allowed, JSON envelopes. Each item is a region of its own; the
// separators before an item belong to its region. Calls already complete stay calls.
//  - `open` empty: a bare '[' followed by whitespace, a name and '(' opens the list anywhere in
//    the text (the bytes from '[' are held until that is decided; `[1, 2]` is content) and the
//    list's ']' ends the block. A malformed item is returned as content at once (with the
//    separators before it, or the '[' for the first item); the bytes after it are read as
//    text again.
//  - `open` set: the block starts at the marker; the list follows after whitespace and ends
//    with `close` (whitespace before it is dropped; other bytes end the block and are
//    content). A malformed item is returned as content with the whole block up to and
//    including `close`; a missing `close` is tolerated.
struct PythonListSyntax {
  std::string_view open = {};               // the block's start marker; empty: a bare call list
  std::string_view close = {};              // the block's end marker (used only with `open`)
  std::vector<std::string_view> drop = {};  // wrappers removed where they occur outside a block
  // After `open`, the list may come without '[' … ']' (its items then end at the first byte that
  // is neither an item nor a separator). Otherwise a block without '[' is malformed.
  bool optional_brackets = false;
  bool json_items = false;  // an item may be a JSON envelope {"name": …, "arguments": …}
  bool line_items = false;  // a newline separates items, like a comma (one call a line)
};

// A PythonListSyntax with its marker sets built: the block's start (a bare '[' when `open` is
// empty) then the wrappers, and the end marker. Immutable; one static instance per family.
class PythonListFormat {
 public:
  explicit PythonListFormat(PythonListSyntax syntax);

  const PythonListSyntax& syntax() const { return syntax_; }
  const text::MarkerSet& outside() const { return outside_; }
  const text::MarkerSet& close() const { return close_; }

 private:
  PythonListSyntax syntax_;
  text::MarkerSet outside_;
  text::MarkerSet close_;
};

// `format` must outlive the parser (a static declaration).
std::unique_ptr<ToolParser> MakePythonListParser(const ToolParserOptions& options,
                                                 const PythonListFormat& format);

// Returns 1 when `rest` (starting at '[') opens a Python call list — '[', whitespace, a name,
// '(' —, -1 when it cannot, 0 when more bytes are needed.
int CallListAt(std::string_view rest, bool at_end);

// True when `first_key` (possibly incomplete) can still be "name" or "type", the keys a bare
// JSON call envelope starts with.
bool CanStartEnvelope(std::string_view first_key, bool complete);

// Family detection (detect.cc): one table of distinctive markers for every family.
enum class Verdict : uint8_t { kNone, kFamily, kNeedMore };
struct Detection {
  Verdict verdict = Verdict::kNone;
  std::string_view family;  // kFamily: a registered name (or one another group registers)
};
// The start markers of every family, as they appear in model output.
const text::MarkerSet& OutputStartMarkers();
// `text` starts with the OutputStartMarkers() marker `id`: its family, or kNeedMore when the
// bytes after a shared marker do not decide yet (at most a few hundred are looked at).
Detection ClassifyAtMarker(int id, std::string_view text, bool at_end);
// `text` is the output from its first non-space byte: a bare JSON envelope (llama), a Python
// call list (pythonic) or a ` to=…<|message|>` header (muse_glimmer / harmony).
Detection ClassifyBareStart(std::string_view text, bool at_end);
std::optional<std::string_view> DetectFromOutput(std::string_view text);
std::optional<std::string_view> DetectFromTemplate(std::string_view source);
bool IsRegisteredFamily(std::string_view family);

// The families of the group (one file each).
std::unique_ptr<ToolParser> MakeLlamaParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeGemma4ToolParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeHarmonyToolParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakePythonicParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeLfm2Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeMuseGlimmerParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeAutoParser(const ToolParserOptions& options);

}  // namespace crux::parse::tools
