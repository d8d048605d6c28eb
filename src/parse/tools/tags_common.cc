// The tag-family engine (see tags_common.h): family compilation, the outer state machine
// (prose, container, call body, discard), the simple decoders (JSON envelope, bracket, raw
// JSON) and the consecutive-duplicate filter.
#include "parse/tools/tags_common.h"

#include <memory>
#include <utility>

#include "crux/base/check.h"

namespace crux::parse::tools::tags {
namespace {

constexpr std::string_view kBracketStart = "[Calling tool:";
constexpr std::string_view kRawJsonStarts[] = {"{\"name\": \"", "{\"name\":\""};
constexpr size_t kMaxName = 256;

size_t CountSpace(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && text::IsSpace(text[n]))
    ++n;
  return n;
}

// Collects markers with the engine action each one triggers.
struct SetBuilder {
  std::vector<std::string> markers;
  std::vector<TagFamily::Entry> entries;
  void Add(std::string_view marker, TagFamily::Action action,
           const TagFamily::Compiled* xml = nullptr, int container = 0) {
    if (marker.empty()) return;
    for (const std::string& m : markers) {
      if (m == marker) return;  // the first meaning wins
    }
    markers.emplace_back(marker);
    entries.push_back({action, xml, container});
  }
};

std::vector<std::string> Strings(std::initializer_list<std::string_view> list) {
  std::vector<std::string> out;
  for (std::string_view s : list) {
    if (!s.empty()) out.emplace_back(s);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decoders the engine owns besides XmlCallDecoder.

// A JSON envelope inside a container.
//
// JsonCallObject reports some errors (a key or a name longer than 256 bytes, bad
// JSON inside string-wrapped arguments) only at the end of the string run it was given, so
// where the error lands depends on where the deltas were cut. What follows the error is
// searched for the container's closing tag, so the envelope is fed in slices that end before
// each '<': an error then lands before the next possible tag whatever the cutting.
class EnvelopeDecoder final : public CallDecoder {
 public:
  void Start() { envelope_.Reset(); }
  Status Feed(std::string_view text, bool /*at_end*/, size_t& consumed, CallSink& sink) override {
    consumed = 0;
    while (consumed < text.size()) {
      size_t end = text.find('<', consumed + 1);
      if (end == std::string_view::npos) end = text.size();
      size_t used = 0;
      const auto status = envelope_.Feed(text.substr(consumed, end - consumed), used, sink);
      consumed += used;
      if (status == JsonCallObject::Status::kDone) return Status::kDone;
      if (status == JsonCallObject::Status::kError) return Status::kError;
    }
    return Status::kNeedMore;
  }

 private:
  JsonCallObject envelope_;
};

// Streams a JSON object of arguments; shared by the bracket and raw-JSON forms.
class ObjectArgs {
 public:
  void Reset() { scanner_.Reset(); }
  // Feeds argument bytes starting at '{'; returns the scanner's status.
  text::JsonScanner::Status Feed(std::string_view text, size_t& used, CallSink& sink) {
    const auto status = scanner_.Feed(text, used);
    if (status != text::JsonScanner::Status::kError && used > 0) sink.Args(text.substr(0, used));
    return status;
  }
  bool done() const { return scanner_.done(); }

 private:
  text::JsonScanner scanner_;
};

// `[Calling tool:` ws NAME `(` ws `{…}` ws `)]` — Qwen's bracket form.
class BracketDecoder final : public CallDecoder {
 public:
  void Start() {
    state_ = State::kName;
    name_.clear();
    args_.Reset();
  }

  Status Feed(std::string_view text, bool at_end, size_t& consumed, CallSink& sink) override {
    size_t i = 0;
    while (i < text.size()) {
      const char c = text[i];
      switch (state_) {
        case State::kName:
          if (name_.empty() && text::IsSpace(c)) break;
          if (c == '(' && !name_.empty()) {
            state_ = State::kOpen;
            break;
          }
          if (!IsNameByte(c) || name_.size() >= kMaxName) return Fail(i, consumed);
          name_.push_back(c);
          break;
        case State::kOpen:
          if (text::IsSpace(c)) break;
          if (c != '{') return Fail(i, consumed);
          sink.BeginCall(name_);
          state_ = State::kArgs;
          continue;
        case State::kArgs: {
          size_t used = 0;
          const auto status = args_.Feed(text.substr(i), used, sink);
          i += used;
          if (status == text::JsonScanner::Status::kError) return Fail(i, consumed);
          if (status == text::JsonScanner::Status::kDone) state_ = State::kClose;
          continue;
        }
        case State::kClose: {
          if (text::IsSpace(c)) break;
          const std::string_view rest = text.substr(i);
          if (rest == ")") {  // wait for ']'; at the end FinishCall keeps the call
            consumed = at_end ? text.size() : i;
            return Status::kNeedMore;
          }
          if (rest.substr(0, 2) != ")]") return Fail(i, consumed);
          sink.EndCall();
          consumed = i + 2;
          return Status::kDone;
        }
      }
      ++i;
    }
    consumed = text.size();
    return Status::kNeedMore;
  }

  bool FinishCall(CallSink& sink) override {
    if (state_ != State::kClose) return false;
    sink.EndCall();
    return true;
  }

 private:
  enum class State : uint8_t { kName, kOpen, kArgs, kClose };
  Status Fail(size_t i, size_t& consumed) {
    consumed = i;
    return Status::kError;
  }

  State state_ = State::kName;
  std::string name_;
  ObjectArgs args_;
};

// `{"name": "NAME", "arguments": {…}}` in prose (after the `{"name": "` marker). Only a name
// the request declares (any name when none are declared) makes it a call.
class RawJsonDecoder final : public CallDecoder {
 public:
  explicit RawJsonDecoder(const ToolParserOptions& options) : options_(options) {}

  void Start() {
    state_ = State::kName;
    name_.clear();
    literal_ = 0;
    offset_ = 0;
    args_.Reset();
  }

  Status Feed(std::string_view text, bool /*at_end*/, size_t& consumed, CallSink& sink) override {
    static constexpr std::string_view kTokens[] = {",", "\"arguments\"", ":"};
    size_t i = 0;
    while (i < text.size()) {
      const char c = text[i];
      switch (state_) {
        case State::kName:
          if (c == '"') {
            state_ = State::kLiteral;
            break;
          }
          if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || name_.size() >= kMaxName) {
            return Fail(i, consumed);
          }
          name_.push_back(c);
          break;
        case State::kLiteral:
          if (offset_ == 0 && text::IsSpace(c)) break;
          if (literal_ == 3) {  // the arguments object
            if (c != '{' || name_.empty() || !IsDeclared(options_, name_)) {
              return Fail(i, consumed);
            }
            sink.BeginCall(name_);
            state_ = State::kArgs;
            continue;
          }
          if (c != kTokens[literal_][offset_]) return Fail(i, consumed);
          if (++offset_ == kTokens[literal_].size()) {
            ++literal_;
            offset_ = 0;
          }
          break;
        case State::kArgs: {
          size_t used = 0;
          const auto status = args_.Feed(text.substr(i), used, sink);
          i += used;
          if (status == text::JsonScanner::Status::kError) return Fail(i, consumed);
          if (status == text::JsonScanner::Status::kDone) state_ = State::kClose;
          continue;
        }
        case State::kClose:
          if (text::IsSpace(c)) break;
          if (c != '}') return Fail(i, consumed);
          sink.EndCall();
          consumed = i + 1;
          return Status::kDone;
      }
      ++i;
    }
    consumed = text.size();
    return Status::kNeedMore;
  }

  bool FinishCall(CallSink& sink) override {
    if (state_ != State::kClose) return false;
    sink.EndCall();
    return true;
  }

 private:
  enum class State : uint8_t { kName, kLiteral, kArgs, kClose };
  Status Fail(size_t i, size_t& consumed) {
    consumed = i;
    return Status::kError;
  }

  const ToolParserOptions& options_;
  State state_ = State::kName;
  std::string name_;
  size_t literal_ = 0;
  size_t offset_ = 0;
  ObjectArgs args_;
};

// ---------------------------------------------------------------------------------------------
// The engine.

class TagParser final : public ToolParserCore {
 public:
  TagParser(const TagFamily& family, const ToolParserOptions& options)
      : ToolParserCore(options),
        family_(family),
        xml_(this->options(), family.def().values),
        raw_json_(this->options()) {
    if (family.def().custom != nullptr) custom_ = family.def().custom(this->options());
    dedup_.Bind(this);
  }

 private:
  enum class State : uint8_t { kOutside, kContainer, kBody, kDiscard, kEnd };
  // What a section's tags are (tags_common.h), decided by its first call: until then its open
  // tag and the whitespace after it are held in the first call's region.
  enum class Section : uint8_t {
    kPending,  // no call decided yet
    kFraming,  // the first call succeeded: tags and whitespace between calls are dropped
    kLiteral,  // the first call was malformed: tags and whitespace are content
  };

  // Ids: a cancelled call's id goes to the next call, as its index does. Whether a malformed
  // call began before its error showed can depend on where the deltas were cut (JsonCallObject
  // with string-wrapped arguments); reusing the id keeps later ids independent of that.
  void BeginCall(std::string_view name, std::string id = {}) override {
    if (id.empty()) id = spare_id_.empty() ? ids().NextCallId() : std::exchange(spare_id_, {});
    current_id_ = id;
    ToolParserCore::BeginCall(name, std::move(id));
  }

  void Cancel() {
    if (call_begun()) spare_id_ = std::move(current_id_);
    dedup_.Abort();
    CancelRegion();
  }

  CallSink& sink() {
    if (family_.def().dedup_consecutive) return dedup_;
    return *this;
  }

  void OnReset() override {
    state_ = State::kOutside;
    in_container_ = false;
    region_has_call_ = false;
    section_ = Section::kPending;
    literal_close_ = false;
    body_ = nullptr;
    dedup_.Reset();
    spare_id_.clear();
  }

  size_t Process(std::string_view text, bool at_end) override {
    size_t pos = 0;
    while (pos < text.size()) {
      const std::string_view rest = text.substr(pos);
      size_t used = 0;
      bool wait = false;
      switch (state_) {
        case State::kOutside:
          wait = StepOutside(rest, at_end, used);
          break;
        case State::kContainer:
          wait = StepContainer(rest, at_end, used);
          break;
        case State::kBody:
          wait = StepBody(rest, at_end, used);
          break;
        case State::kDiscard:
          wait = StepDiscard(rest, at_end, used);
          break;
        case State::kEnd:
          used = rest.size();
          break;
      }
      pos += used;
      if (wait) return pos;
    }
    return pos;
  }

  void OnFinish() override {
    if (!region_open()) return;
    bool keep = false;
    if (state_ == State::kBody) {
      keep = body_->FinishCall(sink());
    } else if (state_ == State::kContainer) {
      keep = region_has_call_;
    }
    if (keep) {
      CloseRegion();
    } else {
      Cancel();
    }
  }

  // Prose: content up to the next marker. Returns true to wait for more bytes.
  bool StepOutside(std::string_view rest, bool at_end, size_t& used) {
    const text::ScanResult hit = family_.outside().Scan(rest, at_end);
    Content(rest.substr(0, hit.pos));
    used = hit.pos;
    if (hit.status != text::ScanStatus::kFound) return true;
    const std::string_view marker = rest.substr(hit.pos, hit.length);
    used += hit.length;
    const TagFamily::Entry& entry = family_.outside_entry(hit.id);
    switch (entry.action) {
      case TagFamily::Action::kContainer:
        OpenRegion(marker);  // a section's is held until its first call decides
        in_container_ = true;
        container_ = entry.container;
        region_has_call_ = false;
        section_ = Section::kPending;
        literal_close_ = false;
        state_ = State::kContainer;
        break;
      case TagFamily::Action::kXml:
      case TagFamily::Action::kBracket:
      case TagFamily::Action::kRawJson:
        OpenRegion(marker);
        in_container_ = false;
        region_has_call_ = false;
        StartBody(entry);
        break;
      case TagFamily::Action::kEndOfTurn:
        state_ = State::kEnd;
        break;
      default:  // kDrop; the closing tag of a section given back as content is content
        if (literal_close_ && marker == family_.close(container_)) {
          Content(marker);
          literal_close_ = false;
        }
        break;
    }
    return false;
  }

  // Inside a container, between calls. In a section a region is open here only while its
  // first call is pending (it holds the open tag).
  bool StepContainer(std::string_view rest, bool at_end, size_t& used) {
    used = CountSpace(rest);
    if (region_open()) {
      Capture(rest.substr(0, used));
    } else if (section_ == Section::kLiteral) {
      Content(rest.substr(0, used));
    }
    if (used == rest.size()) return true;
    const std::string_view next = rest.substr(used);
    if (family_.container_json(container_) && next[0] == '{') {
      NextCall({});
      StartBody({TagFamily::Action::kJson, nullptr});
      return false;
    }
    const text::ScanResult hit = ScanAtStart(family_.inner(container_), next, at_end);
    if (hit.status == text::ScanStatus::kPartial) return true;
    if (hit.status == text::ScanStatus::kFound) {
      const std::string_view marker = next.substr(0, hit.length);
      used += hit.length;
      const TagFamily::Entry& entry = family_.inner_entry(container_, hit.id);
      if (entry.action == TagFamily::Action::kContainerClose) {
        CloseContainer(marker);
        return false;
      }
      NextCall(marker);
      StartBody(entry);
      return false;
    }
    if (BareCustomCall()) {  // custom_start is empty: the container's first bytes are its call
      NextCall({});
      StartBody({TagFamily::Action::kCustom, nullptr});
      return false;
    }
    if (family_.section(container_) && (region_open() || section_ == Section::kLiteral)) {
      if (region_open()) Cancel();  // other text before a call: the section was not one
      literal_close_ = true;        // its closing tag, if it comes, is content too
      state_ = State::kOutside;
    } else if (region_has_call_ || !region_open()) {  // text after a call, or in a section
      if (region_open()) CloseRegion();
      state_ = State::kOutside;
    } else {
      state_ = State::kDiscard;
    }
    return false;
  }

  // The container's closing tag `marker`. It ends the region of a container's last call; a
  // section's is dropped after a good first call, else content with the section's open tag.
  void CloseContainer(std::string_view marker) {
    if (family_.section(container_) && section_ == Section::kLiteral) {
      Content(marker);
    } else if (family_.section(container_) && region_open()) {  // an empty section
      Capture(marker);
      Cancel();
    } else if (region_open()) {
      Capture(marker);
      CloseRegion();
    }
    state_ = State::kOutside;
  }

  // Whether a custom call without a start marker begins here: the first call of the first
  // container.
  bool BareCustomCall() const {
    return container_ == 0 && family_.def().custom != nullptr &&
           family_.def().custom_start.empty() && !region_has_call_ && region_open();
  }

  bool StepBody(std::string_view rest, bool at_end, size_t& used) {
    const CallDecoder::Status status = body_->Feed(rest, at_end, used, sink());
    Capture(rest.substr(0, used));
    switch (status) {
      case CallDecoder::Status::kNeedMore:
        return true;
      case CallDecoder::Status::kDone:
        region_has_call_ = true;
        if (in_container_ && section_ == Section::kPending) section_ = Section::kFraming;
        if (!in_container_ || family_.section(container_)) CloseRegion();
        state_ = in_container_ ? State::kContainer : State::kOutside;
        return false;
      case CallDecoder::Status::kError:
        if (in_container_) {
          dedup_.Abort();
          state_ = State::kDiscard;
        } else {  // prose after all: give it back and read on
          Cancel();
          state_ = State::kOutside;
        }
        return false;
    }
    return false;
  }

  // A malformed call inside a container: everything up to the closing tag (or the next open
  // tag) becomes content; in a section, up to the call's closing tag (the section's stays),
  // with the section's open tag when this was its first call.
  bool StepDiscard(std::string_view rest, bool at_end, size_t& used) {
    const text::ScanResult hit = family_.discard(container_).Scan(rest, at_end);
    Capture(rest.substr(0, hit.pos));
    used = hit.pos;
    if (hit.status != text::ScanStatus::kFound) return true;
    const std::string_view marker = rest.substr(hit.pos, hit.length);
    if (family_.section(container_)) {
      if (hit.id != 0) {
        Capture(marker);
        used += hit.length;
      }
      Cancel();
      if (section_ == Section::kPending) section_ = Section::kLiteral;
      state_ = State::kContainer;
      return false;
    }
    used += hit.length;
    if (hit.id == 0) {  // the closing tag
      Capture(marker);
      Cancel();
      state_ = State::kOutside;
    } else {
      Cancel();
      OpenRegion(marker);
      region_has_call_ = false;
      state_ = State::kContainer;
    }
    return false;
  }

  // A new call inside the container: after a finished call (or in a section, always) it gets a
  // region of its own.
  void NextCall(std::string_view marker) {
    if (!region_open()) {
      OpenRegion(marker);
      region_has_call_ = false;
    } else if (region_has_call_) {
      CloseRegion();
      OpenRegion(marker);
      region_has_call_ = false;
    } else {
      Capture(marker);
    }
  }

  void StartBody(const TagFamily::Entry& entry) {
    switch (entry.action) {
      case TagFamily::Action::kJson:
        envelope_.Start();
        body_ = &envelope_;
        break;
      case TagFamily::Action::kXml:
        xml_.Start(*entry.xml, in_container_);
        body_ = &xml_;
        break;
      case TagFamily::Action::kCustom:
        custom_->Restart();
        body_ = custom_.get();
        break;
      case TagFamily::Action::kBracket:
        bracket_.Start();
        body_ = &bracket_;
        break;
      case TagFamily::Action::kRawJson:
        raw_json_.Start();
        body_ = &raw_json_;
        break;
      default:
        CRUX_CHECK(false);
    }
    CRUX_CHECK(body_ != nullptr);
    state_ = State::kBody;
  }

  const TagFamily& family_;
  State state_ = State::kOutside;
  bool in_container_ = false;
  int container_ = 0;                    // which container (TagFamily::inner) while in_container_
  bool region_has_call_ = false;         // a call of the current region ended
  Section section_ = Section::kPending;  // in a section: what its tags are
  bool literal_close_ = false;  // left a kLiteral section early: its closing tag is content
  CallDecoder* body_ = nullptr;
  EnvelopeDecoder envelope_;
  XmlCallDecoder xml_;
  BracketDecoder bracket_;
  RawJsonDecoder raw_json_;
  std::unique_ptr<CallDecoder> custom_;
  DedupSink dedup_;
  std::string current_id_;  // the id of the call begun last
  std::string spare_id_;    // the id of a cancelled call, for the next call
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// TagFamily

TagFamily::TagFamily(TagFamilyDef def) : def_(std::move(def)) {
  std::vector<Container> containers;
  if (!def_.container_open.empty()) {
    containers.push_back({def_.container_open, def_.container_close, def_.container_json,
                          def_.container_calls, def_.container_section});
  }
  containers.insert(containers.end(), def_.more_containers.begin(), def_.more_containers.end());

  SetBuilder outside;
  for (size_t c = 0; c < containers.size(); ++c) {
    outside.Add(containers[c].open, Action::kContainer, nullptr, static_cast<int>(c));
  }
  for (const XmlSyntax* syntax : def_.bare_calls) {
    outside.Add(syntax->start, Action::kXml, Compile(syntax, def_.container_close));
  }
  if (def_.bracket) outside.Add(kBracketStart, Action::kBracket);
  if (def_.raw_json) {
    for (std::string_view m : kRawJsonStarts)
      outside.Add(m, Action::kRawJson);
  }
  for (std::string_view m : def_.end_of_turn)
    outside.Add(m, Action::kEndOfTurn);
  for (std::string_view m : def_.drop)
    outside.Add(m, Action::kDrop);
  outside_ = text::MarkerSet(outside.markers);
  outside_entries_ = std::move(outside.entries);

  for (size_t c = 0; c < containers.size(); ++c) {
    const Container& container = containers[c];
    SetBuilder inner;
    inner.Add(container.close, Action::kContainerClose);
    for (const XmlSyntax* syntax : container.calls) {
      inner.Add(syntax->start, Action::kXml, Compile(syntax, container.close));
    }
    if (c == 0 && def_.custom != nullptr && !def_.custom_start.empty()) {
      inner.Add(def_.custom_start, Action::kCustom);
    }
    ContainerSets sets;
    sets.json = container.json;
    sets.section = container.section;
    sets.close = container.close;
    sets.inner = text::MarkerSet(inner.markers);
    sets.entries = std::move(inner.entries);
    std::vector<std::string> discard = Strings({container.close});
    if (container.section) {
      for (const XmlSyntax* syntax : container.calls)
        discard.emplace_back(syntax->call_close);
    } else {
      discard.emplace_back(container.open);
    }
    sets.discard = text::MarkerSet(discard);
    containers_.push_back(std::move(sets));
  }
}

const TagFamily::Compiled* TagFamily::Compile(const XmlSyntax* syntax,
                                              std::string_view container_close) {
  for (size_t i = 0; i < compiled_.size(); ++i) {
    if (compiled_[i]->syntax == syntax && compiled_close_[i] == container_close) {
      return compiled_[i].get();
    }
  }
  auto c = std::make_unique<Compiled>();
  const XmlSyntax& s = *syntax;
  c->syntax = syntax;
  if (!s.name_close.empty()) c->name_close = text::MarkerSet{s.name_close};
  c->key_close = text::MarkerSet{s.key_close};
  if (!s.value_open.empty()) c->value_open = text::MarkerSet{s.value_open};
  c->cdata_close = text::MarkerSet{"]]>"};
  if (!s.tag_close.empty()) c->tag_close = text::MarkerSet{s.tag_close};
  if (!s.json_open.empty()) c->json_open = text::MarkerSet{s.json_open};
  for (int outer = 0; outer < 2; ++outer) {
    const std::string_view container = outer ? container_close : std::string_view();
    // Ids: between 0 key, 1 call close, 2 container close; value_end 0 value close, others
    // auto-close; after_json 0 call close (or json_close), 1 container close.
    c->between[outer] = text::MarkerSet(Strings({s.key_open, s.call_close, container}));
    c->value_end[outer] =
        s.auto_close
            ? text::MarkerSet(Strings({s.value_close, s.key_open, s.call_close, container}))
            : text::MarkerSet{s.value_close};
    c->after_json[outer] = s.json_close.empty()
                               ? text::MarkerSet(Strings({s.call_close, container}))
                               : text::MarkerSet{s.json_close};
  }
  compiled_.push_back(std::move(c));
  compiled_close_.push_back(container_close);
  return compiled_.back().get();
}

text::ScanResult ScanAtStart(const text::MarkerSet& set, std::string_view text, bool at_end) {
  text::ScanResult hit = set.Scan(text.substr(0, set.max_length()), at_end);
  if (hit.pos != 0) hit = text::ScanResult{text::ScanStatus::kNone, text.size(), 0, -1};
  return hit;
}

std::unique_ptr<ToolParser> MakeTagParser(const TagFamily& family,
                                          const ToolParserOptions& options) {
  return std::make_unique<TagParser>(family, options);
}

// ---------------------------------------------------------------------------------------------
// DedupSink

void DedupSink::Reset() {
  has_previous_ = false;
  pending_ = false;
  previous_name_.clear();
  previous_args_.clear();
  name_.clear();
  args_.clear();
}

void DedupSink::BeginCall(std::string_view name, std::string id) {
  args_.clear();
  name_.assign(name);
  pending_ = has_previous_ && name == previous_name_;
  if (!pending_) target_->BeginCall(name, std::move(id));
}

void DedupSink::Args(std::string_view fragment) {
  const size_t before = args_.size();
  args_.append(fragment);
  if (!pending_) {
    target_->Args(fragment);
    return;
  }
  const bool still_prefix = args_.size() <= previous_args_.size() &&
                            previous_args_.compare(before, fragment.size(), fragment) == 0;
  if (!still_prefix) Release();
}

void DedupSink::EndCall() {
  if (pending_ && args_ == previous_args_) {
    pending_ = false;  // the same call again: dropped
    return;
  }
  if (pending_) Release();
  target_->EndCall();
  has_previous_ = true;
  previous_name_.swap(name_);
  previous_args_.swap(args_);
}

void DedupSink::Release() {
  pending_ = false;
  target_->BeginCall(name_);
  if (!args_.empty()) target_->Args(args_);
}

}  // namespace crux::parse::tools::tags
