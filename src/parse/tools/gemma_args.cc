#include "parse/tools/gemma_args.h"

#include "parse/tools/other_common.h"

namespace crux::parse::tools {
namespace {

constexpr size_t kMaxBare = 4096;  // longest bare value

}  // namespace

GemmaArgs::Status GemmaArgs::Feed(std::string_view text, bool at_end, size_t& consumed,
                                  std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    const bool space = text::IsSpace(rest[0]);
    size_t n = 0;
    switch (state_) {
      case State::kKey:
        n = space ? 1 : KeyStart(rest, at_end, out);
        break;
      case State::kValue:
        n = space ? 1 : ValueStart(rest, at_end, out);
        break;
      case State::kKeyBare:
        n = KeyBareStep(rest[0], out);
        break;
      case State::kKeyQuoted:
      case State::kQuoted:
        n = QuotedStep(rest, at_end, out);
        break;
      case State::kKeyJson:
      case State::kJsonString:
        n = JsonStringStep(rest, out);
        break;
      case State::kBare:
        n = BareStep(rest[0], out);
        break;
      case State::kOpen:
      case State::kColon:
      case State::kAfterValue:
        n = space ? 1 : PunctuationStep(rest[0], out);
        break;
      case State::kDone:
      case State::kError:
        break;
    }
    if (n == kWait) {
      consumed = i;
      return Status::kNeedMore;
    }
    if (state_ == State::kDone) {
      consumed = i + n;
      return Status::kDone;
    }
    if (state_ == State::kError) {
      consumed = i + n;
      return Status::kError;
    }
    i += n;
  }
  consumed = text.size();
  return Status::kNeedMore;
}

size_t GemmaArgs::KeyStart(std::string_view rest, bool at_end, std::string& out) {
  const char c = rest[0];
  if (c == '}') return Close(c, out) ? 1 : Fail();  // an empty dict or a trailing comma
  const int quote = QuoteAt(rest, at_end);
  if (quote == 0) return kWait;
  Comma(out);
  if (quote == 1) {
    state_ = State::kKeyQuoted;
    return quote_->marker(0).size();
  }
  if (c == '"') {
    string_.Reset();
    key_raw_ = 0;
    state_ = State::kKeyJson;
    return 1;
  }
  if (c == '{' || c == '[' || c == ']' || c == ',' || c == ':') return Fail();
  key_.assign(1, c);
  state_ = State::kKeyBare;
  return 1;
}

size_t GemmaArgs::ValueStart(std::string_view rest, bool at_end, std::string& out) {
  const char c = rest[0];
  if (c == ']' && !stack_.empty() && stack_.back() == '[') {  // empty list or trailing comma
    return Close(c, out) ? 1 : Fail();
  }
  const int quote = QuoteAt(rest, at_end);
  if (quote == 0) return kWait;
  Comma(out);
  if (quote == 1) {
    out.push_back('"');
    state_ = State::kQuoted;
    return quote_->marker(0).size();
  }
  if (c == '"') {
    out.push_back('"');
    string_.Reset();
    state_ = State::kJsonString;
    return 1;
  }
  if (c == '{' || c == '[') {
    stack_.push_back(c);
    out.push_back(c);
    state_ = c == '{' ? State::kKey : State::kValue;
    return 1;
  }
  if (c == '}' || c == ']' || c == ',' || c == ':') return Fail();
  bare_.assign(1, c);
  state_ = State::kBare;
  return 1;
}

size_t GemmaArgs::KeyBareStep(char c, std::string& out) {
  if (c == ':') {
    WriteKey(out);
    state_ = State::kValue;
    return 1;
  }
  if (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == '"' ||
      key_.size() >= kMaxNameLength) {
    return Fail();
  }
  key_.push_back(c);
  return 1;
}

// Inside a quoted string (a value, streamed, or a key, collected).
size_t GemmaArgs::QuotedStep(std::string_view rest, bool at_end, std::string& out) {
  const text::ScanResult hit = quote_->Scan(rest, at_end);
  const std::string_view part = rest.substr(0, hit.pos);
  if (state_ == State::kQuoted) {
    text::AppendJsonEscaped(out, part);
  } else {
    if (key_.size() + part.size() > kMaxNameLength) {  // fails at the same byte however cut
      const size_t room = kMaxNameLength - key_.size();
      key_.append(part.substr(0, room));
      Fail();
      return room;
    }
    key_.append(part);
  }
  if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kWait : hit.pos;
  if (state_ == State::kQuoted) {
    out.push_back('"');
    state_ = State::kAfterValue;
  } else {
    state_ = State::kColon;
  }
  return hit.pos + hit.length;
}

// Errors (and a key's length limit, counted in input bytes) fall on the same byte however the
// text is cut: a key string is fed at most its remaining budget.
size_t GemmaArgs::JsonStringStep(std::string_view rest, std::string& out) {
  const bool key = state_ == State::kKeyJson;
  if (key && key_raw_ >= kMaxNameLength) return Fail();
  size_t n = 0;
  decoded_.clear();
  const auto status =
      string_.Feed(key ? rest.substr(0, kMaxNameLength - key_raw_) : rest, n, decoded_);
  if (status == JsonStringDecoder::Status::kError) {
    Fail();
    return n;
  }
  if (key) {
    key_raw_ += n;
    key_.append(decoded_);
  } else {
    text::AppendJsonEscaped(out, decoded_);
  }
  if (status == JsonStringDecoder::Status::kDone) {
    if (state_ == State::kJsonString) {
      out.push_back('"');
      state_ = State::kAfterValue;
    } else {
      state_ = State::kColon;
    }
  }
  return n;
}

// A bare value runs to the next ',', '}' or ']' of its container.
size_t GemmaArgs::BareStep(char c, std::string& out) {
  if (c == ',' || c == '}' || c == ']') {
    WriteBare(out);
    state_ = State::kAfterValue;
    return 0;
  }
  if (bare_.size() >= kMaxBare) return Fail();
  bare_.push_back(c);
  return 1;
}

// The single bytes between tokens: the opening '{', a key's ':', ',' and closers.
size_t GemmaArgs::PunctuationStep(char c, std::string& out) {
  if (state_ == State::kOpen) {
    if (c != '{') return Fail();
    stack_.push_back('{');
    out.push_back('{');
    state_ = State::kKey;
    return 1;
  }
  if (state_ == State::kColon) {
    if (c != ':') return Fail();
    WriteKey(out);
    state_ = State::kValue;
    return 1;
  }
  if (c == ',') {
    pending_comma_ = true;
    state_ = stack_.back() == '{' ? State::kKey : State::kValue;
    return 1;
  }
  return Close(c, out) ? 1 : Fail();
}

void GemmaArgs::WriteKey(std::string& out) {
  text::AppendJsonString(out, text::Trim(key_));
  out.append(": ");
  key_.clear();
}

// A bare value: a number or literal as it is, anything else as a string.
void GemmaArgs::WriteBare(std::string& out) {
  const std::string_view value = text::Trim(bare_);
  const bool literal = value == "true" || value == "false" || value == "null";
  const bool number = !value.empty() && (value[0] == '-' || (value[0] >= '0' && value[0] <= '9')) &&
                      IsJsonValue(value);
  if (literal || number) {
    out.append(value);
  } else {
    text::AppendJsonString(out, value);
  }
  bare_.clear();
}

}  // namespace crux::parse::tools
