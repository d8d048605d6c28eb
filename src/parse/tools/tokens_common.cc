#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

constexpr size_t kMaxTag = 128;  // longest dropped tag (ListFormat::tags)

bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
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
  state_ = State::kOutside;
  keep_end_ = true;
  list_.Reset(format_.keys);
  object_.Reset(format_.keys);
}

void ListParser::OnFinish() {
  if (state_ == State::kTag) Content(tag_);  // the output ended inside a tag: it is text
  state_ = State::kOutside;
  TokenParser::OnFinish();
}

void ListParser::Failed() {
  if (format_.end != nullptr) {
    // After kept calls the end marker closes their block: it is dropped, not given back.
    keep_end_ = state_ != State::kList || list_.calls() == 0;
    state_ = State::kDiscard;
  } else {
    CancelRegion();
    state_ = State::kOutside;
  }
}

size_t ListParser::Outside(std::string_view rest, bool at_end) {
  const text::ScanResult hit = format_.outside->Scan(rest, at_end);
  Content(rest.substr(0, hit.pos));
  if (hit.status != text::ScanStatus::kFound) return hit.pos;
  const std::string_view marker = rest.substr(hit.pos, hit.length);
  if (format_.tags >= 0 && hit.id >= format_.tags) {
    tag_.assign(marker);
    state_ = State::kTag;
  } else if (hit.id < format_.starts) {
    OpenRegion(marker);
    if (marker.back() == '[') {
      list_.Reset(format_.keys);
      state_ = State::kList;
    } else {
      state_ = State::kOpen;
    }
  }
  return hit.pos + hit.length;
}

size_t ListParser::Open(std::string_view rest) {
  size_t n = CaptureSpace(rest);
  if (n == rest.size()) return n;
  if (rest[n] == '[') {
    Capture("[");
    list_.Reset(format_.keys);
    state_ = State::kList;
    return n + 1;
  }
  if (rest[n] == '{') {
    object_.Reset(format_.keys);
    state_ = State::kSingle;
    return n;
  }
  CancelRegion();  // not a call after all: the marker is text
  state_ = State::kOutside;
  return n;
}

size_t ListParser::After(std::string_view rest, bool at_end) {
  size_t n = 0;
  while (n < rest.size() && text::IsSpace(rest[n]))
    ++n;
  if (region_open()) Capture(rest.substr(0, n));
  if (n == rest.size()) return n;
  if (format_.end != nullptr) {
    const MarkerMatch m = MatchAt(*format_.end, rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) {
      if (region_open()) {
        Capture(rest.substr(n, m.length));
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

size_t ListParser::Process(std::string_view text, bool at_end) {
  return RunSteps(text, state_, [&](std::string_view rest) {
    size_t n = 0;
    switch (state_) {
      case State::kOutside:
        n = Outside(rest, at_end);
        break;
      case State::kOpen:
        n = Open(rest);
        break;
      case State::kList: {
        const auto st = list_.Feed(rest, n, *this);
        if (st == JsonCallList::Status::kDone) state_ = State::kAfter;
        if (st == JsonCallList::Status::kError) Failed();
        break;
      }
      case State::kSingle: {
        const auto st = object_.Feed(rest, n, *this);
        Capture(rest.substr(0, n));
        if (st == JsonCallObject::Status::kDone) state_ = State::kAfter;
        if (st == JsonCallObject::Status::kError) Failed();
        break;
      }
      case State::kAfter:
        n = After(rest, at_end);
        break;
      case State::kDiscard:
        n = Discard(rest, at_end);
        break;
      case State::kTag:
        n = Tag(rest, at_end);
        break;
    }
    return n;
  });
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
