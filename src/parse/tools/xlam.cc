// xlam: Salesforce xLAM (xLAM-1b/7b-fc-r, xLAM-2). The calls are a JSON list of
// {"name", "arguments"} objects ("parameters" accepted too), found:
//   at the start of the output:        [{"name": "get_weather", "arguments": {…}}]
//   in a code fence:                   ```json\n[{…}]\n```
//   after the `[TOOL_CALLS]` marker:   [TOOL_CALLS][{…}]
//   right after `</think>`:            …</think>\n[{…}]   (`</think>` stays in the content,
//                                      as in the reference)
// A list anywhere else is text, so ordinary brackets and JSON in prose are never calls. A
// list whose elements are not call objects (`[1, 2]`, `[{"label": "x"}]`) is returned as
// content, as is `[]`; a bare object is not a call. Deviations from the reference: text
// before and after the list is content; fences that hold no call list stay in the content.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/grammars.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kFence = "```";
constexpr std::string_view kToolCalls = "[TOOL_CALLS]";
constexpr size_t kMaxLanguage = 16;

class XlamParser final : public TokenParser {
 public:
  explicit XlamParser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t {
    kListMayStart,  // start of output or after </think>: whitespace, then maybe a list
    kOutside,
    kFenceHead,  // after ```: a language word, whitespace, then `[`
    kTagHead,    // after [TOOL_CALLS]: whitespace, then `[`
    kList,
    kAfter,  // after the list: whitespace and the closing fence
  };
  enum OutsideMarker : int { kFenceMarker = 0, kToolCallsMarker = 1, kThinkEndMarker = 2 };

  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{kFence, kToolCalls, "</think>"};
    return set;
  }
  static const text::MarkerSet& ToolCallsMarker() {
    static const text::MarkerSet set{kToolCalls};
    return set;
  }
  static const text::MarkerSet& FenceMarker() {
    static const text::MarkerSet set{kFence};
    return set;
  }
  static const CallKeys& Keys() {
    static const CallKeys keys;
    return keys;
  }

  void OnReset() override { state_ = State::kListMayStart; }

  void StartList() {
    list_.Reset(Keys());
    state_ = State::kList;
  }

  void Reject() {
    CancelRegion();
    state_ = State::kOutside;
  }

  size_t ListMayStart(std::string_view rest, bool at_end) {
    size_t n = 0;
    while (n < rest.size() && text::IsSpace(rest[n]))
      ++n;
    Content(rest.substr(0, n));
    if (n == rest.size()) return n;
    // `[TOOL_CALLS]` also begins with '[': it is the marker, read as outside text.
    const MarkerMatch marker = MatchAt(ToolCallsMarker(), rest.substr(n), at_end);
    if (marker.status == MarkerMatch::Status::kWait) return n;
    if (marker.status == MarkerMatch::Status::kFound) {
      state_ = State::kOutside;
      return n;
    }
    if (rest[n] == '[') {
      OpenRegion("[");
      fenced_ = false;
      StartList();
      return n + 1;
    }
    state_ = State::kOutside;
    return n;
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    const std::string_view marker = rest.substr(hit.pos, hit.length);
    if (hit.id == kThinkEndMarker) {
      Content(marker);
      state_ = State::kListMayStart;
    } else {
      OpenRegion(marker);
      language_ = 0;
      state_ = hit.id == kFenceMarker ? State::kFenceHead : State::kTagHead;
    }
    return hit.pos + hit.length;
  }

  // After the opening fence or the marker: an optional language word (fence only), then
  // whitespace and the list.
  size_t Head(std::string_view rest) {
    size_t n = 0;
    if (state_ == State::kFenceHead) {
      while (n < rest.size() && language_ <= kMaxLanguage &&
             ((rest[n] >= 'a' && rest[n] <= 'z') || (rest[n] >= 'A' && rest[n] <= 'Z'))) {
        ++n;
        ++language_;
      }
      Capture(rest.substr(0, n));
      if (n == rest.size() && language_ <= kMaxLanguage) return n;
      language_ = kMaxLanguage + 1;  // the word is over
    }
    n += CaptureSpace(rest.substr(n));
    if (n == rest.size()) return n;
    if (rest[n] != '[') {
      Reject();
      return n;
    }
    Capture("[");
    fenced_ = state_ == State::kFenceHead;
    StartList();
    return n + 1;
  }

  size_t After(std::string_view rest, bool at_end) {
    size_t n = 0;
    while (n < rest.size() && text::IsSpace(rest[n]))
      ++n;
    if (region_open()) Capture(rest.substr(0, n));
    if (n == rest.size()) return n;
    if (fenced_) {
      const MarkerMatch m = MatchAt(FenceMarker(), rest.substr(n), at_end);
      if (m.status == MarkerMatch::Status::kWait) return n;
      if (m.status == MarkerMatch::Status::kFound) {
        if (region_open()) {
          Capture(kFence);
          CloseRegion();
        }
        state_ = State::kOutside;
        return n + m.length;
      }
    }
    if (region_open()) CloseRegion();
    state_ = State::kOutside;
    return n;
  }

  size_t Step(std::string_view rest, bool at_end) {
    switch (state_) {
      case State::kListMayStart:
        return ListMayStart(rest, at_end);
      case State::kOutside:
        return Outside(rest, at_end);
      case State::kFenceHead:
      case State::kTagHead:
        return Head(rest);
      case State::kList: {
        size_t n = 0;
        const auto st = list_.Feed(rest, n, *this);
        if (st == JsonCallList::Status::kError ||
            (st == JsonCallList::Status::kDone && list_.calls() == 0)) {
          Reject();  // not a list of calls: text
        } else if (st == JsonCallList::Status::kDone) {
          state_ = State::kAfter;
        }
        return n;
      }
      case State::kAfter:
        return After(rest, at_end);
    }
    return 0;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, state_, [&](std::string_view rest) { return Step(rest, at_end); });
  }

  State state_ = State::kListMayStart;
  size_t language_ = 0;  // letters of the fence's language word read so far
  bool fenced_ = false;
  JsonCallList list_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeXlamParser(const ToolParserOptions& options) {
  return std::make_unique<XlamParser>(options);
}

const ToolParserInfo& XlamToolFormat() {
  static const CallGrammar grammar = EnvelopeList("[", "]");

  static const ToolParserInfo format{
      .name = "xlam",
      .aliases = {},
      .models = "Salesforce xLAM (1b/7b-fc-r, xLAM-2)",
      .format =
          "[{\"name\": …, \"arguments\": {…}}] at the start, in a ```json fence, after "
          "[TOOL_CALLS] (anywhere, the start included) or </think>",
      .create = MakeXlamParser,
      .grammar = &grammar,
  };
  return format;
}

}  // namespace crux::parse::tools
