// mistral: Mistral, Mixtral, Mistral Nemo / Small / Large, Ministral, Devstral, Magistral.
// Every call starts with the `[TOOL_CALLS]` token; four shapes follow it:
//   [TOOL_CALLS]get_weather[ARGS]{"city": "Oslo"}                 v11+ tokenizers (Devstral,
//                                                                  Ministral 3, Magistral)
//   [TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{…}            Mistral Small 3.2
//   [TOOL_CALLS]get_weather{"city": "Oslo"}                       the same without [ARGS]
//   [TOOL_CALLS] [{"name": "get_weather", "arguments": {…}}, …]  pre-v11 (7B v0.3, Nemo)
// Names are [A-Za-z0-9_.-]{1,256} (whitespace around allowed); anything else after the token
// returns it as content. Arguments are a JSON object, passed through as validated, so a
// `[TOOL_CALLS]` inside a JSON string is data.
// Ids: Mistral's chat templates reject ids that are not 9 alphanumerics when the conversation
// comes back, so ids are 9 random [A-Za-z0-9] characters (no "call_" prefix); a [CALL_ID]
// written by the model is used as the id. "id" keys inside the old JSON list are ignored
// (they follow the arguments, too late for a streamed begin).
// Deviation from the reference: text after a call is content (the reference rejects the
// `[ARGS]` call, or appends the text to the arguments of a `name{…}` call).
#include <memory>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr std::string_view kToolCalls = "[TOOL_CALLS]";
constexpr size_t kMaxName = 256;
constexpr size_t kMaxId = 64;
constexpr int kIdLength = 9;

class MistralParser final : public TokenParser {
 public:
  explicit MistralParser(const ToolParserOptions& options) : TokenParser(options) {}

  void BeginCall(std::string_view name, std::string id) override {
    if (id.empty()) id = ids().Next("", kIdLength);
    TokenParser::BeginCall(name, std::move(id));
  }

 private:
  enum class State : uint8_t { kOutside, kName, kCallId, kArgs, kList, kObject };
  enum ArgsMarker : int { kArgsMarker = 0, kCallIdMarker = 1 };

  static const text::MarkerSet& OpenMarker() {
    static const text::MarkerSet set{kToolCalls};
    return set;
  }
  static const text::MarkerSet& HeadMarkers() {
    static const text::MarkerSet set{"[ARGS]", "[CALL_ID]"};
    return set;
  }
  static const CallKeys& Keys() {
    static const CallKeys keys;
    return keys;
  }

  void OnReset() override { state_ = State::kOutside; }

  // Not a call after all: the region's text is content, and parsing resumes at this byte.
  void Reject() {
    CancelRegion();
    state_ = State::kOutside;
  }

  void StartArgs() {
    args_.Start(name_, id_);
    state_ = State::kArgs;
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const text::ScanResult hit = OpenMarker().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return hit.pos;
    OpenRegion(kToolCalls);
    name_.clear();
    id_.clear();
    after_name_ = false;
    state_ = State::kName;
    return hit.pos + hit.length;
  }

  // After [TOOL_CALLS]: a list, an object, or a name followed by [ARGS] / [CALL_ID] / `{`.
  size_t Name(std::string_view rest, bool at_end) {
    size_t n = 0;
    while (n < rest.size()) {
      const char c = rest[n];
      if (IsNameByte(c) && !after_name_) {
        name_.push_back(c);
        ++n;
        if (name_.size() > kMaxName) break;
        continue;
      }
      if (text::IsSpace(c)) {
        after_name_ = !name_.empty();
        ++n;
        continue;
      }
      break;
    }
    Capture(rest.substr(0, n));
    if (name_.size() > kMaxName) {
      Reject();
      return n;
    }
    if (n == rest.size()) return n;
    const char c = rest[n];
    if (name_.empty() && (c == '[' || c == '{')) {
      if (c == '[') {
        Capture("[");
        list_.Reset(Keys());
        state_ = State::kList;
        return n + 1;
      }
      object_.Reset(Keys());
      state_ = State::kObject;
      return n;
    }
    if (name_.empty()) {
      Reject();
      return n;
    }
    if (c == '{') {
      StartArgs();
      return n;
    }
    const MarkerMatch m = MatchAt(HeadMarkers(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kNo) {
      Reject();
      return n;
    }
    Capture(rest.substr(n, m.length));
    if (m.id == kArgsMarker) {
      StartArgs();
    } else {
      state_ = State::kCallId;
    }
    return n + m.length;
  }

  // After [CALL_ID]: the id, then [ARGS] (or directly the object).
  size_t CallId(std::string_view rest, bool at_end) {
    size_t n = 0;
    while (n < rest.size() && (IsNameByte(rest[n]) || text::IsSpace(rest[n])) &&
           id_.size() <= kMaxId) {
      if (!text::IsSpace(rest[n])) id_.push_back(rest[n]);
      ++n;
    }
    Capture(rest.substr(0, n));
    if (id_.size() > kMaxId) {
      Reject();
      return n;
    }
    if (n == rest.size()) return n;
    if (rest[n] == '{') {
      StartArgs();
      return n;
    }
    const MarkerMatch m = MatchAt(HeadMarkers(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kNo || m.id != kArgsMarker) {
      Reject();
      return n;
    }
    Capture(rest.substr(n, m.length));
    StartArgs();
    return n + m.length;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, state_, [&](std::string_view rest) {
      size_t n = 0;
      switch (state_) {
        case State::kOutside:
          n = Outside(rest, at_end);
          break;
        case State::kName:
          n = Name(rest, at_end);
          break;
        case State::kCallId:
          n = CallId(rest, at_end);
          break;
        case State::kArgs: {
          const auto st = args_.Feed(rest, n, *this);
          Capture(rest.substr(0, n));
          if (st == JsonArgs::Status::kError) Reject();
          if (st == JsonArgs::Status::kDone) {
            CloseRegion();
            state_ = State::kOutside;
          }
          break;
        }
        case State::kList: {
          const auto st = list_.Feed(rest, n, *this);
          if (st == JsonCallList::Status::kError) Reject();
          if (st == JsonCallList::Status::kDone) {
            if (region_open()) CloseRegion();
            state_ = State::kOutside;
          }
          break;
        }
        case State::kObject: {
          const auto st = object_.Feed(rest, n, *this);
          Capture(rest.substr(0, n));
          if (st == JsonCallObject::Status::kError) Reject();
          if (st == JsonCallObject::Status::kDone) {
            CloseRegion();
            state_ = State::kOutside;
          }
          break;
        }
      }
      return n;
    });
  }

  State state_ = State::kOutside;
  std::string name_;
  std::string id_;
  bool after_name_ = false;  // whitespace followed the name: only a marker or `{` may come
  JsonArgs args_;
  JsonCallList list_;
  JsonCallObject object_;
};

}  // namespace

std::unique_ptr<ToolParser> MakeMistralParser(const ToolParserOptions& options) {
  return std::make_unique<MistralParser>(options);
}

const ToolParserInfo& MistralToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .call = {{S::kText, "[TOOL_CALLS]"}, {S::kName}, {S::kText, "[ARGS]"}, {S::kArguments}},
  };
  static const ToolParserInfo format{
      .name = "mistral",
      .aliases = {},
      .models = "Mistral, Mixtral, Mistral Nemo/Small/Large, Ministral, Devstral, Magistral",
      .format =
          "[TOOL_CALLS]f[ARGS]{…} | [TOOL_CALLS]f[CALL_ID]id[ARGS]{…} | [TOOL_CALLS]f{…} | "
          "[TOOL_CALLS] [{\"name\": …, \"arguments\": {…}}]",
      .create = MakeMistralParser,
      .grammar = &grammar,
      .detect_markers = {"[TOOL_CALLS]"},
      .template_needles = {{30, "[TOOL_CALLS]", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
