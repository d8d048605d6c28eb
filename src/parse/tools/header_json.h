// The "marker, header, JSON object, end marker" call syntax as data, and the one parser that
// reads every format declared with it (Kimi K2, Solar Open, DeepSeek V3/R1/V3.1, Mistral,
// Functionary). A format declares one or more call layouts (HeaderCall), each
//   CALL_BEGIN field [BEGIN field]… [ARGS_BEGIN] [FENCE] {json} [FENCE_CLOSE] [CALL_END]
// * Call begins. Each layout opens at its own marker. A layout with an empty `call_begin` opens
//   at the very start of the output (leading whitespace is content) when the first byte is one
//   its first field may hold (or `[` with json_calls); a prompt that ends with a call marker
//   leaves such a bare header (Functionary v3.2's `NAME\n{…}` after `>>>`). One at most.
// * Fields. Field 0 follows the call begin; each later one follows its own `begin` marker and,
//   when `optional`, may be left out with it (fields keep their declared order). A field runs
//   up to the next marker of the header, is trimmed, and is the call's id, its name, or an id
//   that also names the function (`functions.NAME:IDX`). `text` limits its bytes (one word;
//   one word of [A-Za-z0-9_.-]; exactly such a name, no whitespace around it): the call breaks
//   at the first byte the field may not hold, so prose after a call marker is given back at
//   once. When several fields are names, the last non-empty one names the call (DeepSeek's
//   `function<sep>NAME` beside V3.1's `NAME<sep>`).
// * `content_names`: a header whose name is one of these (ASCII case-insensitive) is no call
//   (Functionary's recipients `all` and `user`): the header is dropped and what follows it
//   is read as outside text.
// * Arguments follow `args_begin`, or (`bare_args`) start right after a field at `{` or at the
//   fence. An optional code fence (one of `fence_open`, then `fence_close` after the object)
//   may wrap them. Empty arguments (the call end right after args_begin) are `{}`; anything
//   else must be a JSON object, else the call's text is returned as content.
// * After the object: whitespace and the fence close, then the call end; anything else ends
//   the call (its arguments are complete) and is read as outside text. A malformed call is given
//   back up to its call end or the next call begin. Without a `call_end` the call ends with its
//   object, and a malformed one is given back up to the byte that broke it.
// * `json_calls`: right after the call begin (whitespace allowed), `[` starts a JSON list of
//   call objects and (kListOrObject) `{` one call object (`{"name": …, "arguments": …}`)
//   instead of a header. A list without calls after an empty call begin is text.
// * Ids: a field's, else generated (the core's `call_…` ids, or `id_length` alphanumerics).
// * `args_envelope`: the object after `args_begin` is a call envelope with these keys (Inkling's
//   `{"name": …, "args": {…}}`) instead of the arguments; its name must equal the header's
//   name, else the call is malformed.
// Outside calls, the declared wrappers are dropped (list a call end there to drop it when it
// comes without a call; otherwise it is text, as `</function>` in prose is), `drop_word` ones
// with the word of [A-Za-z0-9_.-] right after them (a role: `<|from|>assistant`); markers
// that open or close a block of calls make the whitespace between its calls layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "crux/parse/parser.h"
#include "crux/text/marker_set.h"
#include "parse/tools/toolkit.h"

namespace crux::parse::tools {

struct HeaderField {
  enum class Kind : uint8_t {
    kId,        // the call id the model writes (empty: a generated id)
    kName,      // the function name (empty: the name of an earlier name field)
    kNamingId,  // an id that also names the function: `functions.NAME:IDX`, or the part
                // after the last '.' without a `:IDX` suffix
  };
  enum class Text : uint8_t {
    kAny,        // any bytes
    kWord,       // no whitespace inside (around is fine)
    kNameWord,   // a word of [A-Za-z0-9_.-]
    kTightName,  // [A-Za-z0-9_.-] only, no whitespace around it
  };
  Kind kind;
  std::string_view begin = {};  // the marker before the field; field 0 follows the call begin
  size_t max = 256;             // a longer field is not a header
  bool optional = false;        // the field and its `begin` may be left out
  Text text = Text::kAny;
};

// What may follow a call begin instead of a header (HeaderCall::json_calls).
enum class JsonCalls : uint8_t {
  kNone,
  kList,          // `[`: a JSON list of call objects
  kListOrObject,  // `[`, or `{`: one call object
};

// One layout of a call: its begin marker, header fields, arguments and end.
struct HeaderCall {
  std::string_view call_begin;  // empty: opens at the start of the output, without a marker
  std::vector<HeaderField> fields;
  std::string_view args_begin = {};  // the marker before the arguments (empty: none)
  bool bare_args = false;            // the arguments may also start at `{` or at the fence
  std::vector<std::string_view> fence_open = {};  // an optional fence before the object
  std::string_view fence_close = {};              // and after it (needs a call end)
  std::string_view call_end = {};                 // empty: the call ends with its object
  JsonCalls json_calls = JsonCalls::kNone;
  std::vector<std::string_view> content_names = {};  // names that are not calls: text follows
  const CallKeys* args_envelope = nullptr;  // the arguments are a call envelope (see above)
};

struct HeaderJsonSyntax {
  std::vector<HeaderCall> calls;  // the layouts, each opened by its own call begin
  int id_length = 0;              // > 0: generated ids are this many random alphanumerics
  std::vector<std::string_view> block_open = {};   // dropped; calls inside are a block
  std::vector<std::string_view> block_close = {};  // dropped; the block ends
  std::vector<std::string_view> drop = {};         // other wrappers dropped from content
  std::vector<std::string_view> drop_word = {};    // dropped with the name word after them
};

// A HeaderJsonSyntax with its marker sets built. Immutable; one static instance per format.
class HeaderJsonFormat {
 public:
  static constexpr size_t kNoCall = static_cast<size_t>(-1);

  // What a marker of outside() does.
  struct OutsideMarker {
    enum class Role : uint8_t {
      kCall,        // begins a call of layout `call`
      kBlockOpen,   // block_open
      kBlockClose,  // block_close
      kDrop,        // a wrapper or a stray call end: dropped
      kDropWord,    // drop_word: dropped with the word after it
    };
    Role role = Role::kDrop;
    size_t call = 0;
  };
  // What a marker of header() does.
  struct HeaderMarker {
    enum class Role : uint8_t {
      kField,  // begins field `field`
      kArgs,   // args_begin: the arguments follow it
      kBare,   // `{` or a fence: the arguments' first bytes
      kWrong,  // a call end or a call begin: the header is broken
    };
    Role role = Role::kWrong;
    size_t field = 0;
  };

  explicit HeaderJsonFormat(HeaderJsonSyntax syntax);

  const HeaderJsonSyntax& syntax() const { return syntax_; }
  // The layout with an empty call begin (kNoCall: none).
  size_t start_call() const { return start_call_; }
  // The call begins, the block opens and closes, the drops, the drop words and the call ends.
  const text::MarkerSet& outside() const { return outside_; }
  OutsideMarker outside_marker(int id) const { return outside_roles_[static_cast<size_t>(id)]; }
  // Layout `call`'s later fields' begins, args_begin, the bare starts, its call end and every
  // call begin.
  const text::MarkerSet& header(size_t call) const { return layouts_[call].header; }
  HeaderMarker header_marker(size_t call, int id) const {
    return layouts_[call].roles[static_cast<size_t>(id)];
  }
  const text::MarkerSet& fence(size_t call) const { return layouts_[call].fence; }  // openers
  // [0] the call end, [1] the fence close (when declared). Used only with a call end.
  const text::MarkerSet& after(size_t call) const { return layouts_[call].after; }
  // [0] the call end (captured with the call), then every call begin.
  const text::MarkerSet& discard(size_t call) const { return layouts_[call].discard; }

 private:
  struct Layout {
    std::vector<HeaderMarker> roles;
    text::MarkerSet header, fence, after, discard;
  };

  HeaderJsonSyntax syntax_;
  size_t start_call_ = kNoCall;
  std::vector<OutsideMarker> outside_roles_;
  text::MarkerSet outside_;
  std::vector<Layout> layouts_;
};

// A parser for `format` (which must outlive it).
std::unique_ptr<ToolParser> MakeHeaderJsonParser(const HeaderJsonFormat& format,
                                                 const ToolParserOptions& options);

}  // namespace crux::parse::tools
