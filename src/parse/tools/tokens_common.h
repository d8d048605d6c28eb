// Shared pieces of the special-token and JSON-list families (group "tokens"):
// * TokenParser — ToolParserCore with its region operations opened to the components below.
// * JsonCallList — streams `[obj, obj, …]` call by call: each object is its own call region,
//   so a malformed element returns only its own text as content (objects: the toolkit's
//   JsonCallObject).
// * ListParser — a whole family for "a JSON list of calls after a start marker, up to an
//   optional end marker" (Apriel, Nemotron Nano v2, Command R7B, Firefunction v2, Apertus,
//   Granite 3, GigaChat 3, xLAM, Llama, RWKV): configured by a ListFormat. After the marker may
//   also come call objects separated by a byte such as ';', or a Python call; without a marker,
//   calls may open at the start of the output (a list, or an object held while its first key
//   can be a call's), right after a marker that stays in the content (`</think>`), inside a
//   code fence, or as `<function=NAME>{…}</function>`.
// * JsonArgs — streams one JSON arguments object that follows a marker (Mistral, DeepSeek,
//   Kimi, Solar Open, ListParser's named calls), beginning the call at its first byte.
// * BlockLayout — drops the whitespace a template puts between the markers of a call block.
// Components are per parser instance (not thread-safe); the marker sets they use are static.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "parse/tools/other_common.h"
#include "parse/tools/string_value.h"
#include "parse/tools/toolkit.h"

namespace crux::parse::tools {

// Whether a marker of `set` starts at text[0]: kWait when text[0..] is a proper prefix of one.
struct MarkerMatch {
  enum class Status : uint8_t { kNo, kWait, kFound };
  Status status = Status::kNo;
  int id = -1;
  size_t length = 0;
};
MarkerMatch MatchAt(const text::MarkerSet& set, std::string_view text, bool at_end);

// ToolParserCore whose region operations can be driven by shared components.
class TokenParser : public ToolParserCore {
 public:
  using ToolParserCore::CancelRegion;
  using ToolParserCore::Capture;
  using ToolParserCore::CloseRegion;
  using ToolParserCore::OpenRegion;
  using ToolParserCore::region_open;
  using ToolParserCore::ToolParserCore;

 protected:
  // Captures the leading whitespace of `text` into the region; returns its length.
  size_t CaptureSpace(std::string_view text);

  // Reads region text up to a marker of `set` into `into`, capturing it (and the marker).
  struct ReadResult {
    size_t consumed = 0;
    bool found = false;     // a marker ended the text (included in `consumed`)
    int id = -1;            // which one
    bool too_long = false;  // `into` grew past the limit
  };
  ReadResult ReadUntil(const text::MarkerSet& set, std::string_view text, bool at_end, size_t max,
                       std::string& into);

  // Skips the rest of a malformed call: captures text up to a marker of `set`. Marker 0 is the
  // call's end marker and is captured with it; any other marker (a next call, the end of the
  // block) is left in the text. When a marker was found the region is cancelled (its raw text
  // becomes content) and `ended` is set: the caller returns to its outside state.
  struct DiscardResult {
    size_t consumed = 0;
    bool ended = false;
  };
  DiscardResult DiscardCall(const text::MarkerSet& set, std::string_view text, bool at_end);
};

// Streams the elements of a JSON list of call objects, after its '['. The region that holds
// the '[' must be open; each later element gets its own region, opened at the element with
// the text `[` (the comma and the whitespace around it are layout between calls): a
// malformed element and the rest of the list come back as `[…]`, a list of their own, while
// the calls before it are kept.
// The list ends at ']' (the region of the last call stays open, its call ended, so that the
// family can capture an end marker) or at a byte that cannot continue the list after a
// complete call (kDone without consuming it). kError: the open region holds the bad element.
class JsonCallList {
 public:
  using Status = text::FeedStatus;

  void Reset(const CallKeys& keys);
  Status Feed(std::string_view text, size_t& consumed, TokenParser& host);
  int calls() const { return calls_; }

 private:
  enum class State : uint8_t { kFirst, kObject, kAfterObject, kAfterComma, kDone, kError };
  // What Delimiter did with its byte.
  enum class Byte : uint8_t { kTaken, kReread, kEnd, kEndBefore, kBad };

  Byte Delimiter(char c, TokenParser& host);

  const CallKeys* keys_ = nullptr;
  State state_ = State::kFirst;
  int calls_ = 0;
  JsonCallObject object_;
};

// Streams one JSON object of arguments that follows a marker; the call begins (with the
// name and id given to Start) at the object's first byte.
class JsonArgs {
 public:
  using Status = text::FeedStatus;

  void Start(std::string_view name, std::string_view id);
  // Leading whitespace is consumed; anything but an object is kError.
  Status Feed(std::string_view text, size_t& consumed, CallSink& sink);
  bool started() const { return scanner_.started(); }
  // Begins the call with `{}` arguments and ends it (an empty argument section).
  void EmitEmpty(CallSink& sink);

 private:
  std::string name_;
  std::string id_;
  text::JsonScanner scanner_;
};

// What opens a call without a start marker, at the start of the output (ListFormat::at_start).
enum class BareStart : uint8_t {
  kNone,
  kList,    // '[': a JSON list of calls (xLAM)
  kObject,  // '{': a call object, held only while its first key can still be "name" or
            // "type" (it is released as content at the byte that rules that out) (Llama)
};

// A family whose calls are a JSON list (or call objects, or a Python call) after a start
// marker, or in the places listed below.
//
// After a start marker come whitespace, then what the format accepts: a JSON list `[…]`
// (`list`), a call object `{…}` (`single`; with `separator`, several objects in a row), or a
// Python call `name(k=v, …)` (`python`). Anything else makes the marker text. A list or a
// single object may be followed by the `end` marker; an object sequence and a Python call end
// where their syntax does.
//
// Calls without a start marker: `at_start` (at the first byte after leading whitespace, and
// right after the outside marker `reopen`, which stays in the content, e.g. `</think>`); a
// code fence (the outside marker `fence`, an optional language word of up to 16 letters,
// whitespace, then a list; the same marker may close it); and `named`, an outside marker
// followed by the function name up to '>' and a JSON arguments object, optionally closed by
// `named_close` (`<function=f>{…}</function>`). These take no `end` marker.
//
// A malformed call is given back as content: after a start marker with an `end` marker, up to
// that marker; otherwise at once. Marker ids not given a role here (ids >= starts) are wrappers,
// dropped from the content.
struct ListFormat {
  const text::MarkerSet* outside = nullptr;  // start markers (ids < starts), then the others
  int starts = 1;
  const text::MarkerSet* end = nullptr;  // optional end marker; nullptr: none
  CallKeys keys = {};
  // Outside markers with ids >= tags (-1: none) begin a tag that runs to the next '>' over
  // bytes of `tag_chars` (e.g. Cohere's citation end `</co: 0:[1,2]>`): the whole tag is
  // dropped. A tag that breaks off (another byte, too long, the end of the output) is text.
  int tags = -1;
  std::string_view tag_chars = {};
  BareStart at_start = BareStart::kNone;
  int reopen = -1;  // outside marker id (>= starts) after which `at_start` holds again
  int fence = -1;   // outside marker id (>= starts) that opens a code fence
  int named = -1;   // outside marker id (>= starts) followed by `NAME>` and JSON arguments
  std::string_view named_close = {};
  bool list = true;     // a JSON list may follow a start marker
  bool single = true;   // a call object may follow a start marker
  char separator = 0;   // between call objects in a row (0: one object). A dangling
                        // separator at the end of the output is dropped; one followed
                        // by anything but an object is content.
  bool python = false;  // a Python call may follow a start marker
  std::string_view python_suffix = {};  // dropped from a Python call's name (".call")
  bool empty_is_text = false;           // a list without calls (`[]`) is text, not an empty block
  // After a start marker (and whitespace), this fence opener and a language word may come
  // before the list or object, and the same marker after it (RWKV's `**Tool Call:**` then a
  // ```json fence). Empty: none.
  std::string_view start_fence = {};
};

class ListParser : public TokenParser {
 public:
  ListParser(const ToolParserOptions& options, const ListFormat& format)
      : TokenParser(options), format_(format) {}

 private:
  enum class State : uint8_t {
    kStart,  // a call may open here without a marker (ListFormat::at_start, reopen)
    kOutside,
    kFenceHead,  // after the fence marker: the language word, whitespace, then '['
    kOpen,       // after a start marker
    kList,
    kSingle,
    kSeparator,  // after an object of a sequence: whitespace and the separator
    kName,       // a Python call's name up to '(' or a named call's up to '>'
    kPython,
    kNamedArgs,
    kAfter,
    kDiscard,
    kTag
  };
  // What opened the call: a start marker, nothing (kStart), a fence or the named marker.
  enum class Opening : uint8_t { kMarker, kBare, kFence, kNamed };

  void OnReset() override;
  void OnFinish() override;
  size_t Process(std::string_view text, bool at_end) override;
  size_t Step(std::string_view rest, bool at_end);
  size_t Start(std::string_view rest, bool at_end);
  size_t Outside(std::string_view rest, bool at_end);
  size_t FenceHead(std::string_view rest);
  size_t Open(std::string_view rest, bool at_end);
  void StartList(Opening opening);
  void StartObject(bool held);
  size_t List(std::string_view rest);
  size_t Single(std::string_view rest);
  void ObjectDone();
  size_t Separator(std::string_view rest);
  size_t Name(std::string_view rest);
  size_t Python(std::string_view rest);
  size_t NamedArgs(std::string_view rest);
  // The marker that ends the open call, when one starts text[0].
  MarkerMatch EndAt(std::string_view text, bool at_end) const;
  size_t After(std::string_view rest, bool at_end);
  size_t Discard(std::string_view rest, bool at_end);
  size_t Tag(std::string_view rest, bool at_end);
  // The call failed: `Discard` up to the end marker, or give the text back now.
  void Failed();

  const ListFormat& format_;
  State state_ = State::kOutside;
  Opening opening_ = Opening::kMarker;
  size_t language_ = 0;        // kFenceHead: letters of the fence's language word read so far
  bool keep_end_ = true;       // kDiscard: the end marker is given back with the failed text
  bool held_ = false;          // kSingle: a bare object whose first key is not known yet
  bool separated_ = false;     // kSeparator: the separator was read
  bool start_fenced_ = false;  // a start_fence was opened after the start marker
  std::string tag_;            // kTag: the tag read so far (text if it breaks off)
  std::string pending_;        // kSeparator: what follows the object until the next byte decides
  std::string name_;           // kName, kPython: the function name
  JsonCallList list_;
  JsonCallObject object_;
  JsonKeyTracker first_key_;  // held_: the object's keys
  PythonArgs python_;
  JsonArgs json_args_;
};

// Whitespace inside a block of calls (between the block's start marker, its calls and its
// end marker) is layout, not content: templates put newlines there.
class BlockLayout {
 public:
  void Reset() { in_block_ = skip_ = false; }
  void Enter() { in_block_ = skip_ = true; }
  void Leave() { in_block_ = skip_ = false; }
  // A call just ended: whitespace after it is layout when it is inside a block.
  void AfterCall() { skip_ = in_block_; }
  // How many leading bytes of `text` are layout whitespace to drop.
  size_t Skip(std::string_view text) {
    if (!skip_) return 0;
    size_t n = 0;
    while (n < text.size() && text::IsSpace(text[n]))
      ++n;
    if (n < text.size()) skip_ = false;
    return n;
  }

 private:
  bool in_block_ = false;
  bool skip_ = false;
};

// Parser factories of the families in this group (one file each, beside its declaration).
std::unique_ptr<ToolParser> MakeMistralParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeDeepSeekParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeKimiParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeGraniteParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeFunctionaryParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeXlamParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeAprielParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeCommandR7bParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeFirefunctionParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeGigaChatParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeNemotronV2Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeSolarOpenParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeApertusParser(const ToolParserOptions& options);

}  // namespace crux::parse::tools
