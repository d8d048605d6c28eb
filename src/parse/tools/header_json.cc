#include "parse/tools/header_json.h"

#include <string>
#include <utility>

#include "parse/tools/tokens_common.h"

namespace crux::parse::tools {
namespace {

std::vector<std::string> Strings(std::initializer_list<std::vector<std::string_view>> lists) {
  std::vector<std::string> out;
  for (const auto& list : lists) {
    for (std::string_view s : list)
      out.emplace_back(s);
  }
  return out;
}

std::vector<std::string_view> FieldEnds(const HeaderJsonSyntax& s) {
  std::vector<std::string_view> ends;
  for (const HeaderField& f : s.fields)
    ends.push_back(f.end);
  return ends;
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

 private:
  enum class State : uint8_t { kOutside, kHeader, kArgs, kAfterArgs, kDiscard };

  void OnReset() override {
    state_ = State::kOutside;
    layout_.Reset();
  }

  void BackOutside() {
    state_ = State::kOutside;
    layout_.AfterCall();
  }

  size_t Outside(std::string_view rest, bool at_end) {
    const size_t skipped = layout_.Skip(rest);
    rest.remove_prefix(skipped);
    const text::ScanResult hit = format_.outside().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    if (hit.status != text::ScanStatus::kFound) return skipped + hit.pos;
    if (hit.id == 0) {
      OpenRegion(syntax_.call_begin);
      field_ = 0;
      text_.clear();
      id_.clear();
      name_.clear();
      state_ = State::kHeader;
    } else if (format_.opens_block(hit.id)) {
      layout_.Enter();
    } else if (format_.closes_block(hit.id)) {
      layout_.Leave();
    }
    return skipped + hit.pos + hit.length;
  }

  // One header field, up to its end marker; any other marker there ends the call as content.
  size_t Header(std::string_view rest, bool at_end) {
    const HeaderField& field = syntax_.fields[field_];
    const text::ScanResult hit = format_.header().Scan(rest, at_end);
    text_.append(rest.substr(0, hit.pos));
    Capture(rest.substr(0, hit.pos));
    const bool found = hit.status == text::ScanStatus::kFound;
    if (text_.size() > field.max || (found && hit.id != static_cast<int>(field_))) {
      state_ = State::kDiscard;  // a wrong marker stays for Discard
      return hit.pos;
    }
    if (!found) return hit.pos;
    Capture(rest.substr(hit.pos, hit.length));
    const std::string_view value = text::Trim(text_);
    if (field.kind == HeaderField::Kind::kName) {
      name_.assign(value);
    } else {
      id_.assign(value);
      if (field.kind == HeaderField::Kind::kNamingId) name_.assign(text::Trim(NameOfId(value)));
    }
    text_.clear();
    if (++field_ < syntax_.fields.size()) return hit.pos + hit.length;
    if (name_.empty()) {
      state_ = State::kDiscard;
    } else {
      args_.Start(name_, id_);
      state_ = State::kArgs;
    }
    return hit.pos + hit.length;
  }

  size_t Arguments(std::string_view rest, bool at_end) {
    size_t n = 0;
    if (!args_.started()) {
      n = CaptureSpace(rest);
      if (n == rest.size()) return n;
      if (rest[n] != '{') {  // empty arguments, or not an object
        const MarkerMatch m = MatchAt(format_.end(), rest.substr(n), at_end);
        if (m.status == MarkerMatch::Status::kWait) return n;
        if (m.status == MarkerMatch::Status::kNo) {
          state_ = State::kDiscard;
          return n;
        }
        args_.EmitEmpty(*this);
        Capture(syntax_.call_end);
        CloseRegion();
        BackOutside();
        return n + m.length;
      }
    }
    size_t m = 0;
    const auto st = args_.Feed(rest.substr(n), m, *this);
    Capture(rest.substr(n, m));
    if (st == JsonArgs::Status::kError) state_ = State::kDiscard;
    if (st == JsonArgs::Status::kDone) state_ = State::kAfterArgs;
    return n + m;
  }

  // After the object: whitespace, then the end marker; anything else ends the call (its
  // arguments are complete) and is read as outside text.
  size_t AfterArgs(std::string_view rest, bool at_end) {
    const size_t n = CaptureSpace(rest);
    if (n == rest.size()) return n;
    const MarkerMatch m = MatchAt(format_.end(), rest.substr(n), at_end);
    if (m.status == MarkerMatch::Status::kWait) return n;
    if (m.status == MarkerMatch::Status::kFound) Capture(syntax_.call_end);
    CloseRegion();
    BackOutside();
    return m.status == MarkerMatch::Status::kFound ? n + m.length : n;
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
        case State::kHeader:
          return Header(rest, at_end);
        case State::kArgs:
          return Arguments(rest, at_end);
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
  JsonArgs args_;
  BlockLayout layout_;
};

}  // namespace

HeaderJsonFormat::HeaderJsonFormat(HeaderJsonSyntax syntax)
    : syntax_(std::move(syntax)),
      outside_(Strings({{syntax_.call_begin},
                        syntax_.block_open,
                        syntax_.block_close,
                        syntax_.drop,
                        {syntax_.call_end}})),
      header_(Strings({FieldEnds(syntax_), {syntax_.call_end, syntax_.call_begin}})),
      end_(Strings({{syntax_.call_end}})),
      discard_(Strings({{syntax_.call_end, syntax_.call_begin}})) {}

std::unique_ptr<ToolParser> MakeHeaderJsonParser(const HeaderJsonFormat& format,
                                                 const ToolParserOptions& options) {
  return std::make_unique<HeaderJsonParser>(format, options);
}

}  // namespace crux::parse::tools
