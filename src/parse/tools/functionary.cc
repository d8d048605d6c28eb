// functionary / meetkai: MeetKai Functionary v3.x. Three shapes, all accepted:
//   v3.2: >>>get_weather\n{"city": "Oslo"}>>>all\nText for the user
//   v3:   <|from|>assistant\n<|recipient|>get_weather\n<|content|>{"city": "Oslo"}
//   v3.1: <function=get_weather>{"city": "Oslo"}</function>
// (templates meetkai-functionary-medium-v3.1 / v3.2). The recipients `all` and `user` are not
// calls: their text is content and the header is dropped. The v3.2 generation prompt ends
// with `>>>`, so the output starts with the first recipient without the marker: a word of
// [A-Za-z0-9_.-] followed by a newline at the start of the output is read as a recipient
// (a word not followed by a newline is ordinary text). As in the reference, an output that
// starts with a JSON list of {"name", "arguments"} objects is a list of calls.
// Arguments are a JSON object, streamed as validated; a call whose arguments are not one is
// returned, markers included, as content. `<|from|>ROLE` headers are dropped.
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kFunctionEnd = "</function>";
constexpr size_t kMaxName = 256;

bool IsTextRecipient(std::string_view word) {
  auto lower_equals = [&](std::string_view target) {
    if (word.size() != target.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      const char c = word[i] >= 'A' && word[i] <= 'Z' ? static_cast<char>(word[i] + 32) : word[i];
      if (c != target[i]) return false;
    }
    return true;
  };
  return lower_equals("all") || lower_equals("user");
}

class FunctionaryParser final : public TokenParser {
 public:
  explicit FunctionaryParser(const ToolParserOptions& options) : TokenParser(options) {}

 private:
  enum class State : uint8_t {
    kStart,  // start of output: a list, an implicit recipient, or text
    kOutside,
    kRecipient,   // after `>>>` (or at the start): NAME then a newline
    kTagged,      // after `<|recipient|>`: NAME, whitespace, `<|content|>`
    kContentTag,  // waiting for `<|content|>`
    kFunction,    // after `<function=`: NAME then `>`
    kArgs,
    kAfterArgs,  // after a `<function=…>` object: an optional `</function>`
    kFrom,       // after `<|from|>`: the role word is dropped
    kList,
  };
  enum OutsideMarker : int { kArrows = 0, kRecipientTag = 1, kFunctionTag = 2, kFromTag = 3 };

  static const text::MarkerSet& OutsideMarkers() {
    static const text::MarkerSet set{">>>", "<|recipient|>", "<function=", "<|from|>"};
    return set;
  }
  static const text::MarkerSet& ContentMarker() {
    static const text::MarkerSet set{"<|content|>"};
    return set;
  }
  static const text::MarkerSet& FunctionEnd() {
    static const text::MarkerSet set{kFunctionEnd};
    return set;
  }
  static const CallKeys& Keys() {
    static const CallKeys keys;
    return keys;
  }

  void OnReset() override { state_ = State::kStart; }

  void Reject() {
    CancelRegion();
    state_ = State::kOutside;
  }

  // The recipient is known: text recipients drop their header, others start a call.
  void Recipient() {
    if (IsTextRecipient(name_)) {
      CloseRegion();  // no call begun: the header is dropped
      state_ = State::kOutside;
      return;
    }
    args_.Start(name_, {});
    function_tag_ = false;
    state_ = State::kArgs;
  }

  // Appends name characters to name_; returns how many were read.
  size_t ReadName(std::string_view rest) {
    size_t n = 0;
    while (n < rest.size() && IsNameByte(rest[n]) && name_.size() <= kMaxName) {
      name_.push_back(rest[n++]);
    }
    Capture(rest.substr(0, n));
    return n;
  }

  size_t Start(std::string_view rest) {
    size_t n = 0;
    while (n < rest.size() && text::IsSpace(rest[n]))
      ++n;
    Content(rest.substr(0, n));
    if (n == rest.size()) return n;
    if (rest[n] == '[') {
      OpenRegion("[");
      list_.Reset(Keys());
      state_ = State::kList;
      return n + 1;
    }
    if (IsNameByte(rest[n])) {
      OpenRegion({});
      name_.clear();
      state_ = State::kRecipient;
    } else {
      state_ = State::kOutside;
    }
    return n;
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OutsideMarkers().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    const size_t n = hit.pos + hit.length;
    if (hit.id == kFromTag) {
      state_ = State::kFrom;
      return n;
    }
    OpenRegion(rest.substr(hit.pos, hit.length));
    name_.clear();
    state_ = hit.id == kArrows         ? State::kRecipient
             : hit.id == kRecipientTag ? State::kTagged
                                       : State::kFunction;
    return n;
  }

  size_t RecipientLine(std::string_view rest) {
    const size_t n = ReadName(rest);
    if (name_.size() > kMaxName) {
      Reject();
      return n;
    }
    if (n == rest.size()) return n;
    if (rest[n] != '\n' || name_.empty()) {
      Reject();
      return n;
    }
    Capture("\n");
    Recipient();
    return n + 1;
  }

  size_t Tagged(std::string_view rest) {
    size_t n = name_.empty() ? CaptureSpace(rest) : 0;
    n += ReadName(rest.substr(n));
    if (name_.size() > kMaxName) {
      Reject();
      return n;
    }
    if (n == rest.size()) return n;
    if (name_.empty() || (!text::IsSpace(rest[n]) && rest[n] != '<')) {
      Reject();
      return n;
    }
    state_ = State::kContentTag;
    return n;
  }

  size_t ContentTag(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(ContentMarker(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kNo) {
      Reject();
      return n;
    }
    Capture(rest.substr(n, m.length));
    Recipient();
    return n + m.length;
  }

  size_t Function(std::string_view rest) {
    const size_t n = ReadName(rest);
    if (name_.size() > kMaxName) {
      Reject();
      return n;
    }
    if (n == rest.size()) return n;
    if (rest[n] != '>' || name_.empty()) {
      Reject();
      return n;
    }
    Capture(">");
    args_.Start(name_, {});
    function_tag_ = true;
    state_ = State::kArgs;
    return n + 1;
  }

  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(FunctionEnd(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) Capture(kFunctionEnd);
    CloseRegion();
    state_ = State::kOutside;
    return m.status == MarkerMatch::Status::kFound ? n + m.length : n;
  }

  size_t Step(std::string_view rest, bool at_end) {
    size_t n = 0;
    switch (state_) {
      case State::kStart:
        return Start(rest);
      case State::kOutside:
        return Outside(rest, at_end);
      case State::kRecipient:
        return RecipientLine(rest);
      case State::kTagged:
        return Tagged(rest);
      case State::kContentTag:
        return ContentTag(rest, at_end);
      case State::kFunction:
        return Function(rest);
      case State::kArgs: {
        const auto st = args_.Feed(rest, n, *this);
        Capture(rest.substr(0, n));
        if (st == JsonArgs::Status::kError) Reject();
        if (st == JsonArgs::Status::kDone && function_tag_) state_ = State::kAfterArgs;
        if (st == JsonArgs::Status::kDone && !function_tag_) {
          CloseRegion();
          state_ = State::kOutside;
        }
        return n;
      }
      case State::kAfterArgs:
        return AfterArgs(rest, at_end);
      case State::kFrom:
        while (n < rest.size() && IsNameByte(rest[n]))
          ++n;
        if (n < rest.size()) state_ = State::kOutside;
        return n;
      case State::kList: {
        const auto st = list_.Feed(rest, n, *this);
        if (st == JsonCallList::Status::kError) Reject();
        if (st == JsonCallList::Status::kDone) {
          if (list_.calls() == 0) {
            CancelRegion();  // `[]` is text
          } else if (region_open()) {
            CloseRegion();
          }
          state_ = State::kOutside;
        }
        return n;
      }
    }
    return n;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, state_, [&](std::string_view rest) { return Step(rest, at_end); });
  }

  State state_ = State::kStart;
  std::string name_;
  bool function_tag_ = false;  // the call came as <function=…>: `</function>` may follow
  JsonArgs args_;
  JsonCallList list_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeFunctionaryParser(const ToolParserOptions& options) {
  return std::make_unique<FunctionaryParser>(options);
}

// The v3.2 shape, as generated after the `>>>` that ends the generation prompt.

const ToolParserInfo& FunctionaryToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .separator = ">>>",
      .call = {{S::kName}, {S::kText, "\n"}, {S::kArguments}},
  };
  static const ToolParserInfo format{
      .name = "functionary",
      .aliases = {"meetkai", "functionary_v3"},
      .models = "MeetKai Functionary v3, v3.1, v3.2",
      .format = ">>>f\\n{…} | <|recipient|>f\\n<|content|>{…} | <function=f>{…}</function>",
      .create = MakeFunctionaryParser,
      .grammar = &grammar,
      .detect_markers = {"<|recipient|>"},
      .template_needles = {{210, ">>>all", ""}, {220, "start_tag => `<function`", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
