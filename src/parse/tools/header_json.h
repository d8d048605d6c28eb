// The "marker, header, JSON object, end marker" call syntax as data, and the one parser that
// reads every format declared with it (Kimi K2, Solar Open):
//   CALL_BEGIN field END field END … ARGS_MARKER {json} CALL_END
// Each header field runs up to its own end marker (the last one's is the marker before the
// arguments) and is the call's id, its name, or an id that also names the function
// (`functions.NAME:IDX`). Outside calls, the declared wrappers are dropped; markers that open
// or close a block of calls make the whitespace between its calls layout. Empty arguments are
// `{}`; anything else must be a JSON object, else the call's text is returned as content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "crux/parse/parser.h"
#include "crux/text/marker_set.h"

namespace crux::parse::tools {

struct HeaderField {
  enum class Kind : uint8_t {
    kId,        // the call id the model writes (empty: a generated id)
    kName,      // the function name
    kNamingId,  // an id that also names the function: `functions.NAME:IDX`, or the part
                // after the last '.' without a `:IDX` suffix
  };
  Kind kind;
  std::string_view end;  // the marker that ends the field
  size_t max = 256;      // a longer field is not a header
};

struct HeaderJsonSyntax {
  std::string_view call_begin;
  std::vector<HeaderField> fields;  // the last field's `end` is the marker before the arguments
  std::string_view call_end;
  std::vector<std::string_view> block_open = {};   // dropped; calls inside are a block
  std::vector<std::string_view> block_close = {};  // dropped; the block ends
  std::vector<std::string_view> drop = {};         // other wrappers dropped from content
};

// A HeaderJsonSyntax with its marker sets built. Immutable; one static instance per format.
class HeaderJsonFormat {
 public:
  explicit HeaderJsonFormat(HeaderJsonSyntax syntax);

  const HeaderJsonSyntax& syntax() const { return syntax_; }
  // [0] call begin, then the block opens, the block closes, the drops, and the call end.
  const text::MarkerSet& outside() const { return outside_; }
  // The fields' end markers (by field index), then the call end and the call begin.
  const text::MarkerSet& header() const { return header_; }
  const text::MarkerSet& end() const { return end_; }
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
  text::MarkerSet outside_, header_, end_, discard_;
};

// A parser for `format` (which must outlive it).
std::unique_ptr<ToolParser> MakeHeaderJsonParser(const HeaderJsonFormat& format,
                                                 const ToolParserOptions& options);

}  // namespace crux::parse::tools
