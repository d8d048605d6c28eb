#include "parse/tools/header_json.h"

#include <string>
#include <utility>

#include "crux/base/check.h"
#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

using Role = HeaderJsonFormat::HeaderMarker::Role;

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
      : TokenParser(options), format_(format), syntax_(format.syntax()) {}

  void BeginCall(std::string_view name, std::string id) override {
    if (state_ == State::kObject && syntax_.args_envelope != nullptr) {
      name_mismatch_ = name != name_;
      id = id_;
    }
    if (id.empty() && syntax_.id_length > 0) id = ids().Next("", syntax_.id_length);
    TokenParser::BeginCall(name, std::move(id));
  }

 private:
  enum class State : uint8_t {
    kOutside,
    kStart,
    kHeader,
    kArgs,
    kList,
    kObject,
    kAfterArgs,
    kDiscard
  };

  void OnReset() override {
    state_ = State::kOutside;
    layout_.Reset();
  }

  void BackOutside() {
    state_ = State::kOutside;
    layout_.AfterCall();
  }

  // The call is malformed: give it back up to its end marker, or (without one) now.
  void Fail() {
    if (!syntax_.call_end.empty()) {
      state_ = State::kDiscard;
      return;
    }
    CancelRegion();
    BackOutside();
  }

  void BeginHeader() {
    field_ = 0;
    text_.clear();
    id_.clear();
    name_.clear();
    word_done_ = false;
    after_marker_ = false;
    fenced_ = false;
    name_mismatch_ = false;
    state_ = syntax_.json_calls ? State::kStart : State::kHeader;
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const size_t skipped = layout_.Skip(rest);
    rest.remove_prefix(skipped);
    const text::ScanResult hit = format_.outside().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return skipped + hit.pos;
    if (hit.id == 0) {
      OpenRegion(syntax_.call_begin);
      BeginHeader();
    } else if (format_.opens_block(hit.id)) {
      layout_.Enter();
    } else if (format_.closes_block(hit.id)) {
      layout_.Leave();
    }
    return skipped + hit.pos + hit.length;
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
    if (rest[n] == '{') {
      object_.Reset(kEnvelopeKeys);
      state_ = State::kObject;
      return n;
    }
    state_ = State::kHeader;
    return n;
  }

  // Appends the bytes of `text` the current field may hold to text_; returns how many.
  size_t FieldBytes(std::string_view text) {
    const HeaderField::Text kind = syntax_.fields[field_].text;
    if (kind == HeaderField::Text::kAny) {
      text_.append(text);
      return text.size();
    }
    size_t n = 0;
    for (; n < text.size(); ++n) {
      const char c = text[n];
      if (text::IsSpace(c)) {
        word_done_ = !text_.empty();
        continue;
      }
      if (word_done_ || (kind == HeaderField::Text::kNameWord && !IsNameByte(c))) break;
      text_.push_back(c);
    }
    return n;
  }

  // The field ended: its value goes to the id or the name.
  void EndField() {
    const HeaderField& field = syntax_.fields[field_];
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
      if (!syntax_.fields[i].optional) return false;
    }
    return true;
  }

  // One header field, up to the next marker; a marker out of place ends the call as content.
  size_t Header(std::string_view rest, bool at_end) {
    const text::ScanResult hit = format_.header().Scan(rest, at_end);
    const size_t held = FieldBytes(rest.substr(0, hit.pos));
    Capture(rest.substr(0, held));
    if (held < hit.pos || text_.size() > syntax_.fields[field_].max) {
      Fail();  // the rest of the field stays for Discard (or is outside text)
      return held;
    }
    if (hit.status != text::ScanStatus::kFound) return held;
    const HeaderJsonFormat::HeaderMarker marker = format_.header_marker(hit.id);
    const bool to_args = marker.role == Role::kArgs || marker.role == Role::kBare;
    const size_t next = to_args ? syntax_.fields.size() : marker.field;
    if (marker.role == Role::kWrong || next <= field_ || !MayLeaveOut(next)) {
      Fail();  // the marker stays for Discard
      return held;
    }
    EndField();
    if (to_args && name_.empty()) {
      Fail();
      return held;
    }
    if (marker.role == Role::kBare) {  // its bytes are the arguments'
      args_.Start(name_, id_);
      state_ = State::kArgs;
      return held;
    }
    Capture(rest.substr(hit.pos, hit.length));
    if (to_args) StartArguments();
    field_ = next;
    return hit.pos + hit.length;
  }

  // After args_begin: the arguments object, or (args_envelope) a call envelope.
  void StartArguments() {
    after_marker_ = true;
    if (syntax_.args_envelope != nullptr) {
      object_.Reset(*syntax_.args_envelope);
      state_ = State::kObject;
      return;
    }
    args_.Start(name_, id_);
    state_ = State::kArgs;
  }

  // Before the object: a fence (once), or the call end right after args_begin (`{}`).
  size_t BeforeObject(std::string_view rest, bool at_end) {
    if (!fenced_ && !format_.fence().empty()) {
      const MarkerMatch m = MatchAt(format_.fence(), rest, at_end);
      if (m.status == MarkerMatch::Status::kWait) return 0;
      if (m.status == MarkerMatch::Status::kFound) {
        Capture(rest.substr(0, m.length));
        fenced_ = true;
        return m.length;
      }
    }
    if (after_marker_ && !fenced_ && !syntax_.call_end.empty()) {
      const MarkerMatch m = MatchAt(format_.after(), rest, at_end);
      if (m.status == MarkerMatch::Status::kWait) return 0;
      if (m.status == MarkerMatch::Status::kFound && m.id == 0) {
        args_.EmitEmpty(*this);
        Capture(syntax_.call_end);
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
    if (!syntax_.call_end.empty() && region_open()) return;
    if (region_open()) CloseRegion();  // a list may end after a comma, with no region open
    BackOutside();
  }

  // After the object: whitespace, a closing fence, then the end marker; anything else ends
  // the call (its arguments are complete) and is read as outside text.
  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(format_.after(), rest.substr(n), at_end);
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
    } else if (st == text::FeedStatus::kDone) {
      ArgsDone();
    }
    return n;
  }

  size_t Discard(std::string_view rest, bool at_end) {
    const DiscardResult d = DiscardCall(format_.discard(), rest, at_end);
    if (d.ended) BackOutside();
    return d.consumed;
  }

  size_t Process(std::string_view text, bool at_end) override {
    return RunSteps(text, state_, [&](std::string_view rest) {
      switch (state_) {
        case State::kOutside:
          return Outside(rest, at_end);
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

// The header markers of `s` and what each does.
std::vector<HeaderJsonFormat::HeaderMarker> HeaderRoles(const HeaderJsonSyntax& s,
                                                        std::vector<std::string>& markers) {
  std::vector<HeaderJsonFormat::HeaderMarker> roles;
  const auto add = [&](std::string_view marker, Role role, size_t field) {
    if (marker.empty()) return;
    markers.emplace_back(marker);
    roles.push_back({role, field});
  };
  for (size_t i = 1; i < s.fields.size(); ++i)
    add(s.fields[i].begin, Role::kField, i);
  add(s.args_begin, Role::kArgs, 0);
  if (s.bare_args) {
    add("{", Role::kBare, 0);
    for (std::string_view f : s.fence_open)
      add(f, Role::kBare, 0);
  }
  add(s.call_end, Role::kWrong, 0);
  add(s.call_begin, Role::kWrong, 0);
  return roles;
}

}  // namespace

HeaderJsonFormat::HeaderJsonFormat(HeaderJsonSyntax syntax)
    : syntax_(std::move(syntax)),
      outside_(Strings({{syntax_.call_begin},
                        syntax_.block_open,
                        syntax_.block_close,
                        syntax_.drop,
                        {syntax_.call_end}})),
      fence_(Strings({syntax_.fence_open})),
      after_(Strings({{syntax_.call_end, syntax_.fence_close}})),
      discard_(Strings({{syntax_.call_end, syntax_.call_begin}})) {
  CRUX_CHECK(!syntax_.fields.empty() && (!syntax_.args_begin.empty() || syntax_.bare_args));
  CRUX_CHECK(syntax_.fence_open.empty() || !syntax_.call_end.empty());
  std::vector<std::string> markers;
  header_roles_ = HeaderRoles(syntax_, markers);
  header_ = text::MarkerSet(markers);
}

std::unique_ptr<ToolParser> MakeHeaderJsonParser(const HeaderJsonFormat& format,
                                                 const ToolParserOptions& options) {
  return std::make_unique<HeaderJsonParser>(format, options);
}

}  // namespace crux::parse::tools
