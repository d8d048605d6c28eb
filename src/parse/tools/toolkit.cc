#include "parse/tools/toolkit.h"

#include <algorithm>
#include <utility>

#include "crux/base/check.h"
#include "crux/base/utf8.h"

namespace crux::parse::tools {

// ---------------------------------------------------------------------------------------------
// ToolParserCore

ToolParserCore::ToolParserCore(const ToolParserOptions& options)
    : options_(options), ids_(options.id_seed) {}

void ToolParserCore::Feed(std::string_view delta, EventSink& out) {
  out_ = &out;
  Run(delta, false);
  out_ = nullptr;
}

void ToolParserCore::Finish(EventSink& out) {
  out_ = &out;
  Run({}, true);
  OnFinish();
  out_ = nullptr;
}

void ToolParserCore::Reset() {
  buffer_.Clear();
  content_.Reset();
  raw_.clear();
  spare_id_.clear();
  next_index_ = 0;
  region_open_ = false;
  call_begun_ = false;
  call_ended_ = false;
  ids_.Reseed(options_.id_seed);
  OnReset();
}

void ToolParserCore::Run(std::string_view delta, bool at_end) {
  const std::string_view view = buffer_.Take(delta, at_end);
  size_t consumed = Process(view, at_end);
  CRUX_DCHECK(consumed <= view.size());
  if (at_end && consumed < view.size()) {  // a family must decide everything at the end
    const std::string_view rest = view.substr(consumed);
    if (region_open_) {
      Capture(rest);
    } else {
      Content(rest);
    }
    consumed = view.size();
  }
  buffer_.Keep(consumed);
}

void ToolParserCore::OnFinish() {
  if (!region_open_) return;
  if (call_ended_) {
    CloseRegion();
  } else {
    CancelRegion();
  }
}

void ToolParserCore::Content(std::string_view text) {
  if (text.empty()) return;
  scratch_.clear();
  content_.Append(text, scratch_);
  out_->Content(scratch_);
}

void ToolParserCore::OpenRegion(std::string_view marker_text) {
  CRUX_CHECK(!region_open_);
  region_open_ = true;
  call_begun_ = false;
  call_ended_ = false;
  raw_.assign(marker_text);
}

void ToolParserCore::CloseRegion() {
  if (call_begun_ && !call_ended_) EndCall();
  region_open_ = false;
  call_begun_ = false;
  call_ended_ = false;
  raw_.clear();
}

void ToolParserCore::CancelRegion() {
  if (call_begun_) {
    out_->ToolCallCancel(next_index_ - 1);
    --next_index_;
    spare_id_ = std::move(current_id_);
  }
  region_open_ = false;
  call_begun_ = false;
  call_ended_ = false;
  std::string raw = std::move(raw_);
  raw_.clear();
  Content(raw);
}

void ToolParserCore::BeginCall(std::string_view name, std::string id) {
  CRUX_CHECK(region_open_ && !call_begun_);
  if (id.empty()) id = spare_id_.empty() ? ids_.NextCallId() : std::exchange(spare_id_, {});
  current_id_ = id;
  out_->ToolCallBegin(next_index_++, std::move(id), std::string(name), IsDeclared(options_, name));
  call_begun_ = true;
}

void ToolParserCore::Args(std::string_view fragment) {
  CRUX_DCHECK(call_begun_ && !call_ended_);
  out_->ToolCallArgs(next_index_ - 1, fragment);
}

void ToolParserCore::EndCall() {
  CRUX_CHECK(call_begun_ && !call_ended_);
  out_->ToolCallEnd(next_index_ - 1);
  call_ended_ = true;
}

bool IsDeclared(const ToolParserOptions& options, std::string_view name) {
  if (options.tools.empty()) return true;
  return FindTool(options.tools, name) != nullptr;
}

ParamType ParamTypeOf(const ToolParserOptions& options, std::string_view name,
                      std::string_view param) {
  const ToolSpec* tool = FindTool(options.tools, name);
  return tool == nullptr ? ParamType::kAny : tool->TypeOf(param);
}

// ---------------------------------------------------------------------------------------------
// JsonStringDecoder

void JsonStringDecoder::Reset() {
  state_ = State::kPlain;
  hex_left_ = 0;
  code_ = 0;
  high_surrogate_ = 0;
}

void JsonStringDecoder::FlushHigh(std::string& out) {
  if (high_surrogate_ != 0) {
    utf8::AppendCodePoint(out, 0xFFFD);
    high_surrogate_ = 0;
  }
}

JsonStringDecoder::Step JsonStringDecoder::Plain(std::string_view rest, std::string& out) {
  const char c = rest[0];
  if (c == '"') {
    FlushHigh(out);
    return {1, Status::kDone};
  }
  if (c == '\\') {
    state_ = State::kEscape;
    return {1, Status::kNeedMore};
  }
  if (static_cast<unsigned char>(c) < 0x20) return {0, Status::kError};
  FlushHigh(out);
  size_t j = 0;  // copy a run of plain bytes at once
  while (j < rest.size() && rest[j] != '"' && rest[j] != '\\' &&
         static_cast<unsigned char>(rest[j]) >= 0x20) {
    ++j;
  }
  out.append(rest.substr(0, j));
  return {j, Status::kNeedMore};
}

JsonStringDecoder::Step JsonStringDecoder::Escape(char c, std::string& out) {
  static constexpr std::string_view kFrom = "\"\\/bfnrt";
  static constexpr std::string_view kTo = "\"\\/\b\f\n\r\t";
  if (c == 'u') {
    state_ = State::kUnicode;
    hex_left_ = 4;
    code_ = 0;
    return {1, Status::kNeedMore};
  }
  const size_t at = kFrom.find(c);
  if (at == std::string_view::npos) return {0, Status::kError};
  FlushHigh(out);
  out.push_back(kTo[at]);
  state_ = State::kPlain;
  return {1, Status::kNeedMore};
}

JsonStringDecoder::Step JsonStringDecoder::Unicode(char c, std::string& out) {
  int digit = -1;
  if (c >= '0' && c <= '9') {
    digit = c - '0';
  } else if (c >= 'a' && c <= 'f') {
    digit = c - 'a' + 10;
  } else if (c >= 'A' && c <= 'F') {
    digit = c - 'A' + 10;
  }
  if (digit < 0) return {0, Status::kError};
  code_ = code_ * 16 + static_cast<char32_t>(digit);
  if (--hex_left_ > 0) return {1, Status::kNeedMore};
  state_ = State::kPlain;
  if (code_ >= 0xD800 && code_ <= 0xDBFF) {
    FlushHigh(out);
    high_surrogate_ = code_;
  } else if (code_ >= 0xDC00 && code_ <= 0xDFFF && high_surrogate_ != 0) {
    utf8::AppendCodePoint(out, 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (code_ - 0xDC00));
    high_surrogate_ = 0;
  } else {
    FlushHigh(out);
    utf8::AppendCodePoint(out, code_);
  }
  return {1, Status::kNeedMore};
}

JsonStringDecoder::Status JsonStringDecoder::Feed(std::string_view text, size_t& consumed,
                                                  std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    Step step{0, Status::kNeedMore};
    switch (state_) {
      case State::kPlain:
        step = Plain(text.substr(i), out);
        break;
      case State::kEscape:
        step = Escape(text[i], out);
        break;
      case State::kUnicode:
        step = Unicode(text[i], out);
        break;
    }
    i += step.n;
    if (step.status != Status::kNeedMore) {
      consumed = i;
      return step.status;
    }
  }
  consumed = text.size();
  return Status::kNeedMore;
}

// ---------------------------------------------------------------------------------------------
// JsonCallObject

namespace {
bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}
constexpr size_t kMaxKey = 64;  // longer keys are not a call object's (but a function name can be)
constexpr size_t kMaxName = 256;
}  // namespace

void JsonCallObject::Reset(const CallKeys& keys) {
  keys_ = &keys;
  state_ = State::kStart;
  key_kind_ = KeyKind::kOther;
  key_count_ = 0;
  key_.clear();
  name_.clear();
  has_name_ = false;
  has_args_ = false;
  args_null_ = false;
  begun_ = false;
  pending_args_.clear();
  decoded_.clear();
  string_.Reset();
  args_.Reset();
  skip_.Reset();
}

bool JsonCallObject::KeyDone() {
  ++key_count_;
  state_ = State::kColon;
  if (keys_->shape == CallShape::kFunctionIsKey) {
    if (key_count_ > 1 || key_.empty()) return false;
    name_ = key_;
    has_name_ = true;
    key_kind_ = KeyKind::kArgs;
    return true;
  }
  if (key_ == keys_->name || (!keys_->name_alt.empty() && key_ == keys_->name_alt)) {
    key_kind_ = has_name_ ? KeyKind::kOther : KeyKind::kName;
  } else if (key_ == keys_->args || (!keys_->args_alt.empty() && key_ == keys_->args_alt)) {
    if (has_args_) return false;  // two argument keys
    key_kind_ = KeyKind::kArgs;
  } else {
    key_kind_ = KeyKind::kOther;
  }
  return true;
}

void JsonCallObject::MaybeBegin(CallSink& sink) {
  if (begun_ || !has_name_ || !has_args_ || args_null_) return;
  sink.BeginCall(name_);
  begun_ = true;
  if (!pending_args_.empty()) {
    sink.Args(pending_args_);
    pending_args_.clear();
  }
}

void JsonCallObject::ArgsBytes(std::string_view bytes, CallSink& sink) {
  if (bytes.empty()) return;
  if (begun_) {
    sink.Args(bytes);
  } else {
    pending_args_.append(bytes);
  }
}

// Validates decoded bytes of string-wrapped arguments: one object, whitespace around it.
bool JsonCallObject::ArgsStringBytes(CallSink& sink) {
  std::string_view d = decoded_;
  if (!args_.started()) {
    while (!d.empty() && IsJsonSpace(d.front()))
      d.remove_prefix(1);
    if (d.empty()) return true;
    if (d.front() != '{') return false;
    has_args_ = true;
    MaybeBegin(sink);
  }
  if (!args_.done()) {
    size_t m = 0;
    if (args_.Feed(d, m) == text::JsonScanner::Status::kError) return false;
    ArgsBytes(d.substr(0, m), sink);
    d.remove_prefix(m);
  }
  for (char ch : d) {
    if (!IsJsonSpace(ch)) return false;
  }
  return true;
}

bool JsonCallObject::Finish(CallSink& sink) {
  if (!has_name_ || (keys_->args_required && !has_args_)) return false;
  if (!begun_) {
    sink.BeginCall(name_);
    begun_ = true;
    if (!pending_args_.empty()) sink.Args(pending_args_);
    pending_args_.clear();
  }
  if (!has_args_ || args_null_) sink.Args("{}");
  sink.EndCall();
  state_ = State::kDone;
  return true;
}

// Starts the value of the current key at byte `c`; false when it cannot be one.
bool JsonCallObject::ValueStart(char c, CallSink& sink) {
  if (key_kind_ == KeyKind::kName) {
    if (c != '"') return false;
    string_.Reset();
    name_.clear();
    state_ = State::kName;
    return true;
  }
  if (key_kind_ == KeyKind::kArgs) {
    args_.Reset();
    if (c == '{') {
      has_args_ = true;
      state_ = State::kArgs;
      MaybeBegin(sink);
      return true;
    }
    if (c == '"') {
      string_.Reset();
      state_ = State::kArgsString;
      return true;
    }
    if (c != 'n') return false;  // only null besides objects and strings
    has_args_ = true;
    args_null_ = true;
  }
  skip_.Reset();
  state_ = State::kSkipValue;
  return true;
}

// Structural bytes: braces, keys' quotes, colons, commas, whitespace.
JsonCallObject::Step JsonCallObject::Punctuation(char c, CallSink& sink) {
  constexpr Step kNext{1, Status::kNeedMore};
  constexpr Step kBad{0, Status::kError};
  if (IsJsonSpace(c)) return kNext;
  switch (state_) {
    case State::kStart:
      if (c != '{') return kBad;
      state_ = State::kKeyOrEnd;
      return kNext;
    case State::kKeyOrEnd:  // `{}` has no name
    case State::kKey:
      if (c != '"') return kBad;
      key_.clear();
      string_.Reset();
      state_ = State::kKeyString;
      return kNext;
    case State::kColon:
      if (c != ':') return kBad;
      state_ = State::kValue;
      return kNext;
    case State::kValue:
      if (!ValueStart(c, sink)) return kBad;
      // Objects and skipped values are read by their scanner, from this byte.
      return state_ == State::kArgs || state_ == State::kSkipValue ? Step{0, Status::kNeedMore}
                                                                   : kNext;
    case State::kAfterValue:
      if (c == ',') {
        state_ = State::kKey;
        return kNext;
      }
      if (c != '}' || !Finish(sink)) return kBad;
      return {1, Status::kDone};
    default:
      return kBad;
  }
}

JsonCallObject::Step JsonCallObject::ReadString(std::string_view rest, CallSink& sink) {
  const bool key = state_ == State::kKeyString;
  std::string& out = key ? key_ : name_;
  const bool name_key = key && keys_->shape == CallShape::kFunctionIsKey;
  const size_t limit = key && !name_key ? kMaxKey : kMaxName;
  // At most one byte past the limit is decoded, so an over-long string is an error at the
  // same input byte however the input was cut, without reading on to its end.
  size_t n = 0;
  const auto st = string_.Feed(rest.substr(0, limit + 1 - std::min(limit, out.size())), n, out);
  if (st == JsonStringDecoder::Status::kError || out.size() > limit) return {n, Status::kError};
  if (st != JsonStringDecoder::Status::kDone) return {n, Status::kNeedMore};
  if (key) return {n, KeyDone() ? Status::kNeedMore : Status::kError};
  if (name_.empty()) return {n, Status::kError};
  has_name_ = true;
  MaybeBegin(sink);
  state_ = State::kAfterValue;
  return {n, Status::kNeedMore};
}

JsonCallObject::Step JsonCallObject::ReadArgs(std::string_view rest, CallSink& sink) {
  size_t n = 0;
  const auto st = args_.Feed(rest, n);
  ArgsBytes(rest.substr(0, n), sink);
  if (st == text::JsonScanner::Status::kError) return {n, Status::kError};
  if (st == text::JsonScanner::Status::kDone) state_ = State::kAfterValue;
  return {n, Status::kNeedMore};
}

// One raw byte at a time (a rare form): an error inside the wrapped object is then found at
// the same raw byte however the input was cut into feeds.
JsonCallObject::Step JsonCallObject::ReadArgsString(std::string_view rest, CallSink& sink) {
  size_t n = 0;
  decoded_.clear();
  const auto st = string_.Feed(rest.substr(0, 1), n, decoded_);
  // The bytes decoded before a bad escape count too, so that whether the call began does
  // not depend on where the feed ended.
  const bool valid = ArgsStringBytes(sink);
  if (st == JsonStringDecoder::Status::kError || !valid) return {n, Status::kError};
  if (st == JsonStringDecoder::Status::kDone) {
    if (!args_.started()) {  // "" or whitespace only: no arguments
      has_args_ = true;
      args_null_ = true;
    } else if (!args_.done()) {
      return {n, Status::kError};
    }
    state_ = State::kAfterValue;
  }
  return {n, Status::kNeedMore};
}

JsonCallObject::Step JsonCallObject::ReadSkipped(std::string_view rest) {
  size_t n = 0;
  const auto st = skip_.Feed(rest, n);
  if (st == text::JsonScanner::Status::kError) return {n, Status::kError};
  if (st == text::JsonScanner::Status::kDone) state_ = State::kAfterValue;
  return {n, Status::kNeedMore};
}

JsonCallObject::Status JsonCallObject::Feed(std::string_view text, size_t& consumed,
                                            CallSink& sink) {
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    Step step{0, Status::kNeedMore};
    switch (state_) {
      case State::kKeyString:
      case State::kName:
        step = ReadString(rest, sink);
        break;
      case State::kArgs:
        step = ReadArgs(rest, sink);
        break;
      case State::kArgsString:
        step = ReadArgsString(rest, sink);
        break;
      case State::kSkipValue:
        step = ReadSkipped(rest);
        break;
      case State::kDone:
        step = {0, Status::kDone};
        break;
      case State::kError:
        step = {0, Status::kError};
        break;
      default:
        step = Punctuation(rest.front(), sink);
        break;
    }
    i += step.n;
    if (step.status != Status::kNeedMore) {
      if (step.status == Status::kError) state_ = State::kError;
      consumed = i;
      return step.status;
    }
  }
  consumed = text.size();
  return Status::kNeedMore;
}

// ---------------------------------------------------------------------------------------------
// ArgsWriter

void ArgsWriter::Key(std::string& out, std::string_view key) {
  out.append(keys_ == 0 ? "{" : ", ");
  text::AppendJsonString(out, key);
  out.append(": ");
  ++keys_;
}

void ArgsWriter::Close(std::string& out) {
  out.append(keys_ == 0 ? "{}" : "}");
}

}  // namespace crux::parse::tools
