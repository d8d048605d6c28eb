// The "marker, header, JSON object, end marker" call syntax as data, and the one parser that
// reads every format declared with it (Kimi K2, Solar Open, DeepSeek V3/R1/V3.1, Mistral,
// PLaMo 3, Inkling):
//   CALL_BEGIN field [BEGIN field]… [ARGS_BEGIN] [FENCE] {json} [FENCE_CLOSE] [CALL_END]
// * Fields. Field 0 follows the call begin; each later one follows its own `begin` marker and,
//   when `optional`, may be left out with it (fields keep their declared order). A field runs
//   up to the next marker of the header, is trimmed, and is the call's id, its name, or an id
//   that also names the function (`functions.NAME:IDX`). `text` limits its bytes (one word;
//   one word of [A-Za-z0-9_.-]): the call breaks at the first byte the field may not hold, so
//   prose after a call marker is given back at once. When several fields are names, the last
//   non-empty one names the call (DeepSeek's `function<sep>NAME` beside V3.1's `NAME<sep>`).
// * Arguments follow `args_begin`, or (`bare_args`) start right after a field at `{` or at the
//   fence. An optional code fence (one of `fence_open`, then `fence_close` after the object)
//   may wrap them. Empty arguments (the call end right after args_begin) are `{}`; anything
//   else must be a JSON object, else the call's text is returned as content.
// * After the object: whitespace and the fence close, then the call end; anything else ends
//   the call (its arguments are complete) and is read as outside text. A malformed call is given
//   back up to its call end or the next call begin. Without a `call_end` the call ends with its
//   object, and a malformed one is given back up to the byte that broke it.
// * `args_envelope`: the object after `args_begin` is a call envelope with these keys (Inkling's
//   `{"name": …, "args": {…}}`) instead of the arguments; its name must equal the header's
//   name, else the call is malformed.
// * `json_calls`: right after the call begin (whitespace allowed), `[` starts a JSON list of
//   call objects and `{` one call object (`{"name": …, "arguments": …}`) instead of a header.
// * Ids: a field's, else generated (the core's `call_…` ids, or `id_length` alphanumerics).
// Outside calls, the declared wrappers are dropped; markers that open or close a block of
// calls make the whitespace between its calls layout.
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
    kAny,       // any bytes
    kWord,      // no whitespace inside (around is fine)
    kNameWord,  // a word of [A-Za-z0-9_.-]
  };
  Kind kind;
  std::string_view begin = {};  // the marker before the field; field 0 follows the call begin
  size_t max = 256;             // a longer field is not a header
  bool optional = false;        // the field and its `begin` may be left out
  Text text = Text::kAny;
};

struct HeaderJsonSyntax {
  std::string_view call_begin;
  std::vector<HeaderField> fields;
  std::string_view args_begin = {};  // the marker before the arguments (empty: none)
  bool bare_args = false;            // the arguments may also start at `{` or at the fence
  std::vector<std::string_view> fence_open = {};  // an optional fence before the object
  std::string_view fence_close = {};              // and after it (needs a call end)
  std::string_view call_end = {};                 // empty: the call ends with its object
  bool json_calls = false;  // `[` (a list of call objects) or `{` (one) after the call begin
  const CallKeys* args_envelope = nullptr;  // the arguments are a call envelope (see above)
  int id_length = 0;                        // > 0: generated ids are this many random alphanumerics
  std::vector<std::string_view> block_open = {};   // dropped; calls inside are a block
  std::vector<std::string_view> block_close = {};  // dropped; the block ends
  std::vector<std::string_view> drop = {};         // other wrappers dropped from content
};

// A HeaderJsonSyntax with its marker sets built. Immutable; one static instance per format.
class HeaderJsonFormat {
 public:
  // What a marker of header() does.
  struct HeaderMarker {
    enum class Role : uint8_t {
      kField,  // begins field `field`
      kArgs,   // args_begin: the arguments follow it
      kBare,   // `{` or a fence: the arguments' first bytes
      kWrong,  // the call end or the call begin: the header is broken
    };
    Role role = Role::kWrong;
    size_t field = 0;
  };

  explicit HeaderJsonFormat(HeaderJsonSyntax syntax);

  const HeaderJsonSyntax& syntax() const { return syntax_; }
  // [0] call begin, then the block opens, the block closes, the drops, and the call end.
  const text::MarkerSet& outside() const { return outside_; }
  // The later fields' begins, args_begin, the bare starts, the call end and the call begin.
  const text::MarkerSet& header() const { return header_; }
  HeaderMarker header_marker(int id) const { return header_roles_[static_cast<size_t>(id)]; }
  const text::MarkerSet& fence() const { return fence_; }  // the fence openers
  // [0] the call end, [1] the fence close (when declared). Used only with a call end.
  const text::MarkerSet& after() const { return after_; }
  // [0] the call end (captured with the call), [1] the next call's begin.
  const text::MarkerSet& discard() const { return discard_; }
  bool opens_block(int outside_id) const {
    return outside_id >= 1 && outside_id <= static_cast<int>(syntax_.block_open.size());
  }
  bool closes_block(int outside_id) const {
    const int first = 1 + static_cast<int>(syntax_.block_open.size());
    return outside_id >= first && outside_id < first + static_cast<int>(syntax_.block_close.size());
  }

 private:
  HeaderJsonSyntax syntax_;
  std::vector<HeaderMarker> header_roles_;
  text::MarkerSet outside_, header_, fence_, after_, discard_;
};

// A parser for `format` (which must outlive it).
std::unique_ptr<ToolParser> MakeHeaderJsonParser(const HeaderJsonFormat& format,
                                                 const ToolParserOptions& options);

}  // namespace crux::parse::tools
