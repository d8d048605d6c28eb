// auto / generic: detects the family from the output as it streams and hands the rest of the
// stream to that family's parser. Until a family is known the text is content (held back only
// while it could still be a start marker, or while the bytes after a shared marker such as
// `<tool_call>` do not decide the family yet — a few hundred bytes at most). The first start
// marker of any family decides (the table is in detect.cc); at the very start of the output a
// bare JSON call envelope (`{"name"…`) selects llama and a Python call list (`[f(`) pythonic.
// Once chosen, the family parser sees everything from its marker on, including later markers
// of other families, which it treats as its own rules say. Families another group has not
// registered are not detected.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

class AutoParser final : public ToolParserCore {
 public:
  explicit AutoParser(const ToolParserOptions& options) : ToolParserCore(options) {}

 private:
  enum class State : uint8_t { kStart, kScan, kDelegate };

  void OnReset() override {
    state_ = State::kStart;
    delegate_.reset();
    stage_.Clear();
  }

  void OnFinish() override {
    if (delegate_ == nullptr) return;
    stage_.Clear();
    delegate_->Finish(stage_);
    Forward();
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, [&](std::string_view rest) -> size_t {
      if (state_ == State::kDelegate) {
        stage_.Clear();
        delegate_->Feed(rest, stage_);
        Forward();
        return rest.size();
      }
      return state_ == State::kStart ? StartStep(rest, at_end) : ScanStep(rest, at_end);
    });
  }

  size_t StartStep(std::string_view rest, bool at_end) {
    size_t ws = 0;
    while (ws < rest.size() && text::IsSpace(rest[ws]))
      ++ws;
    Content(rest.substr(0, ws));
    if (ws == rest.size()) return ws;
    const std::string_view body = rest.substr(ws);
    const text::ScanResult hit = OutputStartMarkers().Scan(body, at_end);
    if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return ws == 0 ? kHold : ws;
    if (hit.pos == 0 && hit.status == text::ScanStatus::kFound) {
      state_ = State::kScan;  // a marker comes first
      return ws;
    }
    const Detection bare = ClassifyBareStart(body, at_end);
    if (bare.verdict == Verdict::kNeedMore) return ws == 0 ? kHold : ws;
    state_ = State::kScan;
    if (bare.verdict == Verdict::kFamily) Delegate(bare.family);
    return ws;
  }

  size_t ScanStep(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OutputStartMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
    const Detection found = ClassifyAtMarker(hit.id, rest.substr(hit.pos), at_end);
    if (found.verdict == Verdict::kNeedMore) return hit.pos == 0 ? kHold : hit.pos;
    if (found.verdict == Verdict::kFamily && Delegate(found.family)) return hit.pos;
    Content(rest.substr(hit.pos, hit.length));  // not a call after all
    return hit.pos + hit.length;
  }

  // Hands the stream over to `family`'s parser; false when it is not registered.
  bool Delegate(std::string_view family) {
    if (!IsRegisteredFamily(family)) return false;
    auto created = CreateToolParser(family, options());
    if (!created.ok()) return false;
    delegate_ = std::move(*created);
    delegate_->Reset();
    state_ = State::kDelegate;
    return true;
  }

  // Passes the delegate's events on; its content goes through this parser's trimming so that
  // the text before the marker and the delegate's text form one section.
  void Forward() {
    for (const Event& e : stage_.events()) {
      if (e.kind == EventKind::kContent) {
        Content(e.text);
      } else {
        out().Add(e);
      }
    }
    stage_.Clear();
  }

  State state_ = State::kStart;
  std::unique_ptr<ToolParser> delegate_;
  EventSink stage_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeAutoParser(const ToolParserOptions& options) {
  return std::make_unique<AutoParser>(options);
}

const ToolParserInfo& AutoToolFormat() {
  static const ToolParserInfo format{
      .name = "auto",
      .aliases = {"generic"},
      .models = "any: the family is detected from the output",
      .format =
          "the first start marker of any family (see docs), or a bare JSON call / "
          "Python call list at the start",
      .create = MakeAutoParser,
      // The blocks models of the detected families write inside reasoning.
      .promoted_blocks = {{"<tool_call>", "</tool_call>"},
                          {"<minimax:tool_call>", "</minimax:tool_call>"}},
  };
  return format;
}

}  // namespace crux::parse::tools
