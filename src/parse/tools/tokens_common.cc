#include "parse/tools/tokens_common.h"

#include <algorithm>

namespace crux::parse::tools {
namespace {

constexpr size_t kMaxTag = 128;      // longest dropped tag (ListFormat::tags)
constexpr size_t kMaxLanguage = 16;  // longest language word of a fence (ListFormat::fence)

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

bool IsLetter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Whether `marker` starts at text[0]: kWait when text is a proper prefix of it.
MarkerMatch MatchText(std::string_view marker, std::string_view text, bool at_end) {
  const size_t n = std::min(marker.size(), text.size());
  MarkerMatch match;
  if (text.substr(0, n) != marker.substr(0, n)) return match;
  if (n < marker.size()) {
    if (!at_end) match.status = MarkerMatch::Status::kWait;
    return match;
  }
  match.status = MarkerMatch::Status::kFound;
  match.id = 0;
  match.length = marker.size();
  return match;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// TokenParser

size_t TokenParser::CaptureSpace(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && text::IsSpace(text[n]))
    ++n;
  if (n > 0) Capture(text.substr(0, n));
  return n;
}

TokenParser::ReadResult TokenParser::ReadUntil(const text::MarkerSet& set, std::string_view text,
                                               bool at_end, size_t max, std::string& into) {
  const text::ScanResult hit = set.Scan(text, at_end);
  into.append(text.substr(0, hit.pos));
  Capture(text.substr(0, hit.pos));
  ReadResult result;
  result.consumed = hit.pos;
  result.too_long = into.size() > max;
  if (result.too_long || hit.status != text::ScanStatus::kFound) return result;
  Capture(text.substr(hit.pos, hit.length));
  result.consumed += hit.length;
  result.found = true;
  result.id = hit.id;
  return result;
}

TokenParser::DiscardResult TokenParser::DiscardCall(const text::MarkerSet& set,
                                                    std::string_view text, bool at_end) {
  const text::ScanResult hit = set.Scan(text, at_end);
  Capture(text.substr(0, hit.pos));
  DiscardResult result;
  result.consumed = hit.pos;
  if (hit.status != text::ScanStatus::kFound) return result;
  if (hit.id == 0) {
    Capture(text.substr(hit.pos, hit.length));
    result.consumed += hit.length;
  }
  CancelRegion();
  result.ended = true;
  return result;
}

MarkerMatch MatchAt(const text::MarkerSet& set, std::string_view text, bool at_end) {
  // Only position 0 matters: the first max_length bytes decide it.
  const std::string_view head = text.substr(0, set.max_length());
  const text::ScanResult hit = set.Scan(head, at_end);
  MarkerMatch match;
  if (hit.pos != 0 || hit.status == text::ScanStatus::kNone) return match;
  if (hit.status == text::ScanStatus::kPartial) {
    match.status = MarkerMatch::Status::kWait;
    return match;
  }
  match.status = MarkerMatch::Status::kFound;
  match.id = hit.id;
  match.length = hit.length;
  return match;
}

// ---------------------------------------------------------------------------------------------
// JsonCallList

void JsonCallList::Reset(const CallKeys& keys) {
  keys_ = &keys;
  state_ = State::kFirst;
  calls_ = 0;
}

// One byte between the list's elements.
JsonCallList::Byte JsonCallList::Delimiter(char c, TokenParser& host) {
  if (IsJsonSpace(c)) {
    if (state_ != State::kAfterComma) host.Capture(std::string_view(&c, 1));
    return Byte::kTaken;  // after a comma: layout between calls, dropped
  }
  if (c == ']') {
    if (state_ != State::kAfterComma) host.Capture("]");  // after a comma no region is open
    state_ = State::kDone;
    return Byte::kEnd;
  }
  if (state_ == State::kAfterObject) {
    if (c != ',') {
      state_ = State::kDone;
      return Byte::kEndBefore;  // the list ends early; its calls are kept
    }
    host.CloseRegion();
    state_ = State::kAfterComma;
    return Byte::kTaken;
  }
  // The next element's region starts as a list of its own: if the element is malformed, the
  // rest of the list comes back as `[…]` (the comma belonged between kept calls).
  if (state_ == State::kAfterComma) host.OpenRegion("[");
  if (c != '{') {
    state_ = State::kError;
    return Byte::kBad;
  }
  object_.Reset(*keys_);
  state_ = State::kObject;
  return Byte::kReread;
}

JsonCallList::Status JsonCallList::Feed(std::string_view text, size_t& consumed,
                                        TokenParser& host) {
  size_t i = 0;
  while (i < text.size()) {
    if (state_ == State::kObject) {
      size_t n = 0;
      const auto st = object_.Feed(text.substr(i), n, host);
      host.Capture(text.substr(i, n));
      i += n;
      if (st == JsonCallObject::Status::kError) state_ = State::kError;
      if (st == JsonCallObject::Status::kDone) {
        ++calls_;
        state_ = State::kAfterObject;
      }
      continue;
    }
    if (state_ == State::kDone || state_ == State::kError) break;
    switch (Delimiter(text[i], host)) {
      case Byte::kTaken:
        ++i;
        break;
      case Byte::kReread:
        break;
      case Byte::kEnd:
        consumed = i + 1;
        return Status::kDone;
      case Byte::kEndBefore:
        consumed = i;
        return Status::kDone;
      case Byte::kBad:
        consumed = i;
        return Status::kError;
    }
  }
  consumed = i;
  if (state_ == State::kDone) return Status::kDone;
  return state_ == State::kError ? Status::kError : Status::kNeedMore;
}

// ---------------------------------------------------------------------------------------------
// ListParser

void ListParser::OnReset() {
  state_ = format_.at_start != BareStart::kNone ? State::kStart : State::kOutside;
  opening_ = Opening::kMarker;
  keep_end_ = true;
  held_ = false;
  separated_ = false;
  start_fenced_ = false;
  pending_.clear();
  name_.clear();
  list_.Reset(format_.keys);
  object_.Reset(format_.keys);
}

void ListParser::OnFinish() {
  if (state_ == State::kTag) Content(tag_);  // the output ended inside a tag: it is text
  // After a sequence's last object: whitespace is content, a dangling separator is dropped.
  if (state_ == State::kSeparator && !separated_) Content(pending_);
  pending_.clear();
  state_ = State::kOutside;
  TokenParser::OnFinish();
}

void ListParser::Failed() {
  if (format_.end != nullptr && opening_ == Opening::kMarker) {
    // After kept calls the end marker closes their block: it is dropped, not given back.
    keep_end_ = state_ != State::kList || list_.calls() == 0;
    state_ = State::kDiscard;
  } else {
    CancelRegion();
    state_ = State::kOutside;
  }
}

void ListParser::StartList(Opening opening) {
  opening_ = opening;
  list_.Reset(format_.keys);
  state_ = State::kList;
}

void ListParser::StartObject(bool held) {
  object_.Reset(format_.keys);
  first_key_.Reset();
  held_ = held;
  state_ = State::kSingle;
}

size_t ListParser::Start(std::string_view rest, bool at_end) {
  size_t n = 0;
  while (n < rest.size() && text::IsSpace(rest[n]))
    ++n;
  Content(rest.substr(0, n));
  if (n == rest.size()) return n;
  // A marker here (`[TOOL_CALLS]` also begins with '[') is read as outside text.
  const MarkerMatch marker = MatchAt(*format_.outside, rest.substr(n), at_end);
  if (marker.status == MarkerMatch::Status::kWait) return n;
  state_ = State::kOutside;
  if (marker.status != MarkerMatch::Status::kNo) return n;
  if (format_.at_start == BareStart::kList && rest[n] == '[') {
    OpenRegion("[");
    StartList(Opening::kBare);
    return n + 1;
  }
  if (format_.at_start == BareStart::kObject && rest[n] == '{') {
    OpenRegion({});
    opening_ = Opening::kBare;
    StartObject(/*held=*/true);
  }
  return n;
}

size_t ListParser::Outside(std::string_view rest, bool at_end) {
  const text::ScanResult hit = format_.outside->Scan(rest, at_end);
  Content(rest.substr(0, hit.pos));
  if (hit.status != text::ScanStatus::kFound) return hit.pos;
  const std::string_view marker = rest.substr(hit.pos, hit.length);
  if (hit.id == format_.reopen) {
    Content(marker);
    state_ = State::kStart;
  } else if (hit.id == format_.fence || hit.id == format_.named) {
    OpenRegion(marker);
    language_ = 0;
    name_.clear();
    opening_ = hit.id == format_.named ? Opening::kNamed : Opening::kFence;
    state_ = hit.id == format_.named ? State::kName : State::kFenceHead;
  } else if (format_.tags >= 0 && hit.id >= format_.tags) {
    tag_.assign(marker);
    state_ = State::kTag;
  } else if (hit.id < format_.starts) {
    OpenRegion(marker);
    opening_ = Opening::kMarker;
    start_fenced_ = false;
    if (marker.back() == '[') {
      StartList(Opening::kMarker);
    } else {
      state_ = State::kOpen;
    }
  }
  return hit.pos + hit.length;
}

size_t ListParser::FenceHead(std::string_view rest) {
  size_t n = 0;
  while (n < rest.size() && language_ <= kMaxLanguage && IsLetter(rest[n])) {
    ++n;
    ++language_;
  }
  Capture(rest.substr(0, n));
  if (n == rest.size() && language_ <= kMaxLanguage) return n;
  language_ = kMaxLanguage + 1;  // the word is over
  n += CaptureSpace(rest.substr(n));
  if (n == rest.size()) return n;
  if (start_fenced_) {  // a start_fence: the list or object follows as after the marker
    state_ = State::kOpen;
    return n;
  }
  if (rest[n] != '[') {
    CancelRegion();  // not a call list: the fence is text
    state_ = State::kOutside;
    return n;
  }
  Capture("[");
  StartList(Opening::kFence);
  return n + 1;
}

size_t ListParser::Open(std::string_view rest, bool at_end) {
  size_t n = CaptureSpace(rest);
  if (n == rest.size()) return n;
  if (!format_.start_fence.empty() && !start_fenced_) {
    const MarkerMatch fence = MatchText(format_.start_fence, rest.substr(n), at_end);
    if (fence.status == MarkerMatch::Status::kWait) return n;
    if (fence.status == MarkerMatch::Status::kFound) {
      Capture(rest.substr(n, fence.length));
      start_fenced_ = true;
      language_ = 0;
      state_ = State::kFenceHead;
      return n + fence.length;
    }
  }
  const char c = rest[n];
  if (c == '[' && format_.list) {
    Capture("[");
    StartList(Opening::kMarker);
    return n + 1;
  }
  if (c == '{' && format_.single) {
    StartObject(/*held=*/false);
    return n;
  }
  if (IsNameStart(c) && format_.python) {
    name_.clear();
    state_ = State::kName;
    return n;
  }
  CancelRegion();  // not a call after all: the marker is text
  state_ = State::kOutside;
  return n;
}

size_t ListParser::List(std::string_view rest) {
  size_t n = 0;
  const auto st = list_.Feed(rest, n, *this);
  if (st == JsonCallList::Status::kError) {
    Failed();
  } else if (st == JsonCallList::Status::kDone) {
    if (format_.empty_is_text && list_.calls() == 0) {
      CancelRegion();
      state_ = State::kOutside;
    } else {
      state_ = State::kAfter;
    }
  }
  return n;
}

// A held object is fed one byte at a time until its first key is known, so that it is
// released on the same byte however the text is cut.
size_t ListParser::Single(std::string_view rest) {
  const std::string_view piece = held_ ? rest.substr(0, 1) : rest;
  size_t n = 0;
  const auto st = object_.Feed(piece, n, *this);
  Capture(piece.substr(0, n));
  if (held_) {
    first_key_.Feed(piece.substr(0, n));
    if (first_key_.no_key() || st == JsonCallObject::Status::kError ||
        !CanStartEnvelope(first_key_.first_key(), first_key_.first_key_done())) {
      CancelRegion();  // not a call envelope: the text is content
      state_ = State::kOutside;
      return n;
    }
    held_ = !first_key_.first_key_done();
  }
  if (st == JsonCallObject::Status::kError) Failed();
  if (st == JsonCallObject::Status::kDone) ObjectDone();
  return n;
}

void ListParser::ObjectDone() {
  if (format_.separator == 0) {
    state_ = State::kAfter;
    return;
  }
  CloseRegion();
  pending_.clear();
  separated_ = false;
  state_ = State::kSeparator;
}

// Whitespace and one separator are held until the next byte: an object continues the
// sequence (they open its region); anything else ends it (they are content).
size_t ListParser::Separator(std::string_view rest) {
  const char c = rest[0];
  if (text::IsSpace(c) || (c == format_.separator && !separated_)) {
    pending_.push_back(c);
    separated_ = separated_ || c == format_.separator;
    return 1;
  }
  if (c == '{' && separated_) {
    OpenRegion(pending_);
    StartObject(/*held=*/false);
  } else {
    Content(pending_);
    state_ = State::kOutside;
  }
  pending_.clear();
  return 0;
}

// A Python call's name up to '(' (kMarker) or a named call's up to '>' (kNamed).
size_t ListParser::Name(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && IsNameByte(rest[i]) && name_.size() + i < kMaxNameLength)
    ++i;
  name_.append(rest.substr(0, i));
  Capture(rest.substr(0, i));
  if (i == rest.size()) return i;
  const bool named = opening_ == Opening::kNamed;
  if (rest[i] != (named ? '>' : '(') || name_.empty()) {
    CancelRegion();
    state_ = State::kOutside;
    return i;
  }
  Capture(rest.substr(i, 1));
  if (named) {
    json_args_.Start(name_, {});
    state_ = State::kNamedArgs;
    return i + 1;
  }
  const std::string_view suffix = format_.python_suffix;
  if (!suffix.empty() && name_.size() > suffix.size() && name_.ends_with(suffix)) {
    name_.resize(name_.size() - suffix.size());
  }
  python_.Reset();
  state_ = State::kPython;
  return i + 1;
}

size_t ListParser::Python(std::string_view rest) {
  size_t n = 0;
  const PythonArgs::Status st = python_.FeedCall(rest, n, name_, call_begun(), *this);
  Capture(rest.substr(0, n));
  if (st == PythonArgs::Status::kError) {
    Failed();
  } else if (st == PythonArgs::Status::kDone) {
    EndCall();
    CloseRegion();
    state_ = State::kOutside;
  }
  return n;
}

size_t ListParser::NamedArgs(std::string_view rest) {
  size_t n = 0;
  const auto st = json_args_.Feed(rest, n, *this);
  Capture(rest.substr(0, n));
  if (st == JsonArgs::Status::kError) Failed();
  if (st == JsonArgs::Status::kDone) state_ = State::kAfter;
  return n;
}

MarkerMatch ListParser::EndAt(std::string_view text, bool at_end) const {
  switch (opening_) {
    case Opening::kFence:
      return MatchText(format_.outside->marker(format_.fence), text, at_end);
    case Opening::kNamed:
      return MatchText(format_.named_close, text, at_end);
    case Opening::kMarker:
      return format_.end != nullptr ? MatchAt(*format_.end, text, at_end) : MarkerMatch{};
    case Opening::kBare:
      break;
  }
  return {};
}

size_t ListParser::After(std::string_view rest, bool at_end) {
  size_t n = 0;
  while (n < rest.size() && text::IsSpace(rest[n]))
    ++n;
  if (region_open()) Capture(rest.substr(0, n));
  if (n == rest.size()) return n;
  if (start_fenced_) {  // the start_fence closes first
    const MarkerMatch fence = MatchText(format_.start_fence, rest.substr(n), at_end);
    if (fence.status == MarkerMatch::Status::kWait) return n;
    start_fenced_ = false;
    if (fence.status == MarkerMatch::Status::kFound) {
      if (region_open()) Capture(rest.substr(n, fence.length));
      return n + fence.length;
    }
  }
  const MarkerMatch m = EndAt(rest.substr(n), at_end);
  if (m.status == MarkerMatch::Status::kWait) return n;
  if (m.status == MarkerMatch::Status::kFound) {
    if (region_open()) {
      Capture(rest.substr(n, m.length));
      CloseRegion();
    }
    state_ = State::kOutside;
    return n + m.length;
  }
  if (region_open()) CloseRegion();
  state_ = State::kOutside;
  return n;
}

size_t ListParser::Discard(std::string_view rest, bool at_end) {
  const text::ScanResult hit = format_.end->Scan(rest, at_end);
  Capture(rest.substr(0, hit.pos));
  if (hit.status != text::ScanStatus::kFound) return hit.pos;
  if (keep_end_) Capture(rest.substr(hit.pos, hit.length));
  CancelRegion();
  state_ = State::kOutside;
  return hit.pos + hit.length;
}

size_t ListParser::Tag(std::string_view rest, bool at_end) {
  size_t n = 0;
  while (n < rest.size() && tag_.size() + n <= kMaxTag &&
         format_.tag_chars.find(rest[n]) != std::string_view::npos) {
    ++n;
  }
  tag_.append(rest.substr(0, n));
  if (n == rest.size() && !at_end && tag_.size() <= kMaxTag) return n;
  state_ = State::kOutside;
  if (n < rest.size() && rest[n] == '>' && tag_.size() <= kMaxTag) return n + 1;  // dropped
  Content(tag_);  // not a tag after all
  return n;
}

size_t ListParser::Step(std::string_view rest, bool at_end) {
  switch (state_) {
    case State::kStart:
      return Start(rest, at_end);
    case State::kOutside:
      return Outside(rest, at_end);
    case State::kFenceHead:
      return FenceHead(rest);
    case State::kOpen:
      return Open(rest, at_end);
    case State::kList:
      return List(rest);
    case State::kSingle:
      return Single(rest);
    case State::kSeparator:
      return Separator(rest);
    case State::kName:
      return Name(rest);
    case State::kPython:
      return Python(rest);
    case State::kNamedArgs:
      return NamedArgs(rest);
    case State::kAfter:
      return After(rest, at_end);
    case State::kDiscard:
      return Discard(rest, at_end);
    case State::kTag:
      return Tag(rest, at_end);
  }
  return 0;
}

size_t ListParser::Process(std::string_view text, bool at_end) {
  return RunSteps(text, state_, [&](std::string_view rest) { return Step(rest, at_end); });
}

// ---------------------------------------------------------------------------------------------
// JsonArgs

void JsonArgs::Start(std::string_view name, std::string_view id) {
  name_.assign(name);
  id_.assign(id);
  scanner_.Reset();
}

JsonArgs::Status JsonArgs::Feed(std::string_view text, size_t& consumed, CallSink& sink) {
  size_t i = 0;
  if (!scanner_.started()) {
    while (i < text.size() && IsJsonSpace(text[i]))
      ++i;
    consumed = i;
    if (i == text.size()) return Status::kNeedMore;
    if (text[i] != '{') return Status::kError;
    sink.BeginCall(name_, id_);
  }
  size_t n = 0;
  const auto st = scanner_.Feed(text.substr(i), n);
  if (n > 0) sink.Args(text.substr(i, n));
  consumed = i + n;
  if (st == text::JsonScanner::Status::kError) return Status::kError;
  if (st == text::JsonScanner::Status::kNeedMore) return Status::kNeedMore;
  sink.EndCall();
  return Status::kDone;
}

void JsonArgs::EmitEmpty(CallSink& sink) {
  sink.BeginCall(name_, id_);
  sink.Args("{}");
  sink.EndCall();
}

}  // namespace crux::parse::tools
