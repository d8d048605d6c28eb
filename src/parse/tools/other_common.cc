#include "parse/tools/other_common.h"

#include <string>
#include <utility>
#include <vector>

#include "crux/base/utf8.h"
#include "crux/text/json_scan.h"
#include "crux/text/stream_buffer.h"

namespace crux::parse::tools {
namespace {

constexpr size_t kMaxTokenLength = 64;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsIdentByte(char c) {
  return IsNameStart(c) || IsDigit(c);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char Closer(char opener) {
  return opener == '{' ? '}' : opener == '(' ? ')' : ']';
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// PythonArgs

void PythonArgs::Reset() {
  state_ = State::kArgStart;
  stack_.clear();
  writer_.Reset();
  name_.clear();
  token_.clear();
  quote_ = 0;
  key_ = false;
  pending_comma_ = false;
  hex_left_ = 0;
  code_ = 0;
}

bool PythonArgs::StartValue(char c, std::string& out) {
  const bool expect_key = !stack_.empty() && stack_.back() == '{' && key_;
  if (pending_comma_) {
    out.append(", ");
    pending_comma_ = false;
  }
  if (c == '\'' || c == '"') {
    quote_ = c;
    out.push_back('"');
    state_ = State::kString;
    return true;
  }
  const bool number_start = IsDigit(c) || c == '-' || c == '+' || c == '.';
  if (expect_key) {  // dict keys: strings or numbers
    if (!number_start) return false;
    token_.assign(1, c);
    state_ = State::kToken;
    return true;
  }
  if (c == '[' || c == '(' || c == '{') {
    stack_.push_back(c);
    out.push_back(c == '{' ? '{' : '[');
    key_ = c == '{';
    state_ = State::kValue;
    return true;
  }
  if (number_start || IsNameStart(c)) {
    token_.assign(1, c);
    state_ = State::kToken;
    return true;
  }
  return false;
}

bool PythonArgs::EndToken(std::string& out) {
  const bool is_key = !stack_.empty() && stack_.back() == '{' && key_;
  if (IsNameStart(token_[0])) {
    if (is_key) return false;
    if (token_ == "True" || token_ == "true") {
      out.append("true");
    } else if (token_ == "False" || token_ == "false") {
      out.append("false");
    } else if (token_ == "None" || token_ == "null") {
      out.append("null");
    } else {
      return false;  // a name: not a literal
    }
  } else {
    const std::optional<std::string> json = PythonLiteralToJson(token_);
    if (!json || json->empty() || !(IsDigit((*json)[0]) || (*json)[0] == '-')) return false;
    if (is_key) out.push_back('"');
    out.append(*json);
    if (is_key) out.push_back('"');
  }
  token_.clear();
  ValueEnded();
  return true;
}

void PythonArgs::ValueEnded() {
  if (!stack_.empty() && stack_.back() == '{' && key_) {
    state_ = State::kDictColon;
  } else {
    state_ = State::kAfterValue;
  }
}

bool PythonArgs::CloseContainer(char c, std::string& out) {
  if (stack_.empty() || Closer(stack_.back()) != c) return false;
  out.push_back(stack_.back() == '{' ? '}' : ']');
  stack_.pop_back();
  pending_comma_ = false;
  key_ = false;  // the closed container is a value of its parent, never a key
  state_ = State::kAfterValue;
  return true;
}

PythonArgs::Status PythonArgs::FeedCall(std::string_view text, size_t& consumed,
                                        std::string_view name, bool begun, CallSink& sink) {
  written_.clear();
  const Status status = Feed(text, consumed, written_);
  if (!written_.empty()) {
    if (!begun) sink.BeginCall(name);
    sink.Args(written_);
  }
  return status;
}

PythonArgs::Status PythonArgs::Feed(std::string_view text, size_t& consumed, std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    const std::string_view rest = text.substr(i);
    size_t n = 0;
    switch (state_) {
      case State::kArgStart:
      case State::kArgName:
      case State::kArgEquals:
        n = ArgStep(rest[0], out);
        break;
      case State::kValue:
        n = ValueStep(rest[0], out);
        break;
      case State::kString:
        n = StringStep(rest, out);
        break;
      case State::kEscape:
        n = EscapeStep(rest[0], out);
        break;
      case State::kHex:
        n = HexStep(rest[0], out);
        break;
      case State::kToken:
        n = TokenStep(rest[0], out);
        break;
      case State::kAfterValue:
      case State::kDictColon:
        n = AfterValueStep(rest[0], out);
        break;
      case State::kDone:
      case State::kError:
        break;
    }
    if (state_ == State::kDone) {
      consumed = i + n;
      return Status::kDone;
    }
    if (state_ == State::kError) {
      consumed = i;
      return Status::kError;
    }
    i += n;
  }
  consumed = text.size();
  return Status::kNeedMore;
}

size_t PythonArgs::Fail() {
  state_ = State::kError;
  return 0;
}

size_t PythonArgs::ArgStep(char c, std::string& out) {
  switch (state_) {
    case State::kArgStart:
      if (c == ')') {
        writer_.Close(out);
        state_ = State::kDone;
        return 1;
      }
      if (text::IsSpace(c)) return 1;
      if (!IsNameStart(c)) return Fail();
      name_.assign(1, c);
      state_ = State::kArgName;
      return 1;
    case State::kArgName:
      if (IsIdentByte(c)) {
        if (name_.size() >= kMaxNameLength) return Fail();
        name_.push_back(c);
        return 1;
      }
      state_ = State::kArgEquals;
      return 0;  // the same byte, in the next state
    default:     // kArgEquals
      if (text::IsSpace(c)) return 1;
      if (c != '=') return Fail();  // a positional argument or an expression
      writer_.Key(out, name_);
      state_ = State::kValue;
      return 1;
  }
}

size_t PythonArgs::ValueStep(char c, std::string& out) {
  if (text::IsSpace(c)) return 1;
  if ((c == ']' || c == ')' || c == '}') && !stack_.empty() &&
      (stack_.back() != '{' || key_)) {  // an empty container or a trailing comma
    return CloseContainer(c, out) ? 1 : Fail();
  }
  return StartValue(c, out) ? 1 : Fail();
}

size_t PythonArgs::StringStep(std::string_view rest, std::string& out) {
  const char c = rest[0];
  if (c == quote_) {
    out.push_back('"');
    ValueEnded();
    return 1;
  }
  if (c == '\\') {
    state_ = State::kEscape;
    return 1;
  }
  size_t j = 0;
  while (j < rest.size() && rest[j] != quote_ && rest[j] != '\\')
    ++j;
  text::AppendJsonEscaped(out, rest.substr(0, j));
  return j;
}

size_t PythonArgs::EscapeStep(char c, std::string& out) {
  state_ = State::kString;
  char decoded = 0;
  switch (c) {
    case 'n':
      decoded = '\n';
      break;
    case 't':
      decoded = '\t';
      break;
    case 'r':
      decoded = '\r';
      break;
    case 'a':
      decoded = '\a';
      break;
    case 'b':
      decoded = '\b';
      break;
    case 'f':
      decoded = '\f';
      break;
    case 'v':
      decoded = '\v';
      break;
    case '0':
      decoded = '\0';
      break;
    case '\\':
    case '\'':
    case '"':
      decoded = c;
      break;
    case '\n':
      return 1;  // line continuation
    case 'x':
      hex_left_ = 2;
      break;
    case 'u':
      hex_left_ = 4;
      break;
    case 'U':
      hex_left_ = 8;
      break;
    default:  // Python keeps unknown escapes as written: the byte is read again as text
      out.append("\\\\");
      return 0;
  }
  if (hex_left_ > 0) {
    code_ = 0;
    state_ = State::kHex;
  } else {
    text::AppendJsonEscaped(out, std::string_view(&decoded, 1));
  }
  return 1;
}

size_t PythonArgs::HexStep(char c, std::string& out) {
  const int digit = HexValue(c);
  if (digit < 0) return Fail();
  code_ = code_ * 16 + static_cast<char32_t>(digit);
  if (--hex_left_ == 0) {
    std::string encoded;
    utf8::AppendCodePoint(encoded, code_ > 0x10FFFF ? 0xFFFD : code_);
    text::AppendJsonEscaped(out, encoded);
    state_ = State::kString;
  }
  return 1;
}

size_t PythonArgs::TokenStep(char c, std::string& out) {
  const char last = token_.back();
  const bool exponent_sign =
      (c == '+' || c == '-') && (last == 'e' || last == 'E') && !IsNameStart(token_[0]);
  if (IsIdentByte(c) || c == '.' || exponent_sign) {
    if (token_.size() >= kMaxTokenLength) return Fail();
    token_.push_back(c);
    return 1;
  }
  return EndToken(out) ? 0 : Fail();  // the delimiter is read again in the next state
}

size_t PythonArgs::AfterValueStep(char c, std::string& out) {
  if (text::IsSpace(c)) return 1;
  if (state_ == State::kDictColon) {
    if (c != ':') return Fail();
    out.append(": ");
    key_ = false;
    state_ = State::kValue;
    return 1;
  }
  if (c == ',') {
    if (stack_.empty()) {
      state_ = State::kArgStart;
    } else {
      pending_comma_ = true;
      key_ = stack_.back() == '{';
      state_ = State::kValue;
    }
    return 1;
  }
  if (!stack_.empty()) return CloseContainer(c, out) ? 1 : Fail();
  if (c != ')') return Fail();
  writer_.Close(out);
  state_ = State::kDone;
  return 1;
}

// ---------------------------------------------------------------------------------------------
// JsonKeyTracker

void JsonKeyTracker::Reset() {
  depth_ = 0;
  keys_ = 0;
  in_string_ = false;
  escape_ = false;
  key_string_ = false;
  expect_key_ = false;
  no_key_ = false;
  has_args_ = false;
  key_.clear();
  first_key_.clear();
}

void JsonKeyTracker::Feed(std::string_view bytes) {
  constexpr size_t kKeep = 16;
  for (const char c : bytes) {
    if (in_string_) {
      if (escape_) {
        escape_ = false;
      } else if (c == '\\') {
        escape_ = true;
      } else if (c == '"') {
        in_string_ = false;
        if (key_string_) {
          if (key_ == "parameters" || key_ == "arguments") has_args_ = true;
          ++keys_;
          key_string_ = false;
        }
        continue;
      }
      if (key_string_ && key_.size() < kKeep) {
        key_.push_back(c);
        if (keys_ == 0) first_key_ = key_;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string_ = true;
        key_string_ = depth_ == 1 && expect_key_;
        if (key_string_) key_.clear();
        expect_key_ = false;
        break;
      case '{':
        ++depth_;
        if (depth_ == 1) expect_key_ = true;
        break;
      case '[':
        ++depth_;
        break;
      case '}':
      case ']':
        if (depth_ == 1 && expect_key_ && keys_ == 0) no_key_ = true;
        --depth_;
        break;
      case ',':
        if (depth_ == 1) expect_key_ = true;
        break;
      default:
        if (depth_ == 1 && expect_key_ && keys_ == 0 && !text::IsSpace(c)) no_key_ = true;
        break;
    }
  }
}

bool CanStartEnvelope(std::string_view first_key, bool complete) {
  for (const std::string_view key : {std::string_view("name"), std::string_view("type")}) {
    if (complete ? first_key == key : key.substr(0, first_key.size()) == first_key) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// PythonListParser

int CallListAt(std::string_view rest, bool at_end) {
  size_t i = 1;  // after '['
  while (i < rest.size() && text::IsSpace(rest[i]) && i < 64)
    ++i;
  if (i < rest.size() && !IsNameStart(rest[i])) return -1;
  const size_t start = i;
  while (i < rest.size() && IsNameByte(rest[i]) && i - start < kMaxNameLength)
    ++i;
  if (i == rest.size()) return at_end ? -1 : 0;
  return rest[i] == '(' && i > start ? 1 : -1;
}

namespace {

// Runs a PythonListFormat: outside a block, the block's start (and the wrappers to drop); in
// it, the list's items; after it, the end marker; after a malformed item, the rest of the block.
class PythonListParser final : public ToolParserCore {
 public:
  PythonListParser(const ToolParserOptions& options, const PythonListFormat& format)
      : ToolParserCore(options), format_(format), syntax_(format.syntax()) {}

 private:
  enum class State : uint8_t { kOutside, kListStart, kList, kAfterList, kDiscard };
  enum class ListStatus : uint8_t {
    kInList,  // more list bytes expected
    kEnded,   // the list ended (after its ']', or unbracketed, before the next non-',' byte)
    kFailed,  // a malformed item; its region is open, holding its raw text
  };
  enum class Item : uint8_t { kStart, kName, kPython, kJson, kAfter };

  void OnReset() override { state_ = State::kOutside; }
  size_t Process(std::string_view text, bool at_end) override;
  size_t Outside(std::string_view rest, bool at_end);
  size_t ListStart(std::string_view rest);
  size_t InList(std::string_view rest);
  size_t AfterList(std::string_view rest, bool at_end);
  size_t Discard(std::string_view rest, bool at_end);

  // The list, from just after its opening.
  void StartList(bool bracketed);
  size_t ListStep(std::string_view rest, ListStatus& status);
  size_t ItemStart(std::string_view rest, ListStatus& status);
  size_t AfterItem(std::string_view rest, ListStatus& status);
  size_t NameStep(std::string_view rest, ListStatus& status);
  size_t PythonStep(std::string_view rest, ListStatus& status);
  size_t JsonStep(std::string_view rest, ListStatus& status);
  size_t Fail(ListStatus& status);
  void ItemDone();

  const PythonListFormat& format_;
  const PythonListSyntax& syntax_;
  State state_ = State::kOutside;
  Item item_ = Item::kStart;
  bool bracketed_ = true;
  std::string name_;
  std::string pending_;  // separators after an item
  PythonArgs python_;
  JsonCallObject envelope_;
};

size_t PythonListParser::Process(std::string_view text, bool at_end) {
  return RunSteps(text, [&](std::string_view rest) {
    switch (state_) {
      case State::kOutside:
        return Outside(rest, at_end);
      case State::kListStart:
        return ListStart(rest);
      case State::kList:
        return InList(rest);
      case State::kAfterList:
        return AfterList(rest, at_end);
      case State::kDiscard:
        return Discard(rest, at_end);
    }
    return kHold;
  });
}

size_t PythonListParser::Outside(std::string_view rest, bool at_end) {
  const text::ScanResult hit = format_.outside().Scan(rest, at_end);
  Content(rest.substr(0, hit.pos));
  if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
  if (hit.id != 0) return hit.pos + hit.length;  // a wrapper, dropped
  if (!syntax_.open.empty()) {
    OpenRegion(syntax_.open);
    state_ = State::kListStart;
    return hit.pos + hit.length;
  }
  const int list = CallListAt(rest.substr(hit.pos), at_end);
  if (list == 0) return hit.pos == 0 ? kHold : hit.pos;
  if (list < 0) {
    Content("[");
    return hit.pos + 1;
  }
  OpenRegion("[");
  StartList(/*bracketed=*/true);
  return hit.pos + 1;
}

// After the start marker: whitespace, then the list ('[' or, where optional, its first item).
size_t PythonListParser::ListStart(std::string_view rest) {
  if (text::IsSpace(rest[0])) {
    Capture(rest.substr(0, 1));
    return 1;
  }
  const bool bracketed = rest[0] == '[';
  if (!bracketed && !syntax_.optional_brackets) {
    state_ = State::kDiscard;
    return 0;
  }
  if (bracketed) Capture("[");
  StartList(bracketed);
  return bracketed ? 1 : 0;
}

size_t PythonListParser::InList(std::string_view rest) {
  ListStatus status = ListStatus::kInList;
  const size_t n = ListStep(rest, status);
  const bool has_close = !syntax_.open.empty();
  if (status == ListStatus::kFailed) {
    if (!has_close) CancelRegion();
    state_ = has_close ? State::kDiscard : State::kOutside;
  }
  if (status == ListStatus::kEnded) state_ = has_close ? State::kAfterList : State::kOutside;
  return n;
}

// After the list: whitespace, then the end marker; anything else is content.
size_t PythonListParser::AfterList(std::string_view rest, bool at_end) {
  if (text::IsSpace(rest[0])) return 1;
  const text::ScanResult hit = format_.close().Scan(rest, at_end);
  if (hit.pos == 0 && hit.status == text::ScanStatus::kPartial) return kHold;
  state_ = State::kOutside;
  if (region_open()) CloseRegion();
  return hit.pos == 0 && hit.status == text::ScanStatus::kFound ? hit.length : 0;
}

// A malformed call: captured up to the end marker, then returned as content.
size_t PythonListParser::Discard(std::string_view rest, bool at_end) {
  const text::ScanResult hit = format_.close().Scan(rest, at_end);
  Capture(rest.substr(0, hit.pos));
  if (hit.status != text::ScanStatus::kFound) return hit.pos == 0 ? kHold : hit.pos;
  Capture(syntax_.close);
  CancelRegion();
  state_ = State::kOutside;
  return hit.pos + hit.length;
}

void PythonListParser::StartList(bool bracketed) {
  state_ = State::kList;
  item_ = Item::kStart;
  bracketed_ = bracketed;
  name_.clear();
  pending_.clear();
}

size_t PythonListParser::Fail(ListStatus& status) {
  if (!region_open()) OpenRegion(pending_);
  pending_.clear();
  status = ListStatus::kFailed;
  return 0;
}

void PythonListParser::ItemDone() {
  EndCall();
  CloseRegion();
  pending_.clear();
  item_ = Item::kAfter;
}

size_t PythonListParser::ItemStart(std::string_view rest, ListStatus& status) {
  const char c = rest[0];
  if (text::IsSpace(c)) {
    if (region_open()) {
      Capture(rest.substr(0, 1));
    } else {
      pending_.push_back(c);
    }
    return 1;
  }
  if (c == ']' && bracketed_) {  // an empty list or a trailing comma
    if (region_open()) CloseRegion();
    pending_.clear();
    status = ListStatus::kEnded;
    return 1;
  }
  if (!IsNameStart(c) && !(c == '{' && syntax_.json_items)) return Fail(status);
  if (!region_open()) OpenRegion(pending_);
  pending_.clear();
  if (c == '{') {
    envelope_.Reset();
    item_ = Item::kJson;
  } else {
    name_.clear();
    item_ = Item::kName;
  }
  return 0;
}

size_t PythonListParser::AfterItem(std::string_view rest, ListStatus& status) {
  const char c = rest[0];
  if (text::IsSpace(c)) {
    pending_.push_back(c);
    return 1;
  }
  if (c == ',') {
    pending_.push_back(c);
    item_ = Item::kStart;
    return 1;
  }
  if (c == ']' && bracketed_) {
    pending_.clear();
    status = ListStatus::kEnded;
    return 1;
  }
  const bool item = IsNameStart(c) || (c == '{' && syntax_.json_items);
  if (syntax_.line_items && item && pending_.find('\n') != std::string::npos) {
    item_ = Item::kStart;  // the next item, on a line of its own; the newline is its separator
    return 0;
  }
  if (bracketed_) return Fail(status);
  Content(pending_);
  pending_.clear();
  status = ListStatus::kEnded;
  return 0;
}

size_t PythonListParser::NameStep(std::string_view rest, ListStatus& status) {
  size_t i = 0;
  while (i < rest.size() && IsNameByte(rest[i]) && name_.size() + i < kMaxNameLength)
    ++i;
  name_.append(rest.substr(0, i));
  Capture(rest.substr(0, i));
  if (i == rest.size()) return i;
  if (rest[i] != '(') return i + Fail(status);
  Capture(rest.substr(i, 1));
  python_.Reset();
  item_ = Item::kPython;
  return i + 1;
}

size_t PythonListParser::PythonStep(std::string_view rest, ListStatus& status) {
  size_t n = 0;
  const PythonArgs::Status st = python_.FeedCall(rest, n, name_, call_begun(), *this);
  Capture(rest.substr(0, n));
  if (st == PythonArgs::Status::kError) return n + Fail(status);
  if (st == PythonArgs::Status::kDone) ItemDone();
  return n;
}

size_t PythonListParser::JsonStep(std::string_view rest, ListStatus& status) {
  size_t n = 0;
  const JsonCallObject::Status st = envelope_.Feed(rest, n, *this);
  Capture(rest.substr(0, n));
  if (st == JsonCallObject::Status::kError) return n + Fail(status);
  if (st == JsonCallObject::Status::kDone) {
    CloseRegion();
    pending_.clear();
    item_ = Item::kAfter;
  }
  return n;
}

size_t PythonListParser::ListStep(std::string_view rest, ListStatus& status) {
  status = ListStatus::kInList;
  switch (item_) {
    case Item::kStart:
      return ItemStart(rest, status);
    case Item::kAfter:
      return AfterItem(rest, status);
    case Item::kName:
      return NameStep(rest, status);
    case Item::kPython:
      return PythonStep(rest, status);
    case Item::kJson:
      return JsonStep(rest, status);
  }
  return 0;
}

}  // namespace

namespace {

// The block's start (a bare '[' when `open` is empty) is id 0; the wrappers follow.
text::MarkerSet OutsideMarkers(const PythonListSyntax& syntax) {
  std::vector<std::string> markers{std::string(syntax.open.empty() ? "[" : syntax.open)};
  for (const std::string_view drop : syntax.drop)
    markers.emplace_back(drop);
  return text::MarkerSet(markers);
}

}  // namespace

PythonListFormat::PythonListFormat(PythonListSyntax syntax)
    : syntax_(std::move(syntax)),
      outside_(OutsideMarkers(syntax_)),
      close_(syntax_.close.empty() ? text::MarkerSet() : text::MarkerSet{syntax_.close}) {}

std::unique_ptr<ToolParser> MakePythonListParser(const ToolParserOptions& options,
                                                 const PythonListFormat& format) {
  return std::make_unique<PythonListParser>(options, format);
}

// ---------------------------------------------------------------------------------------------
// Rendering

}  // namespace crux::parse::tools
