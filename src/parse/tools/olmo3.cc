// olmo3: AllenAI Olmo 3 (Olmo-3-7B-Instruct, Olmo-3-32B-Think; read from vLLM's olmo3 tool
// parser, its tests and the tool-calling docs). Python calls, one per line, between plain-text
// tags:
//   <function_calls>get_weather(city='San Francisco', metric='celsius')
//   register_user(name='John Doe', age=37, role=null, passed_test=true)</function_calls>
// Keyword arguments only; values are Python literals or the JSON literals true/false/null,
// converted to JSON as they stream (the Python call-list engine, with newline-separated items;
// commas and a `[…]` list are accepted too). A malformed call is returned as content with the
// rest of the block, up to `</function_calls>`; a missing end tag is tolerated.
// Deviations from the reference: text around the block is content (the reference returns no
// content once a call is found); calls without the tags are not read (the reference tries the
// whole output when there is no tag, in non-streaming mode only); a bad call does not let the
// calls after it through (the reference drops only the bad sibling).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kOpen = "<function_calls>";
constexpr std::string_view kClose = "</function_calls>";

class Olmo3Parser final : public CallListParser {
 public:
  explicit Olmo3Parser(const ToolParserOptions& options) : CallListParser(options) {}

 private:
  enum class State : uint8_t { kOutside, kListStart, kList, kAfterList, kDiscard };

  static const text::MarkerSet& OpenMarker() {
    static const text::MarkerSet set{kOpen};
    return set;
  }
  static const text::MarkerSet& CloseMarker() {
    static const text::MarkerSet set{kClose};
    return set;
  }

  void OnReset() override { state_ = State::kOutside; }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, [&](std::string_view rest) {
      switch (state_) {
        case State::kOutside:
          return Outside(rest, at_end);
        case State::kListStart:
          return ListStart(rest);
        case State::kList:
          return InList(rest);
        case State::kAfterList:
          return AfterList(rest, at_end);
        case State::kDiscard:
          return Discard(rest, at_end);
      }
      return kHold;
    });
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OpenMarker().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    OpenRegion(kOpen);
    state_ = State::kListStart;
    return hit.pos + hit.length;
  }

  size_t ListStart(std::string_view rest) {
    if (text::IsSpace(rest[0])) {
      Capture(rest.substr(0, 1));
      return 1;
    }
    const bool bracketed = rest[0] == '[';
    if (bracketed) Capture("[");
    StartList(bracketed, /*json_items=*/false, /*line_items=*/true);
    state_ = State::kList;
    return bracketed ? 1 : 0;
  }

  size_t InList(std::string_view rest) {
    ListStatus status = ListStatus::kInList;
    const size_t n = ListStep(rest, status);
    if (status == ListStatus::kFailed) state_ = State::kDiscard;
    if (status == ListStatus::kEnded) state_ = State::kAfterList;
    return n;
  }

  // After the list: whitespace, then the end tag; anything else is content.
  size_t AfterList(std::string_view rest, bool at_end) {
    if (text::IsSpace(rest[0])) return 1;
    const text::ScanResult hit = CloseMarker().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    state_ = State::kOutside;
    if (region_open()) CloseRegion();
    return hit.pos == 0 && hit.status == text::ScanStatus::kFound ? hit.length : 0;
  }

  // A malformed call: captured up to the end tag, then returned as content.
  size_t Discard(std::string_view rest, bool at_end) {
    const text::ScanResult hit = CloseMarker().Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    Capture(kClose);
    CancelRegion();
    state_ = State::kOutside;
    return hit.pos + hit.length;
  }

  State state_ = State::kOutside;
};

}  // namespace

std::unique_ptr<ToolParser> MakeOlmo3Parser(const ToolParserOptions& options) {
  return std::make_unique<Olmo3Parser>(options);
}

const ToolParserInfo& Olmo3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = kOpen,
      .close = kClose,
      .separator = "\n",
      .call = {{S::kName}, {S::kText, "("}, {S::kArguments}, {S::kText, ")"}},
      .args = CallGrammar::Args::kPythonKeywords,
  };
  static const ToolParserInfo format{
      .name = "olmo3",
      .aliases = {},
      .models = "AllenAI Olmo 3 Instruct / Think",
      .format = "<function_calls>f(a='x', b=1)\\ng()</function_calls>",
      .create = MakeOlmo3Parser,
      .grammar = &grammar,
      .detect_markers = {kOpen},
  };
  return format;
}

}  // namespace crux::parse::tools
