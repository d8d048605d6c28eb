#include "parse/tools/header_json.h"

#include <string>
#include <utility>

#include "crux/base/check.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

using Role = HeaderJsonFormat::HeaderMarker::Role;
using OutsideRole = HeaderJsonFormat::OutsideMarker::Role;

// The non-empty markers of `lists`, in order.
std::vector<std::string> Strings(std::initializer_list<std::vector<std::string_view>> lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    for (std::string_view s : list) {
      if (!s.empty()) out.emplace_back(s);
    }
  }
  return out;
}

// Whether `a` and `b` are equal up to ASCII case.
bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// "functions.get_weather:0" → "get_weather". Without the "functions." prefix, the part after
// the last '.'; with it, dots in the name are kept.
std::string_view NameOfId(std::string_view id) {
  const size_t colon = id.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < id.size() &&
      id.find_first_not_of("0123456789", colon + 1) == std::string_view::npos) {
    id = id.substr(0, colon);
  }
  constexpr std::string_view kPrefix = "functions.";
  if (id.substr(0, kPrefix.size()) == kPrefix) return id.substr(kPrefix.size());
  const size_t dot = id.rfind('.');
  return dot == std::string_view::npos ? id : id.substr(dot + 1);
}

class HeaderJsonParser final : public TokenParser {
 public:
  HeaderJsonParser(const HeaderJsonFormat& format, const ToolParserOptions& options)
      : TokenParser(options), format_(format), syntax_(format.syntax()) {
    OnReset();
  }

  void BeginCall(std::string_view name, std::string id) override {
    if (state_ == State::kObject && call().args_envelope != nullptr) {
      name_mismatch_ = name != name_;
      id = id_;
    }
    if (id.empty() && syntax_.id_length > 0) id = ids().Next("", syntax_.id_length);
    TokenParser::BeginCall(name, std::move(id));
  }

 private:
  enum class State : uint8_t {
    kBegin,  // the start of the output, where the layout without a call begin may open
    kOutside,
    kDropWord,
    kStart,
    kHeader,
    kArgs,
    kList,
    kObject,
    kAfterArgs,
    kDiscard
  };

  void OnReset() override {
    state_ = format_.start_call() == HeaderJsonFormat::kNoCall ? State::kOutside : State::kBegin;
    layout_.Reset();
  }

  const HeaderCall& call() const { return syntax_.calls[call_]; }

  void BackOutside() {
    state_ = State::kOutside;
    layout_.AfterCall();
  }

  // The call is malformed: give it back up to its end marker, or (without one) now.
  void Fail() {
    if (!call().call_end.empty()) {
      state_ = State::kDiscard;
      return;
    }
    CancelRegion();
    BackOutside();
  }

  void BeginHeader(size_t call) {
    call_ = call;
    field_ = 0;
    text_.clear();
    id_.clear();
    name_.clear();
    word_done_ = false;
    after_marker_ = false;
    fenced_ = false;
    name_mismatch_ = false;
    state_ = this->call().json_calls != JsonCalls::kNone ? State::kStart : State::kHeader;
  }

  // Whether a field of `kind` may begin with `c` (leading whitespace aside).
  static bool MayBegin(HeaderField::Text kind, char c) {
    if (kind == HeaderField::Text::kNameWord || kind == HeaderField::Text::kTightName) {
      return IsNameByte(c);
    }
    return kind == HeaderField::Text::kAny || !text::IsSpace(c);
  }

  // The start of the output: leading whitespace is content, then the bare layout may open.
  size_t Begin(std::string_view rest) {
    size_t n = 0;
    while (n < rest.size() && text::IsSpace(rest[n]))
      ++n;
    Content(rest.substr(0, n));
    if (n == rest.size()) return n;
    state_ = State::kOutside;
    const HeaderCall& start = syntax_.calls[format_.start_call()];
    const bool json =
        start.json_calls != JsonCalls::kNone &&
        (rest[n] == '[' || (rest[n] == '{' && start.json_calls == JsonCalls::kListOrObject));
    if (json || MayBegin(start.fields[0].text, rest[n])) {
      OpenRegion({});
      BeginHeader(format_.start_call());
    }
    return n;
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const size_t skipped = layout_.Skip(rest);
    rest.remove_prefix(skipped);
    const text::ScanResult hit = format_.outside().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return skipped + hit.pos;
    const HeaderJsonFormat::OutsideMarker marker = format_.outside_marker(hit.id);
    switch (marker.role) {
      case OutsideRole::kCall:
        OpenRegion(rest.substr(hit.pos, hit.length));
        BeginHeader(marker.call);
        break;
      case OutsideRole::kBlockOpen:
        layout_.Enter();
        break;
      case OutsideRole::kBlockClose:
        layout_.Leave();
        break;
      case OutsideRole::kDropWord:
        state_ = State::kDropWord;
        break;
      case OutsideRole::kDrop:
        break;
    }
    return skipped + hit.pos + hit.length;
  }

  // After a drop_word marker: its word is dropped too.
  size_t DropWord(std::string_view rest) {
    size_t n = 0;
    while (n < rest.size() && IsNameByte(rest[n]))
      ++n;
    if (n < rest.size()) state_ = State::kOutside;
    return n;
  }

  // json_calls: a list or an object of calls, else a header.
  size_t Start(std::string_view rest) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    if (rest[n] == '[') {
      Capture("[");
      list_.Reset(kEnvelopeKeys);
      state_ = State::kList;
      return n + 1;
    }
    if (rest[n] == '{' && call().json_calls == JsonCalls::kListOrObject) {
      object_.Reset(kEnvelopeKeys);
      state_ = State::kObject;
      return n;
    }
    state_ = State::kHeader;
    return n;
  }

  // Appends the bytes of `text` the current field may hold to text_; returns how many.
  size_t FieldBytes(std::string_view text) {
    const HeaderField::Text kind = call().fields[field_].text;
    if (kind == HeaderField::Text::kAny) {
      text_.append(text);
      return text.size();
    }
    size_t n = 0;
    for (; n < text.size(); ++n) {
      const char c = text[n];
      if (text::IsSpace(c) && kind != HeaderField::Text::kTightName) {
        word_done_ = !text_.empty();
        continue;
      }
      if (word_done_ || (kind != HeaderField::Text::kWord && !IsNameByte(c))) break;
      text_.push_back(c);
    }
    return n;
  }

  // The field ended: its value goes to the id or the name.
  void EndField() {
    const HeaderField& field = call().fields[field_];
    const std::string_view value = text::Trim(text_);
    if (field.kind == HeaderField::Kind::kName) {
      if (!value.empty()) name_.assign(value);
    } else {
      id_.assign(value);
      if (field.kind == HeaderField::Kind::kNamingId) name_.assign(text::Trim(NameOfId(value)));
    }
    text_.clear();
    word_done_ = false;
  }

  // Whether the fields after the current one and before `next` may all be left out.
  bool MayLeaveOut(size_t next) const {
    for (size_t i = field_ + 1; i < next; ++i) {
      if (!call().fields[i].optional) return false;
    }
    return true;
  }

  // One header field, up to the next marker; a marker out of place ends the call as content.
  size_t Header(std::string_view rest, bool at_end) {
    const text::ScanResult hit = format_.header(call_).Scan(rest, at_end);
    const size_t held = FieldBytes(rest.substr(0, hit.pos));
    Capture(rest.substr(0, held));
    if (held < hit.pos || text_.size() > call().fields[field_].max) {
      Fail();  // the rest of the field stays for Discard (or is outside text)
      return held;
    }
    if (hit.status != text::ScanStatus::kFound) return held;
    const HeaderJsonFormat::HeaderMarker marker = format_.header_marker(call_, hit.id);
    const bool to_args = marker.role == Role::kArgs || marker.role == Role::kBare;
    const size_t next = to_args ? call().fields.size() : marker.field;
    if (marker.role == Role::kWrong || next <= field_ || !MayLeaveOut(next)) {
      Fail();  // the marker stays for Discard
      return held;
    }
    EndField();
    if (to_args) return HeaderDone(marker.role, rest.substr(hit.pos, hit.length), held);
    Capture(rest.substr(hit.pos, hit.length));
    field_ = next;
    return hit.pos + hit.length;
  }

  // The header ended at `marker` (args_begin, or the arguments' first bytes: kBare) after
  // `held` bytes: a call begins, or a content name drops the header.
  size_t HeaderDone(Role role, std::string_view marker, size_t held) {
    if (name_.empty()) {
      Fail();
      return held;
    }
    const bool bare = role == Role::kBare;  // the marker's bytes are the arguments'
    if (!bare) Capture(marker);
    const size_t consumed = bare ? held : held + marker.size();
    if (IsContentName(name_)) {
      CloseRegion();  // no call begun: the header is dropped
      BackOutside();
      return consumed;
    }
    after_marker_ = !bare;
    if (call().args_envelope != nullptr) {
      object_.Reset(*call().args_envelope);
      state_ = State::kObject;
      return consumed;
    }
    args_.Start(name_, id_);
    state_ = State::kArgs;
    return consumed;
  }

  bool IsContentName(std::string_view name) const {
    for (std::string_view word : call().content_names) {
      if (EqualsIgnoringCase(word, name)) return true;
    }
    return false;
  }

  // Before the object: a fence (once), or the call end right after args_begin (`{}`).
  size_t BeforeObject(std::string_view rest, bool at_end) {
    if (!fenced_ && !format_.fence(call_).empty()) {
      const MarkerMatch m = MatchAt(format_.fence(call_), rest, at_end);
      if (m.status == MarkerMatch::Status::kWait) return 0;
      if (m.status == MarkerMatch::Status::kFound) {
        Capture(rest.substr(0, m.length));
        fenced_ = true;
        return m.length;
      }
    }
    if (after_marker_ && !fenced_ && !call().call_end.empty()) {
      const MarkerMatch m = MatchAt(format_.after(call_), rest, at_end);
      if (m.status == MarkerMatch::Status::kWait) return 0;
      if (m.status == MarkerMatch::Status::kFound && m.id == 0) {
        args_.EmitEmpty(*this);
        Capture(call().call_end);
        CloseRegion();
        BackOutside();
        return m.length;
      }
    }
    Fail();
    return 0;
  }

  size_t Arguments(std::string_view rest, bool at_end) {
    size_t n = 0;
    if (!args_.started()) {
      n = CaptureSpace(rest);
      if (n == rest.size()) return n;
      if (rest[n] != '{') return n + BeforeObject(rest.substr(n), at_end);
    }
    size_t m = 0;
    const auto st = args_.Feed(rest.substr(n), m, *this);
    Capture(rest.substr(n, m));
    if (st == JsonArgs::Status::kError) Fail();
    if (st == JsonArgs::Status::kDone) ArgsDone();
    return n + m;
  }

  // The object (or the list of calls) is complete. Without a call end the call ends here.
  void ArgsDone() {
    state_ = State::kAfterArgs;
    if (!call().call_end.empty() && region_open()) return;
    if (region_open()) CloseRegion();  // a list may end after a comma, with no region open
    BackOutside();
  }

  // After the object: whitespace, a closing fence, then the end marker; anything else ends
  // the call (its arguments are complete) and is read as outside text.
  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(format_.after(call_), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) Capture(rest.substr(n, m.length));
    if (m.status == MarkerMatch::Status::kFound && m.id != 0) return n + m.length;  // fence
    CloseRegion();
    BackOutside();
    return m.status == MarkerMatch::Status::kFound ? n + m.length : n;
  }

  // json_calls: the list or the object of calls.
  size_t Calls(std::string_view rest) {
    size_t n = 0;
    text::FeedStatus st = text::FeedStatus::kNeedMore;
    if (state_ == State::kList) {
      st = list_.Feed(rest, n, *this);
    } else {
      st = object_.Feed(rest, n, *this);
      Capture(rest.substr(0, n));
    }
    if (st == text::FeedStatus::kError || (st == text::FeedStatus::kDone && name_mismatch_)) {
      Fail();
      return n;
    }
    if (st == text::FeedStatus::kDone && state_ == State::kList && list_.calls() == 0 &&
        call().call_begin.empty()) {
      CancelRegion();  // a bare `[]` is text
      BackOutside();
      return n;
    }
    if (st == text::FeedStatus::kDone) ArgsDone();
    return n;
  }

  size_t Discard(std::string_view rest, bool at_end) {
    const DiscardResult d = DiscardCall(format_.discard(call_), rest, at_end);
    if (d.ended) BackOutside();
    return d.consumed;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, state_, [&](std::string_view rest) {
      switch (state_) {
        case State::kBegin:
          return Begin(rest);
        case State::kOutside:
          return Outside(rest, at_end);
        case State::kDropWord:
          return DropWord(rest);
        case State::kStart:
          return Start(rest);
        case State::kHeader:
          return Header(rest, at_end);
        case State::kArgs:
          return Arguments(rest, at_end);
        case State::kList:
        case State::kObject:
          return Calls(rest);
        case State::kAfterArgs:
          return AfterArgs(rest, at_end);
        case State::kDiscard:
          return Discard(rest, at_end);
      }
      return size_t{0};
    });
  }

  const HeaderJsonFormat& format_;
  const HeaderJsonSyntax& syntax_;
  State state_ = State::kOutside;
  size_t call_ = 0;  // the layout of the call being read
  size_t field_ = 0;
  std::string text_;  // the field being read
  std::string id_;
  std::string name_;
  bool word_done_ = false;      // a word field: whitespace followed its word
  bool after_marker_ = false;   // the arguments follow args_begin (so they may be empty)
  bool fenced_ = false;         // the arguments' fence was read
  bool name_mismatch_ = false;  // args_envelope: the envelope names another function
  JsonArgs args_;
  JsonCallList list_;
  JsonCallObject object_;
  BlockLayout layout_;
};

// The non-empty call begins of `s`.
std::vector<std::string_view> CallBegins(const HeaderJsonSyntax& s) {
  std::vector<std::string_view> begins;
  for (const HeaderCall& c : s.calls) {
    if (!c.call_begin.empty()) begins.push_back(c.call_begin);
  }
  return begins;
}

// The header markers of layout `c` and what each does.
std::vector<HeaderJsonFormat::HeaderMarker> HeaderRoles(const HeaderJsonSyntax& s,
                                                        const HeaderCall& c,
                                                        std::vector<std::string>& markers) {
  std::vector<HeaderJsonFormat::HeaderMarker> roles;
  const auto add = [&](std::string_view marker, Role role, size_t field) {
    if (marker.empty()) return;
    markers.emplace_back(marker);
    roles.push_back({role, field});
  };
  for (size_t i = 1; i < c.fields.size(); ++i)
    add(c.fields[i].begin, Role::kField, i);
  add(c.args_begin, Role::kArgs, 0);
  if (c.bare_args) {
    add("{", Role::kBare, 0);
    for (std::string_view f : c.fence_open)
      add(f, Role::kBare, 0);
  }
  add(c.call_end, Role::kWrong, 0);
  for (std::string_view begin : CallBegins(s))
    add(begin, Role::kWrong, 0);
  return roles;
}

}  // namespace

HeaderJsonFormat::HeaderJsonFormat(HeaderJsonSyntax syntax) : syntax_(std::move(syntax)) {
  std::vector<std::string> outside;
  const auto add = [&](const std::vector<std::string_view>& markers, OutsideRole role) {
    for (std::string_view m : markers) {
      if (m.empty()) continue;
      outside.emplace_back(m);
      outside_roles_.push_back({role, 0});
    }
  };
  for (size_t i = 0; i < syntax_.calls.size(); ++i) {
    const HeaderCall& c = syntax_.calls[i];
    CRUX_CHECK(!c.fields.empty() && (!c.args_begin.empty() || c.bare_args));
    CRUX_CHECK(c.fence_open.empty() || !c.call_end.empty());
    if (c.call_begin.empty()) {
      CRUX_CHECK(start_call_ == kNoCall);
      start_call_ = i;
    } else {
      outside.emplace_back(c.call_begin);
      outside_roles_.push_back({OutsideRole::kCall, i});
    }
    std::vector<std::string> header;
    std::vector<HeaderMarker> roles = HeaderRoles(syntax_, c, header);
    layouts_.push_back({.roles = std::move(roles),
                        .header = text::MarkerSet(header),
                        .fence = text::MarkerSet(Strings({c.fence_open})),
                        .after = text::MarkerSet(Strings({{c.call_end, c.fence_close}})),
                        .discard = text::MarkerSet(Strings({{c.call_end}, CallBegins(syntax_)}))});
  }
  add(syntax_.block_open, OutsideRole::kBlockOpen);
  add(syntax_.block_close, OutsideRole::kBlockClose);
  add(syntax_.drop, OutsideRole::kDrop);
  add(syntax_.drop_word, OutsideRole::kDropWord);
  outside_ = text::MarkerSet(outside);
}

std::unique_ptr<ToolParser> MakeHeaderJsonParser(const HeaderJsonFormat& format,
                                                 const ToolParserOptions& options) {
  return std::make_unique<HeaderJsonParser>(format, options);
}

}  // namespace crux::parse::tools
