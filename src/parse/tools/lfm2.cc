// lfm2 (Liquid LFM2 / LFM2.5): calls between special tokens, as a Python list by default
//   <|tool_call_start|>[get_weather(city="Paris"), get_time(tz='CET')]<|tool_call_end|>
// or, when the system prompt asks for JSON, as a list of JSON envelopes
//   <|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>
// The brackets are optional. Python keyword arguments are converted to JSON as they stream
// (LFM2.5's template writes strings in single quotes, dicts as JSON and other values with
// Python's str(), so both True and true are accepted). A malformed call is returned as content
// with its markup, up to the end marker; a missing end marker is tolerated.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kOpen = "<|tool_call_start|>";
constexpr std::string_view kClose = "<|tool_call_end|>";

class Lfm2Parser final : public CallListParser {
 public:
  explicit Lfm2Parser(const ToolParserOptions& options) : CallListParser(options) {}

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
      size_t n = 0;
      switch (state_) {
        case State::kOutside:
          n = Outside(rest, at_end);
          break;
        case State::kListStart:
          n = ListStart(rest);
          break;
        case State::kList:
          n = InList(rest);
          break;
        case State::kAfterList:
          n = AfterList(rest, at_end);
          break;
        case State::kDiscard:
          n = Discard(rest, at_end);
          break;
      }
      return n;
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
    StartList(bracketed, /*json_items=*/true);
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

  // After the list: whitespace, then the end marker; anything else is content.
  size_t AfterList(std::string_view rest, bool at_end) {
    if (text::IsSpace(rest[0])) return 1;
    const text::ScanResult hit = CloseMarker().Scan(rest, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
    state_ = State::kOutside;
    if (region_open()) CloseRegion();
    return hit.pos == 0 && hit.status == text::ScanStatus::kFound ? hit.length : 0;
  }

  // A malformed call: captured up to the end marker, then returned as content.
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

std::unique_ptr<ToolParser> MakeLfm2Parser(const ToolParserOptions& options) {
  return std::make_unique<Lfm2Parser>(options);
}

const ToolParserInfo& Lfm2ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "<|tool_call_start|>[",
      .close = "]<|tool_call_end|>",
      .separator = ", ",
      .call = {{S::kName}, {S::kText, "("}, {S::kArguments}, {S::kText, ")"}},
      .args = CallGrammar::Args::kPythonKeywords,
  };
  static const ToolParserInfo format{
      .name = "lfm2",
      .aliases = {"lfm2.5", "liquid"},
      .models = "Liquid LFM2, LFM2.5",
      .format = "<|tool_call_start|>[f(a=\"x\"), g()]<|tool_call_end|> (or a JSON list)",
      .create = MakeLfm2Parser,
      .grammar = &grammar,
      .detect_markers = {"<|tool_call_start|>"},
      .template_needles = {{120, "<|tool_list_start|>", ""},
                           {130, "<|tool_call_start|>", ""},
                           {140, "List of tools: [", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
