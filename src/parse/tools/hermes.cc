// hermes / nous: `<tool_call>{"name": "f", "arguments": {…}}</tool_call>`, one JSON envelope
// per block (a block may hold several envelopes in a row). The arguments stream as they are
// generated. A block whose JSON is invalid is returned whole, tags included, as content; a
// block cut off by the end of the stream is returned as content unless its JSON was complete
// (generation often stops before `</tool_call>`).
#include "parse/tools/hermes.h"

#include <memory>

#include "parse/tools/toolkit.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kOpen = "<tool_call>";
constexpr std::string_view kClose = "</tool_call>";

class HermesParser final : public ToolParserCore {
 public:
  explicit HermesParser(const ToolParserOptions& options) : ToolParserCore(options) {}

 private:
  enum class State : uint8_t { kOutside, kBody, kAfterBody, kDiscard };

  static const text::MarkerSet& OpenMarkers() {
    static const text::MarkerSet set{kOpen};
    return set;
  }
  static const text::MarkerSet& CloseMarkers() {
    static const text::MarkerSet set{kClose};
    return set;
  }

  void OnReset() override {
    state_ = State::kOutside;
    envelope_.Reset();
  }

  size_t Process(std::string_view text, bool at_end) override {
    size_t pos = 0;
    while (pos < text.size()) {
      const std::string_view rest = text.substr(pos);
      switch (state_) {
        case State::kOutside: {
          const text::ScanResult hit = OpenMarkers().Scan(rest, at_end);
          Content(rest.substr(0, hit.pos));
          pos += hit.pos;
          if (hit.status != text::ScanStatus::kFound) return pos;
          OpenRegion(kOpen);
          pos += hit.length;
          envelope_.Reset();
          state_ = State::kBody;
          break;
        }
        case State::kBody: {
          size_t n = 0;
          const auto status = envelope_.Feed(rest, n, *this);
          Capture(rest.substr(0, n));
          pos += n;
          if (status == JsonEnvelope::Status::kDone) state_ = State::kAfterBody;
          if (status == JsonEnvelope::Status::kError) state_ = State::kDiscard;
          break;
        }
        case State::kAfterBody: {
          size_t ws = 0;
          while (ws < rest.size() && text::IsSpace(rest[ws])) ++ws;
          Capture(rest.substr(0, ws));
          pos += ws;
          if (ws == rest.size()) return pos;
          const text::ScanResult hit = CloseMarkers().Scan(rest.substr(ws), at_end);
          if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return pos;
          if (hit.pos == 0 && hit.status == text::ScanStatus::kFound) {
            Capture(kClose);
            pos += hit.length;
            CloseRegion();
            state_ = State::kOutside;
          } else if (rest[ws] == '{') {  // another envelope in the same block
            CloseRegion();
            OpenRegion({});
            envelope_.Reset();
            state_ = State::kBody;
          } else {  // text after the call without a closing tag: content
            CloseRegion();
            state_ = State::kOutside;
          }
          break;
        }
        case State::kDiscard: {
          const text::ScanResult hit = CloseMarkers().Scan(rest, at_end);
          Capture(rest.substr(0, hit.pos));
          pos += hit.pos;
          if (hit.status != text::ScanStatus::kFound) return pos;
          Capture(kClose);
          pos += hit.length;
          CancelRegion();
          state_ = State::kOutside;
          break;
        }
      }
    }
    return pos;
  }

  State state_ = State::kOutside;
  JsonEnvelope envelope_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeHermesParser(const ToolParserOptions& options) {
  return std::make_unique<HermesParser>(options);
}

std::string RenderHermes(const std::vector<ToolCall>& calls) {
  std::string out;
  for (const ToolCall& call : calls) {
    if (!out.empty()) out += "\n";
    out += "<tool_call>\n{\"name\": ";
    text::AppendJsonString(out, call.name);
    out += ", \"arguments\": ";
    out += call.arguments;
    out += "}\n</tool_call>";
  }
  return out;
}

}  // namespace crux::parse::tools
