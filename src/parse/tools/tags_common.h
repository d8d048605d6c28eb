// The tag-family engine shared by the tag group (hermes, qwen, step3p5, qwen3_xml, nemotron,
// glm47, poolside_v1, minimax, seed_oss, minimax_m3, minicpm5, hy3, ling3, deepseek_v32,
// kimi_k3, functiongemma, cwm).
//
// Every family of the group is a TagFamilyDef: which markers open a call in prose, which
// container tag (e.g. `<tool_call>` … `</tool_call>`) holds calls, and which call bodies the
// container accepts — chosen by what follows its open tag:
// * `{` — a JSON envelope {"name": …, "arguments": {…}} (JsonCallObject);
// * an XmlSyntax start marker — an XML-style call: a name, then key/value pairs such as
//   `<parameter=k>v</parameter>` or `<arg_key>k</arg_key><arg_value>v</arg_value>`, then the
//   call's closing tag; values become JSON on the fly (ValueRules, typed by the tool schema);
// * a family-specific decoder (CallDecoder) for nested formats (MiniMax-M3).
// Outside a container a family may also accept bare XML calls (committed only once a key or
// the closing tag follows, else restored verbatim as content), the `[Calling tool: f({…})]`
// bracket form, raw JSON envelopes for declared tools, end-of-turn markers after which
// everything is dropped, and stray markers that are removed.
//
// Regions (ToolParserCore): one per call. The container's open tag belongs to its first
// call's region, so a malformed call returns its markup whole as content.
//
// Sections (DeepSeek DSML, GigaChat 3.5, Kimi K3): each call is a region of its own, and the
// section's first call decides what its tags are. Until that call ends or fails, the open tag
// and the whitespace after it are held in the call's region (nothing else is held back):
// * the first call succeeds: the tags and the whitespace between calls are framing, dropped;
//   a later malformed call returns only its own markup (up to its call_close) as content;
// * the first call is malformed (or no call comes: an empty section, other text, the end of
//   the output): the open tag comes back as content with that call's markup, and the
//   whitespace and the closing tag (also when it follows other text, in prose) are content
//   too; a later good call is still a call. So a section without a good call is content
//   byte for byte, and a mixed section loses only layout around its calls.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "crux/parse/registry.h"
#include "parse/tools/string_value.h"
#include "parse/tools/toolkit.h"

namespace crux::parse::tools::tags {

// How values of parameters the schema does not type are read.
enum class Untyped : uint8_t {
  kString,        // always a string (streamed)
  kJson,          // JSON when the text is JSON, else a string
  kJsonOrPython,  // JSON, else a Python literal (True, 'x', {1, 2}), else a string
};

struct ValueRules {
  ValueTrim string_trim = ValueTrim::kStrip;
  Untyped untyped = Untyped::kJson;
  // Lone wrappers (DeepSeek DSML): when a call's only parameter has one of these names, the
  // tool's schema declares properties but not that one, and the value is a JSON object whose
  // keys the schema all declares, that object is the call's arguments (the model put them
  // inside one parameter). Such a first parameter's value is held until the next tag tells
  // whether it is the only one.
  std::span<const std::string_view> lone_wrappers = {};
};

// An XML-style call:
//   start NAME name_close ( key_open KEY key_close [ws value_open] VALUE value_close )* call_close
// with whitespace allowed between the parts. With `tag_close`, the call's and each key's tag
// are tags with attributes:
//   start NAME name_close ATTRS tag_close ( key_open KEY key_close ATTRS tag_close VALUE … )*
// where NAME and KEY are the first attribute's value (name_close / key_close: its quote) and
// ATTRS the further attributes (` a="v"`…, at most 256 bytes without '<' or a newline),
// skipped but for `type_attribute`.
struct XmlSyntax {
  std::string_view start = {};
  std::string_view name_close = {};  // empty: the name ends at a newline or before '<' (GLM)
  std::string_view key_open = {};
  std::string_view key_close = {};
  std::string_view value_open = {};  // empty: the value follows the key's closing marker
  std::string_view value_close = {};
  std::string_view call_close = {};
  bool json_body = false;           // `{…}` right after the name: JSON object arguments
  bool cdata = false;               // a value may be wrapped in <![CDATA[ … ]]> (verbatim)
  bool auto_close = false;          // inside a value, the next key_open / call_close / container
                                    // close also end it (Qwen3-Coder's missing closing tags)
  std::string_view tag_close = {};  // non-empty: tags carry attributes up to this marker
  // A key tag's attribute that types the value when the schema does not: its value names the
  // JSON type ("string", "number", …, Kimi K3's type="number"); with `type_flag`, "true"
  // means a string and anything else an untyped value (DSML's string="true").
  std::string_view type_attribute = {};
  bool type_flag = false;
  bool escaped = false;  // NAME and KEY are XML-escaped (&amp; &quot; &lt; &gt; &apos;)
  // A JSON-object body in a tag of its own, as the call's only content (Kimi K3):
  //   json_open [ATTRS tag_close] ws {…} ws json_close
  std::string_view json_open = {};
  std::string_view json_close = {};
};

// MiniMax-M2's `<invoke name="NAME">` `<parameter name="K">V</parameter>` … `</invoke>` (also
// dots.llm1's).
inline constexpr XmlSyntax kInvokeSyntax{.start = "<invoke name=\"",
                                         .name_close = "\">",
                                         .key_open = "<parameter name=\"",
                                         .key_close = "\">",
                                         .value_close = "</parameter>",
                                         .call_close = "</invoke>"};
// `<function=NAME>` `<parameter=K>V</parameter>` … `</function>` (Qwen3-Coder, Step, Nemotron,
// Seed-OSS); `{…}` right after the name is accepted as JSON arguments.
inline constexpr XmlSyntax kFunctionSyntax{.start = "<function=",
                                           .name_close = ">",
                                           .key_open = "<parameter=",
                                           .key_close = ">",
                                           .value_close = "</parameter>",
                                           .call_close = "</function>",
                                           .json_body = true};
// The same with Qwen3-Coder's auto-closing of missing </parameter> / </function>.
inline constexpr XmlSyntax kFunctionAutoCloseSyntax{.start = "<function=",
                                                    .name_close = ">",
                                                    .key_open = "<parameter=",
                                                    .key_close = ">",
                                                    .value_close = "</parameter>",
                                                    .call_close = "</function>",
                                                    .json_body = true,
                                                    .auto_close = true};
// `<tool_call>NAME` `<arg_key>K</arg_key>` `<arg_value>V</arg_value>` … `</tool_call>` (GLM-4.5+,
// Poolside Laguna, Ling 3).
inline constexpr XmlSyntax kGlmSyntax{.start = "<tool_call>",
                                      .key_open = "<arg_key>",
                                      .key_close = "</arg_key>",
                                      .value_open = "<arg_value>",
                                      .value_close = "</arg_value>",
                                      .call_close = "</tool_call>"};

// Decodes one call after its start marker; reports call events to a CallSink.
class CallDecoder {
 public:
  using Status = text::FeedStatus;
  virtual ~CallDecoder() = default;
  // Consumes what it can decide on (`consumed`); the rest is offered again with more bytes.
  // kDone: the call ended (EndCall sent). kError: the text is not a call; nothing after
  // `consumed` belongs to it.
  virtual Status Feed(std::string_view text, bool at_end, size_t& consumed, CallSink& sink) = 0;
  // Prepares for a new call (family-specific decoders; the engine's own have Start()).
  virtual void Restart() {}
  // End of stream inside the call: ends the call when only its closing marker is missing.
  virtual bool FinishCall(CallSink& /*sink*/) { return false; }
};

using CustomDecoderFactory = std::unique_ptr<CallDecoder> (*)(const ToolParserOptions&);

// A further container: `open` … `close` around calls, beside the family's first one.
struct Container {
  std::string_view open;
  std::string_view close;
  bool json = false;                         // holds JSON envelopes
  std::vector<const XmlSyntax*> calls = {};  // XML calls inside it
  // A section (see the top of this file): each call is a region of its own, a malformed one
  // returned as content up to its call_close; the tags and the whitespace between calls are
  // dropped when the first call succeeds, else content; other text leaves the section. Its
  // close tag should also be in `drop` (a stray one).
  bool section = false;
};

// Everything that tells one family of the group from another. Markers are string literals.
struct TagFamilyDef {
  std::string_view container_open = {};  // empty: no container
  std::string_view container_close = {};
  bool container_json = false;                         // the container holds JSON envelopes
  std::vector<const XmlSyntax*> container_calls = {};  // XML calls inside the container
  bool container_section = false;                      // the container is a section
  // Inside the container: a call read by `custom`. Empty: the container's first bytes after
  // whitespace are that call (one per container, CWM's `<tool: LABEL>` body).
  std::string_view custom_start = {};
  CustomDecoderFactory custom = nullptr;
  std::vector<const XmlSyntax*> bare_calls = {};  // XML calls in prose (committed on structure)
  bool bracket = false;                           // [Calling tool: NAME({…})]
  bool raw_json = false;  // {"name": "NAME", "arguments": {…}} in prose, declared names only
  std::vector<std::string_view> end_of_turn = {};  // this marker and all after it dropped
  std::vector<std::string_view> drop = {};         // stray markers removed from content
  ValueRules values = {};
  bool dedup_consecutive = false;  // a call identical to the previous call is dropped
  // Containers after the first (a model line's older spelling of its call block).
  std::vector<Container> more_containers = {};
};

// A TagFamilyDef with its marker sets compiled. Immutable; one static instance per family.
class TagFamily {
 public:
  enum class Action : uint8_t {
    kContainer,
    kContainerClose,
    kJson,
    kXml,
    kCustom,
    kBracket,
    kRawJson,
    kEndOfTurn,
    kDrop
  };
  // Marker sets of one XmlSyntax; [1] variants also hold the container's closing tag.
  struct Compiled {
    const XmlSyntax* syntax = nullptr;
    text::MarkerSet name_close, key_close, value_open, cdata_close, tag_close, json_open,
        between[2], value_end[2], after_json[2];
  };
  struct Entry {
    Action action = Action::kDrop;
    const Compiled* xml = nullptr;
    int container = 0;  // kContainer: which container opens
  };

  explicit TagFamily(TagFamilyDef def);
  TagFamily(const TagFamily&) = delete;
  TagFamily& operator=(const TagFamily&) = delete;

  const TagFamilyDef& def() const { return def_; }
  const text::MarkerSet& outside() const { return outside_; }
  // Container `c` (0: the first): its closing tag and the calls it holds; its JSON and
  // section flags; what a malformed call inside it is discarded up to ([0] its closing tag,
  // then [1] its open tag, or in a section the call_close of each call it holds).
  const text::MarkerSet& inner(int c) const { return At(c).inner; }
  const Entry& inner_entry(int c, int id) const { return At(c).entries[static_cast<size_t>(id)]; }
  bool container_json(int c) const { return At(c).json; }
  bool section(int c) const { return At(c).section; }
  std::string_view close(int c) const { return At(c).close; }
  const text::MarkerSet& discard(int c) const { return At(c).discard; }
  const Entry& outside_entry(int id) const { return outside_entries_[static_cast<size_t>(id)]; }

 private:
  struct ContainerSets {
    bool json = false;
    bool section = false;
    std::string_view close;
    text::MarkerSet inner, discard;
    std::vector<Entry> entries;
  };
  const ContainerSets& At(int c) const { return containers_[static_cast<size_t>(c)]; }
  // `syntax` inside a container closed by `container_close` (the [1] variants stop there).
  const Compiled* Compile(const XmlSyntax* syntax, std::string_view container_close);

  TagFamilyDef def_;
  std::vector<std::unique_ptr<Compiled>> compiled_;
  std::vector<std::string_view> compiled_close_;  // the container close each was compiled for
  text::MarkerSet outside_;
  std::vector<Entry> outside_entries_;
  std::vector<ContainerSets> containers_;
};

// Looks for a marker of `set` at the very start of `text` only: kFound or kPartial with pos 0,
// else kNone. Bounded work whatever the length of `text`.
text::ScanResult ScanAtStart(const text::MarkerSet& set, std::string_view text, bool at_end);

// A tool parser for `family` (which must outlive it).
std::unique_ptr<ToolParser> MakeTagParser(const TagFamily& family,
                                          const ToolParserOptions& options);

// ---------------------------------------------------------------------------------------------
// Components (used by the engine and by family files).

// JSON text of a buffered (non-streamed) value of schema type `type`. A value that is not read
// as JSON, a literal or a typed scalar is a string: its text trimmed by `rules.string_trim`,
// like a string parameter's. A nullable parameter's bare `null` is null.
std::string TypedValue(std::string_view text, ValueType type, const ValueRules& rules);

// True when values of `type` stream as strings under `rules`.
bool StreamsAsString(ParamType type, const ValueRules& rules);

// Reads an XML-style call (see XmlSyntax). The call begins (BeginCall) only when its
// structure confirms it: at the first key, the JSON body, or the closing tag.
class XmlCallDecoder final : public CallDecoder {
 public:
  XmlCallDecoder(const ToolParserOptions& options, const ValueRules& rules)
      : options_(options), rules_(rules) {}
  void Start(const TagFamily::Compiled& syntax, bool in_container);
  Status Feed(std::string_view text, bool at_end, size_t& consumed, CallSink& sink) override;
  bool FinishCall(CallSink& sink) override;

 private:
  enum class State : uint8_t {
    kName,
    kBetween,
    kKey,
    kAfterKey,
    kValueStart,
    kValue,
    kCdata,
    kAfterCdata,
    kAttrs,
    kJsonStart,
    kJson,
    kAfterJson,
    kDone
  };
  enum class Flow : uint8_t { kContinue, kWait, kDone, kError };

  // One step in the current state: `used` bytes of `rest` taken.
  Flow Step(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepName(std::string_view rest, bool at_end, size_t& used);
  Flow StepGlmName(std::string_view rest, size_t& used);
  Flow StepBetween(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepKey(std::string_view rest, bool at_end, size_t& used);
  Flow StepAfterKey(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepValueStart(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepValue(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepCdata(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepAfterCdata(std::string_view rest, bool at_end, size_t& used, CallSink& sink);
  Flow StepAttrs(std::string_view rest, bool at_end, size_t& used);
  Flow StepJsonOpen(std::string_view next, bool at_end, size_t& used);
  Flow StepJsonStart(std::string_view rest, size_t& used, CallSink& sink);
  Flow StepJson(std::string_view rest, size_t& used, CallSink& sink);
  Flow StepAfterJson(std::string_view rest, bool at_end, size_t& used, CallSink& sink);

  void Commit(CallSink& sink);
  // Reads the tag's attributes (when the syntax has them), then goes on in `next`.
  void AfterTag(State next);
  ParamType AttributeType() const;
  bool IsLoneWrapper() const;
  bool IsWrappedArguments(std::string_view value) const;
  void StartValue(CallSink& sink);
  void OpenValue(CallSink& sink);
  void ReleaseHeld(CallSink& sink);
  void ValueText(std::string_view text, CallSink& sink);
  void EndValue(CallSink& sink);
  void EndCall(CallSink& sink);

  const ToolParserOptions& options_;
  const ValueRules& rules_;
  const TagFamily::Compiled* syntax_ = nullptr;
  int outer_ = 0;  // 1 inside a container: its closing tag also ends the call
  State state_ = State::kName;
  State after_attrs_ = State::kName;  // kAttrs: the state after the tag's attributes
  bool committed_ = false;
  bool skip_value_ = false;    // a repeated key: its value is dropped (the first one wins)
  bool string_value_ = false;  // the value streams as a JSON string
  bool held_ = false;          // the value may be a lone wrapper: held whole in value_
  bool json_done_ = false;     // the arguments were a JSON body (written whole)
  ValueType type_;
  std::string name_, key_, attrs_, value_, scratch_;
  std::unordered_set<std::string> keys_;  // keys seen in this call (a hash: calls may be wide)
  ArgsWriter writer_;
  StringValue string_;
  text::JsonScanner json_;
};

// Drops a call that repeats the previous call exactly (step3p5). A call with the previous
// call's name is held back only while its arguments are still a prefix of the previous
// call's; as soon as they differ it is released and streams on.
class DedupSink final : public CallSink {
 public:
  void Bind(CallSink* target) { target_ = target; }
  void BeginCall(std::string_view name, std::string id = {}) override;
  void Args(std::string_view fragment) override;
  void EndCall() override;
  // The current call was abandoned (malformed): forget it.
  void Abort() { pending_ = false; }
  void Reset();

 private:
  void Release();

  CallSink* target_ = nullptr;
  bool has_previous_ = false;
  bool pending_ = false;
  std::string previous_name_, previous_args_, name_, args_;
};

// ---------------------------------------------------------------------------------------------
// Parser factories of the families of the group (one file each, beside its declaration);
// hermes is in hermes.h.

std::unique_ptr<ToolParser> MakeQwenParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeStep3p5Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeQwen3XmlParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeNemotronParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeGlm47Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakePoolsideV1Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeMinimaxParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeSeedOssParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeMinimaxM3Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeMiniCpm5Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeHy3Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeLing3Parser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeDeepSeekDsmlParser(const ToolParserOptions& options);
std::unique_ptr<ToolParser> MakeKimiK3Parser(const ToolParserOptions& options);

}  // namespace crux::parse::tools::tags
