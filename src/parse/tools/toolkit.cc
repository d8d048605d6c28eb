#include "parse/tools/toolkit.h"

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

JsonStringDecoder::Status JsonStringDecoder::Feed(std::string_view text, size_t& consumed,
                                                  std::string& out) {
  auto flush_high = [&] {
    if (high_surrogate_ != 0) {
      utf8::AppendCodePoint(out, 0xFFFD);
      high_surrogate_ = 0;
    }
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (state_) {
      case State::kPlain: {
        if (c == '"') {
          flush_high();
          consumed = i + 1;
          return Status::kDone;
        }
        if (c == '\\') {
          state_ = State::kEscape;
          break;
        }
        if (static_cast<unsigned char>(c) < 0x20) {
          consumed = i;
          return Status::kError;
        }
        flush_high();
        size_t j = i;  // copy a run of plain bytes at once
        while (j < text.size() && text[j] != '"' && text[j] != '\\' &&
               static_cast<unsigned char>(text[j]) >= 0x20) {
          ++j;
        }
        out.append(text.substr(i, j - i));
        i = j - 1;
        break;
      }
      case State::kEscape: {
        char decoded = 0;
        switch (c) {
          case '"':
            decoded = '"';
            break;
          case '\\':
            decoded = '\\';
            break;
          case '/':
            decoded = '/';
            break;
          case 'b':
            decoded = '\b';
            break;
          case 'f':
            decoded = '\f';
            break;
          case 'n':
            decoded = '\n';
            break;
          case 'r':
            decoded = '\r';
            break;
          case 't':
            decoded = '\t';
            break;
          case 'u':
            state_ = State::kUnicode;
            hex_left_ = 4;
            code_ = 0;
            continue;
          default:
            consumed = i;
            return Status::kError;
        }
        flush_high();
        out.push_back(decoded);
        state_ = State::kPlain;
        break;
      }
      case State::kUnicode: {
        int digit = -1;
        if (c >= '0' && c <= '9')
          digit = c - '0';
        else if (c >= 'a' && c <= 'f')
          digit = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
          digit = c - 'A' + 10;
        if (digit < 0) {
          consumed = i;
          return Status::kError;
        }
        code_ = code_ * 16 + static_cast<char32_t>(digit);
        if (--hex_left_ > 0) break;
        state_ = State::kPlain;
        if (code_ >= 0xD800 && code_ <= 0xDBFF) {
          flush_high();
          high_surrogate_ = code_;
        } else if (code_ >= 0xDC00 && code_ <= 0xDFFF && high_surrogate_ != 0) {
          utf8::AppendCodePoint(out,
                                0x10000 + ((high_surrogate_ - 0xD800) << 10) + (code_ - 0xDC00));
          high_surrogate_ = 0;
        } else {
          flush_high();
          utf8::AppendCodePoint(out, code_);
        }
        break;
      }
    }
  }
  consumed = text.size();
  return Status::kNeedMore;
}

// ---------------------------------------------------------------------------------------------
// JsonEnvelope

namespace {
bool IsJsonSpace(char c) {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}
constexpr size_t kMaxKey = 64;    // longer keys are not an envelope's
constexpr size_t kMaxName = 256;  // longer names are not a tool's
}  // namespace

void JsonEnvelope::Reset() {
  state_ = State::kStart;
  key_kind_ = KeyKind::kOther;
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

JsonEnvelope::Status JsonEnvelope::Fail() {
  state_ = State::kError;
  return Status::kError;
}

void JsonEnvelope::MaybeBegin(CallSink& sink) {
  if (begun_ || !has_name_ || !has_args_ || args_null_) return;
  sink.BeginCall(name_);
  begun_ = true;
  if (!pending_args_.empty()) {
    sink.Args(pending_args_);
    pending_args_.clear();
  }
}

bool JsonEnvelope::ArgsBytes(std::string_view bytes, CallSink& sink) {
  if (bytes.empty()) return true;
  if (begun_) {
    sink.Args(bytes);
  } else {
    pending_args_.append(bytes);
  }
  return true;
}

JsonEnvelope::Status JsonEnvelope::Feed(std::string_view text, size_t& consumed, CallSink& sink) {
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    const char c = text[i];
    switch (state_) {
      case State::kStart:
        if (IsJsonSpace(c)) break;
        if (c != '{') {
          consumed = i;
          return Fail();
        }
        state_ = State::kKeyOrEnd;
        break;
      case State::kKeyOrEnd:
      case State::kKey:
        if (IsJsonSpace(c)) break;
        if (c == '}' && state_ == State::kKeyOrEnd) {
          consumed = i;
          return Fail();  // {} has no name
        }
        if (c != '"') {
          consumed = i;
          return Fail();
        }
        key_.clear();
        string_.Reset();
        state_ = State::kKeyString;
        break;
      case State::kKeyString: {
        // Feed at most one byte past the length limit, so the error lands on the same byte
        // however the text was cut.
        size_t n = 0;
        const auto st =
            string_.Feed(rest.substr(0, kMaxKey + 1 - std::min(kMaxKey, key_.size())), n, key_);
        if (st == JsonStringDecoder::Status::kError || key_.size() > kMaxKey) {
          consumed = i + n;
          return Fail();
        }
        i += n;
        if (st == JsonStringDecoder::Status::kDone) {
          if (key_ == "name") {
            key_kind_ = has_name_ ? KeyKind::kOther : KeyKind::kName;
          } else if (key_ == "arguments" || key_ == "parameters") {
            if (has_args_) {
              consumed = i;
              return Fail();  // two argument keys
            }
            key_kind_ = KeyKind::kArgs;
          } else {
            key_kind_ = KeyKind::kOther;
          }
          state_ = State::kColon;
        }
        continue;
      }
      case State::kColon:
        if (IsJsonSpace(c)) break;
        if (c != ':') {
          consumed = i;
          return Fail();
        }
        state_ = State::kValue;
        break;
      case State::kValue:
        if (IsJsonSpace(c)) break;
        if (key_kind_ == KeyKind::kName) {
          if (c != '"') {
            consumed = i;
            return Fail();
          }
          string_.Reset();
          name_.clear();
          state_ = State::kName;
          break;
        }
        if (key_kind_ == KeyKind::kArgs) {
          args_.Reset();
          if (c == '{') {
            has_args_ = true;
            state_ = State::kArgs;
            MaybeBegin(sink);
            continue;  // the scanner reads the brace
          }
          if (c == '"') {
            string_.Reset();
            state_ = State::kArgsString;
            break;
          }
          if (c == 'n') {  // null: no arguments
            skip_.Reset();
            has_args_ = true;
            args_null_ = true;
            state_ = State::kSkipValue;
            continue;
          }
          consumed = i;
          return Fail();  // arguments must be an object
        }
        skip_.Reset();
        state_ = State::kSkipValue;
        continue;
      case State::kName: {
        size_t n = 0;
        const auto st =
            string_.Feed(rest.substr(0, kMaxName + 1 - std::min(kMaxName, name_.size())), n, name_);
        i += n;
        if (st == JsonStringDecoder::Status::kError || name_.size() > kMaxName) {
          consumed = i;
          return Fail();
        }
        if (st == JsonStringDecoder::Status::kDone) {
          if (name_.empty()) {
            consumed = i;
            return Fail();
          }
          has_name_ = true;
          MaybeBegin(sink);
          state_ = State::kAfterValue;
        }
        continue;
      }
      case State::kArgs: {
        size_t n = 0;
        const auto st = args_.Feed(rest, n);
        ArgsBytes(rest.substr(0, n), sink);
        i += n;
        if (st == text::JsonScanner::Status::kError) {
          consumed = i;
          return Fail();
        }
        if (st == text::JsonScanner::Status::kDone) state_ = State::kAfterValue;
        continue;
      }
      case State::kArgsString: {
        // One input byte at a time: the inner JSON's errors then land on the same input byte
        // however the text was cut (this form is rare, so the constant factor does not matter).
        size_t n = 0;
        decoded_.clear();
        const auto st = string_.Feed(rest.substr(0, 1), n, decoded_);
        i += n;
        if (st == JsonStringDecoder::Status::kError) {
          consumed = i;
          return Fail();
        }
        if (!decoded_.empty()) {
          size_t m = 0;
          const auto inner = args_.Feed(decoded_, m);
          if (inner == text::JsonScanner::Status::kError ||
              (args_.started() && args_.first_byte() != '{')) {
            consumed = i;
            return Fail();
          }
          if (args_.first_byte() == '{' && !has_args_) {
            has_args_ = true;
            MaybeBegin(sink);
          }
          ArgsBytes(std::string_view(decoded_).substr(0, m), sink);
          // After the inner object, only whitespace may remain in the string.
          for (size_t k = m; k < decoded_.size(); ++k) {
            if (!IsJsonSpace(decoded_[k])) {
              consumed = i;
              return Fail();
            }
          }
        }
        if (st == JsonStringDecoder::Status::kDone) {
          if (!args_.done()) {
            consumed = i;
            return Fail();
          }
          state_ = State::kAfterValue;
        }
        continue;
      }
      case State::kSkipValue: {
        size_t n = 0;
        const auto st = skip_.Feed(rest, n);
        i += n;
        if (st == text::JsonScanner::Status::kError) {
          consumed = i;
          return Fail();
        }
        if (st == text::JsonScanner::Status::kDone) {
          if (args_null_ && key_kind_ == KeyKind::kArgs && skip_.first_byte() != 'n') {
            consumed = i;
            return Fail();
          }
          state_ = State::kAfterValue;
        }
        continue;
      }
      case State::kAfterValue:
        if (IsJsonSpace(c)) break;
        if (c == ',') {
          state_ = State::kKey;
          break;
        }
        if (c != '}') {
          consumed = i;
          return Fail();
        }
        if (!has_name_) {
          consumed = i;
          return Fail();
        }
        if (!begun_) {
          sink.BeginCall(name_);
          begun_ = true;
          if (!pending_args_.empty()) sink.Args(pending_args_);
          pending_args_.clear();
        }
        if (!has_args_ || args_null_) sink.Args("{}");
        sink.EndCall();
        state_ = State::kDone;
        consumed = i + 1;
        return Status::kDone;
      case State::kDone:
        consumed = i;
        return Status::kDone;
      case State::kError:
        consumed = i;
        return Status::kError;
    }
    ++i;
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
