// minimax_m3: MiniMax-M3. Every tool tag is prefixed with the namespace token NS =
// `]<]minimax[>[`, and argument values are expanded recursively into XML:
//   NS<tool_call>\n
//   NS<invoke name="f">NS<city>Oslo NS</city>NS<opts>NS<days>3NS</days>NS</opts>
//   NS<tags>NS<item>a NS</item>NS<item>b NS</item>NS</tags>NS</invoke>\n
//   NS</tool_call>
// (spaces above only for reading). A mapping becomes child elements named by its keys, a list
// becomes `item` elements, booleans are true/false, null fields are omitted, other scalars are
// written as text. Decoding follows the tool's JSON Schema all the way down (properties,
// items): string leaves stay text verbatim, typed leaves are parsed; where the schema says
// nothing, a leaf that reads as a JSON number or true/false is that value and anything else is
// a string, and children that are all `item` make an array (unless the schema says object;
// where it says array, children of any tag are its elements). Repeated elements are an array:
// a run of same-tag siblings in an object (`<k>a</k><k>b</k>` → "k": ["a", "b"]) and a
// parameter written several times in a row, each element typed by the array's item schema;
// where the schema gives the key another type, the first value wins, as for keys repeated
// further apart. A nullable parameter's bare `null` is null.
// Top-level string parameters stream as they arrive; other values are emitted when their
// closing tag arrives (untyped and array-typed ones at the next tag, which tells whether the
// parameter repeats). Inherent ambiguity of the format: an empty element is "" unless the
// schema says object ({}) or array ([]). Reasoning (`<mm:think>`) is handled upstream.
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_set>

#include "crux/parse/call_grammar.h"
#include "crux/parse/tools/registry.h"
#include "parse/tools/tags_common.h"

namespace crux::parse::tools::tags {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kNs = "]<]minimax[>[";
constexpr size_t kMaxTag = 256;
// Schemas are followed this deep (deeper values decode as untyped). Values themselves nest
// without limit: they are decoded with explicit stacks.
constexpr size_t kMaxSchemaDepth = 64;

// The tools' parameter schemas as a flat tree (built once per parser).
class SchemaTree {
 public:
  explicit SchemaTree(const std::vector<ToolSpec>& tools) {
    for (const ToolSpec& tool : tools) {
      const Json schema = Json::parse(tool.parameters_json, nullptr, false);
      roots_.emplace_back(tool.name, Add(schema, 0));
    }
  }
  int Root(std::string_view tool) const {
    for (const auto& [name, id] : roots_) {
      if (name == tool) return id;
    }
    return -1;
  }
  ParamType Type(int node) const { return node < 0 ? ParamType::kAny : nodes_[node].type; }
  bool Nullable(int node) const { return node >= 0 && nodes_[node].nullable; }
  // The schema of child element `tag`: a property, or for an array its items (elements are
  // written as `item`, but any name is an element of an array).
  int Child(int node, std::string_view tag) const {
    if (node < 0) return -1;
    const Node& n = nodes_[node];
    if (n.type == ParamType::kArray) return n.items;
    for (const auto& [key, id] : n.props) {
      if (key == tag) return id;
    }
    return -1;
  }

 private:
  struct Node {
    ParamType type = ParamType::kAny;
    bool nullable = false;  // the schema also allows null
    int items = -1;
    std::vector<std::pair<std::string, int>> props;
  };

  static ParamType TypeName(const Json& t) {
    return t.is_string() ? ParamTypeFromName(t.get<std::string>()) : ParamType::kAny;
  }

  // The one non-null alternative of anyOf/oneOf, else the schema itself; `nullable` set when
  // there was a null alternative.
  static const Json& Effective(const Json& schema, bool& nullable) {
    for (const char* key : {"anyOf", "oneOf"}) {
      auto it = schema.find(key);
      if (it == schema.end() || !it->is_array()) continue;
      const Json* only = nullptr;
      int count = 0;
      bool null = false;
      for (const Json& alt : *it) {
        if (alt.is_object() && alt.contains("type") && TypeName(alt["type"]) == ParamType::kNull) {
          null = true;
          continue;
        }
        only = &alt;
        ++count;
      }
      nullable = nullable || null;
      if (count == 1 && only->is_object()) return *only;
    }
    return schema;
  }

  int Add(const Json& raw, int depth) {
    if (!raw.is_object() || depth > static_cast<int>(kMaxSchemaDepth)) return -1;
    Node node;
    const Json& schema = Effective(raw, node.nullable);
    if (auto n = raw.find("nullable"); n != raw.end() && n->is_boolean() && n->get<bool>())
      node.nullable = true;  // OpenAPI's spelling
    if (auto t = schema.find("type"); t != schema.end()) {
      if (t->is_array()) {
        int count = 0;
        for (const Json& each : *t) {
          if (TypeName(each) == ParamType::kNull) {
            node.nullable = true;
            continue;
          }
          node.type = TypeName(each);
          ++count;
        }
        if (count != 1) node.type = ParamType::kAny;
      } else {
        node.type = TypeName(*t);
      }
    } else if (schema.contains("properties")) {
      node.type = ParamType::kObject;
    } else if (auto e = schema.find("enum"); e != schema.end() && e->is_array() && !e->empty()) {
      bool strings = true;
      for (const Json& v : *e)
        strings = strings && v.is_string();
      if (strings) node.type = ParamType::kString;
    } else if (schema.contains("items")) {
      node.type = ParamType::kArray;
    }
    const int id = static_cast<int>(nodes_.size());
    nodes_.push_back(std::move(node));
    if (auto p = schema.find("properties"); p != schema.end() && p->is_object()) {
      for (const auto& [key, sub] : p->items()) {
        const int child = Add(sub, depth + 1);
        nodes_[id].props.emplace_back(key, child);
      }
    }
    if (auto it = schema.find("items"); it != schema.end()) nodes_[id].items = Add(*it, depth + 1);
    return id;
  }

  std::vector<Node> nodes_;
  std::vector<std::pair<std::string, int>> roots_;
};

bool IsJsonNumber(std::string_view t) {
  return !t.empty() && (t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) && IsJsonValue(t);
}

class M3InvokeDecoder final : public CallDecoder {
 public:
  explicit M3InvokeDecoder(const ToolParserOptions& options)
      : options_(options), schemas_(options.tools) {}

  // Every per-call field: a call abandoned mid-value (the end of a stream, a malformed call)
  // must leave nothing behind for the next call or the next stream.
  void Restart() override {
    state_ = State::kName;
    committed_ = false;
    string_value_ = false;
    skip_value_ = false;
    pending_ = false;
    root_ = -1;
    node_ = -1;
    name_.clear();
    tag_.clear();
    scratch_.clear();
    pending_key_.clear();
    keys_.clear();
    stack_.clear();
    tokens_.clear();
    occurrences_.clear();
    writer_.Reset();
  }

  Status Feed(std::string_view text, bool at_end, size_t& consumed, CallSink& sink) override {
    size_t i = 0;
    while (i < text.size()) {
      const std::string_view rest = text.substr(i);
      size_t used = 0;
      Flow flow = Flow::kContinue;
      switch (state_) {
        case State::kName:
          flow = StepName(rest, at_end, used);
          break;
        case State::kBetween:
          flow = StepBetween(rest, at_end, used);
          break;
        case State::kTag:
          flow = StepTag(rest, used, sink);
          break;
        case State::kValue:
          flow = StepValue(rest, at_end, used, sink);
          break;
      }
      i += used;
      if (flow == Flow::kContinue) continue;
      consumed = i;
      if (flow == Flow::kWait) return Status::kNeedMore;
      return flow == Flow::kDone ? Status::kDone : Status::kError;
    }
    consumed = text.size();
    return Status::kNeedMore;
  }

 private:
  enum class State : uint8_t { kName, kBetween, kTag, kValue };
  enum class Flow : uint8_t { kContinue, kWait, kDone, kError };
  enum class TokenKind : uint8_t { kOpen, kClose, kText };
  struct Token {
    TokenKind kind;
    std::string text;
  };

  static const text::MarkerSet& NameClose() {
    static const text::MarkerSet set{"\">"};
    return set;
  }
  static const text::MarkerSet& Ns() {
    static const text::MarkerSet set{kNs};
    return set;
  }

  Flow StepName(std::string_view rest, bool at_end, size_t& used) {
    const size_t window = std::min(rest.size(), kMaxTag + 2);
    const text::ScanResult hit =
        NameClose().Scan(rest.substr(0, window), at_end || window < rest.size());
    const std::string_view part = rest.substr(0, hit.pos);
    used = 0;
    while (used < part.size() && part[used] != '\n' && part[used] != '<' &&
           name_.size() + used < kMaxTag) {
      ++used;
    }
    name_.append(part.substr(0, used));
    if (used < part.size()) return Flow::kError;
    if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
    used += hit.length;
    if (text::Trim(name_).empty()) return Flow::kError;
    name_.assign(std::string(text::Trim(name_)));
    root_ = schemas_.Root(name_);
    state_ = State::kBetween;
    return Flow::kContinue;
  }

  // Between parameters: whitespace, then NS and a tag.
  Flow StepBetween(std::string_view rest, bool at_end, size_t& used) {
    used = 0;
    while (used < rest.size() && text::IsSpace(rest[used]))
      ++used;
    if (used == rest.size()) return Flow::kWait;
    const text::ScanResult hit = ScanAtStart(Ns(), rest.substr(used), at_end);
    if (hit.status == text::ScanStatus::kNone) return Flow::kError;
    if (hit.status == text::ScanStatus::kPartial) return Flow::kWait;
    used += hit.length;
    tag_.clear();
    state_ = State::kTag;
    return Flow::kContinue;
  }

  // `<tag>` or `</tag>` after NS.
  Flow StepTag(std::string_view rest, size_t& used, CallSink& sink) {
    used = 0;
    while (used < rest.size() && rest[used] != '>') {
      const char c = rest[used];
      if (c == '\n' || (c == '<' && !tag_.empty()) || tag_.size() >= kMaxTag) return Flow::kError;
      tag_.push_back(c);
      ++used;
    }
    if (used == rest.size()) return Flow::kWait;
    ++used;  // '>'
    if (tag_.size() < 2 || tag_[0] != '<') return Flow::kError;
    const std::string_view tag = std::string_view(tag_).substr(1);
    return stack_.empty() ? TopTag(tag, sink) : NestedTag(tag, sink);
  }

  Flow TopTag(std::string_view tag, CallSink& sink) {
    if (!committed_) {
      committed_ = true;
      sink.BeginCall(name_);
    }
    if (tag == "/invoke") {
      if (!FlushPending(sink)) return Flow::kError;
      scratch_.clear();
      writer_.Close(scratch_);
      sink.Args(scratch_);
      sink.EndCall();
      return Flow::kDone;
    }
    if (tag[0] == '/') return Flow::kError;
    if (pending_ && tag == pending_key_) {  // the same parameter again: one more element
      occurrences_.push_back(tokens_.size());
      stack_.assign(1, std::string(tag));
      state_ = State::kValue;
      return Flow::kContinue;
    }
    if (!FlushPending(sink)) return Flow::kError;
    StartValue(tag, sink);
    state_ = State::kValue;
    return Flow::kContinue;
  }

  Flow NestedTag(std::string_view tag, CallSink& sink) {
    if (tag[0] != '/') {
      if (string_value_) return Flow::kError;
      stack_.emplace_back(tag);
      if (!skip_value_) tokens_.push_back({TokenKind::kOpen, std::string(tag)});
      state_ = State::kValue;
      return Flow::kContinue;
    }
    if (tag.substr(1) != stack_.back()) return Flow::kError;
    stack_.pop_back();
    if (!stack_.empty()) {
      if (!skip_value_) tokens_.push_back({TokenKind::kClose, {}});
      state_ = State::kValue;
      return Flow::kContinue;
    }
    if (!EndValue(sink)) return Flow::kError;
    state_ = State::kBetween;
    return Flow::kContinue;
  }

  Flow StepValue(std::string_view rest, bool at_end, size_t& used, CallSink& sink) {
    const text::ScanResult hit = Ns().Scan(rest, at_end);
    ValueText(rest.substr(0, hit.pos), sink);
    used = hit.pos;
    if (hit.status != text::ScanStatus::kFound) return Flow::kWait;
    used += hit.length;
    tag_.clear();
    state_ = State::kTag;
    return Flow::kContinue;
  }

  // A top-level parameter opens. String parameters stream; others are decoded at their
  // closing tag. An untyped or array-typed one is held until the next tag shows whether the
  // same parameter follows again (repeated elements are the elements of an array).
  void StartValue(std::string_view key, CallSink& sink) {
    stack_.assign(1, std::string(key));
    tokens_.clear();
    occurrences_.assign(1, 0);
    node_ = schemas_.Child(root_, key);
    const ValueType type = ValueTypeOf(options_, name_, key);
    string_value_ = type.type == ParamType::kString;
    skip_value_ = !keys_.emplace(key).second;  // a repeated key: the first value wins
    if (skip_value_) return;
    const ParamType tree_type = schemas_.Type(node_);
    if (!string_value_ && (tree_type == ParamType::kAny || tree_type == ParamType::kArray)) {
      pending_ = true;
      pending_key_.assign(key);
      return;
    }
    scratch_.clear();
    writer_.Key(scratch_, key);
    if (string_value_) string_.Start(ValueTrim::kNone, type.nullable, scratch_);
    sink.Args(scratch_);
  }

  void ValueText(std::string_view text, CallSink& sink) {
    if (text.empty() || skip_value_) return;
    if (string_value_) {
      scratch_.clear();
      string_.Append(text, scratch_);
      if (!scratch_.empty()) sink.Args(scratch_);
    } else if (tokens_.size() > occurrences_.back() && tokens_.back().kind == TokenKind::kText) {
      tokens_.back().text.append(text);
    } else {
      tokens_.push_back({TokenKind::kText, std::string(text)});
    }
  }

  bool EndValue(CallSink& sink) {
    if (skip_value_ || pending_) return true;
    scratch_.clear();
    if (string_value_) {
      string_.End(scratch_);
    } else {
      if (!ValueJson(0, tokens_.size(), node_, scratch_)) return false;
    }
    sink.Args(scratch_);
    return true;
  }

  // Writes a held parameter: its one value, or the array of its repeated elements (each
  // decoded by the array's item schema).
  bool FlushPending(CallSink& sink) {
    if (!pending_) return true;
    pending_ = false;
    scratch_.clear();
    writer_.Key(scratch_, pending_key_);
    if (occurrences_.size() == 1) {
      if (!ValueJson(0, tokens_.size(), node_, scratch_)) return false;
    } else {
      const int item = schemas_.Child(node_, "item");
      scratch_ += '[';
      for (size_t k = 0; k < occurrences_.size(); ++k) {
        const size_t end = k + 1 < occurrences_.size() ? occurrences_[k + 1] : tokens_.size();
        if (k > 0) scratch_ += ", ";
        if (!ValueJson(occurrences_[k], end, item, scratch_)) return false;
      }
      scratch_ += ']';
    }
    sink.Args(scratch_);
    return true;
  }

  // How an element's content decodes: text (a leaf), or child elements that are all `item`
  // (an array, unless the schema says object) or named by keys (an object).
  enum class Shape : uint8_t { kLeaf, kArray, kObject };
  struct Element {
    int node = -1;  // schema node
    Shape shape = Shape::kLeaf;
    bool same_prev = false;  // the previous sibling element has the same tag
    bool same_next = false;  // so has the next one
    bool merge = false;      // a run of same-tag siblings that becomes one array member
  };

  // A container being written by ValueJson.
  struct Open {
    Shape shape;
    bool close_run = false;  // this element ends a run: `]` after its own closer
    bool first = true;
    bool run_open = false;                           // objects: a run's array is open
    std::unordered_set<std::string_view> keys = {};  // objects: the first value of a key wins
  };

  // Writes what comes before an element's value inside `parent`: the separator and, in an
  // object, the key (and the '[' that opens a run of same-tag siblings). `last_of_run`: the
  // element ends such a run. False when the key was seen before: the element is skipped.
  static bool BeforeValue(const Token& token, const Element& element, Open& parent,
                          std::string& out, bool& last_of_run) {
    if (parent.shape != Shape::kObject) {
      if (!parent.first) out += ", ";
      parent.first = false;
      return true;
    }
    if (element.same_prev && parent.run_open) {
      out += ", ";
    } else {
      if (!parent.keys.insert(token.text).second) return false;
      if (!parent.first) out += ", ";
      parent.first = false;
      text::AppendJsonString(out, token.text);
      out += ": ";
      parent.run_open = element.merge;
      if (parent.run_open) out += '[';
    }
    last_of_run = parent.run_open && !element.same_next;
    if (last_of_run) parent.run_open = false;
    return true;
  }

  // The JSON of tokens_[begin, end) (the content of one top-level element, schema `node`),
  // appended to `out`; false when text is mixed with elements. Three passes with explicit
  // stacks, so any depth and width decode in linear time: the first pairs each element with
  // its neighbouring siblings, the second finds each element's shape (known only at its
  // closing tag), the third writes the JSON front to back. In an object, a run of sibling
  // elements with the same tag is one member whose value is the array of their values
  // (`<k>a</k><k>b</k>` → "k": ["a", "b"]) unless the schema gives the member a type other
  // than array; then, as for a key repeated further apart, the first value wins.
  bool ValueJson(size_t begin, size_t end, int node, std::string& out) const {
    std::vector<Element> elements(end - begin);  // indexed by kOpen token - begin
    Siblings(begin, end, elements);
    Element root{node, Shape::kLeaf};
    if (!Shapes(begin, end, elements, root)) return false;
    if (root.shape == Shape::kLeaf) {
      out += Leaf(LeafText(begin, end), root.node);
      return true;
    }
    std::vector<Open> stack;
    stack.push_back({root.shape});
    out += root.shape == Shape::kArray ? '[' : '{';
    for (size_t i = begin; i < end; ++i) {
      const Token& token = tokens_[i];
      if (token.kind == TokenKind::kText) continue;  // whitespace between elements
      if (token.kind == TokenKind::kClose) {
        out += stack.back().shape == Shape::kArray ? ']' : '}';
        if (stack.back().close_run) out += ']';
        stack.pop_back();
        continue;
      }
      const Element& element = elements[i - begin];
      bool last_of_run = false;
      if (!BeforeValue(token, element, stack.back(), out, last_of_run)) {
        i = SkipElement(i, end);
        continue;
      }
      if (element.shape == Shape::kLeaf) {
        out += Leaf(LeafText(i + 1, end), element.node);
        if (last_of_run) out += ']';
        i = SkipElement(i, end);
        continue;
      }
      stack.push_back({element.shape, last_of_run});
      out += element.shape == Shape::kArray ? '[' : '{';
    }
    out += stack.back().shape == Shape::kArray ? ']' : '}';
    return true;
  }

  // First pass: which elements have a sibling with the same tag right before or after them.
  void Siblings(size_t begin, size_t end, std::vector<Element>& elements) const {
    constexpr size_t kNone = static_cast<size_t>(-1);
    std::vector<size_t> last_child{kNone};  // per open element: its last child so far
    for (size_t i = begin; i < end; ++i) {
      const Token& token = tokens_[i];
      if (token.kind == TokenKind::kOpen) {
        const size_t previous = last_child.back();
        if (previous != kNone && tokens_[previous].text == token.text) {
          elements[i - begin].same_prev = true;
          elements[previous - begin].same_next = true;
        }
        last_child.back() = i;
        last_child.push_back(kNone);
      } else if (token.kind == TokenKind::kClose) {
        last_child.pop_back();
      }
    }
  }

  // Second pass: the schema node and shape of every element (and of the root).
  bool Shapes(size_t begin, size_t end, std::vector<Element>& elements, Element& root) const {
    struct Pending {
      Element* element;
      bool children = false;
      bool all_items = true;
      bool text = false;  // non-blank text
    };
    std::vector<Pending> stack{{&root}};
    auto close = [this](Pending& p) {
      if (!p.children) return true;  // a leaf
      if (p.text) return false;      // text mixed with elements
      const ParamType type = schemas_.Type(p.element->node);
      const bool array = (p.all_items || type == ParamType::kArray) && type != ParamType::kObject;
      p.element->shape = array ? Shape::kArray : Shape::kObject;
      return true;
    };
    for (size_t i = begin; i < end; ++i) {
      const Token& token = tokens_[i];
      Pending& top = stack.back();
      if (token.kind == TokenKind::kText) {
        top.text = top.text || !text::Trim(token.text).empty();
      } else if (token.kind == TokenKind::kOpen) {
        top.children = true;
        top.all_items = top.all_items && token.text == "item";
        Element& element = elements[i - begin];
        const int parent = top.element->node;
        element.node = schemas_.Child(parent, token.text);
        if ((element.same_prev || element.same_next) &&
            schemas_.Type(parent) != ParamType::kArray) {
          const ParamType type = schemas_.Type(element.node);
          element.merge = type == ParamType::kAny || type == ParamType::kArray;
          if (element.merge) element.node = schemas_.Child(element.node, "item");
        }
        stack.push_back({&element});
      } else {
        if (!close(top)) return false;
        stack.pop_back();
      }
    }
    return close(stack.back());
  }

  // The text of a leaf whose content starts at tokens_[i].
  std::string LeafText(size_t i, size_t end) const {
    std::string text;
    for (; i < end && tokens_[i].kind == TokenKind::kText; ++i)
      text += tokens_[i].text;
    return text;
  }

  // The index of the closing token of the element opened at tokens_[open].
  size_t SkipElement(size_t open, size_t end) const {
    size_t depth = 0;
    for (size_t i = open; i < end; ++i) {
      if (tokens_[i].kind == TokenKind::kOpen) ++depth;
      if (tokens_[i].kind == TokenKind::kClose && --depth == 0) return i;
    }
    return end;
  }

  std::string Leaf(std::string_view text, int node) const {
    const ParamType type = schemas_.Type(node);
    const std::string_view t = text::Trim(text);
    std::string out;
    if (schemas_.Nullable(node) && t == "null") return "null";
    switch (type) {
      case ParamType::kString:
        break;
      case ParamType::kObject:
        return t.empty() ? "{}" : ConvertTyped(t, type, false);
      case ParamType::kArray:
        return t.empty() ? "[]" : ConvertTyped(t, type, false);
      case ParamType::kAny:
        if (t == "true" || t == "false" || IsJsonNumber(t)) return std::string(t);
        break;
      default:
        return ConvertTyped(t, type, false);
    }
    text::AppendJsonString(out, text);
    return out;
  }

  const ToolParserOptions& options_;
  const SchemaTree schemas_;
  State state_ = State::kName;
  bool committed_ = false;
  bool string_value_ = false;
  bool skip_value_ = false;
  bool pending_ = false;  // a decoded parameter waits for the next tag (FlushPending)
  int root_ = -1;
  int node_ = -1;
  std::string name_, tag_, scratch_, pending_key_;
  std::unordered_set<std::string> keys_;  // top-level keys seen in this call
  std::vector<std::string> stack_;
  std::vector<Token> tokens_;        // the value being decoded (all elements of a held one)
  std::vector<size_t> occurrences_;  // where each element of the held parameter starts
  ArgsWriter writer_;
  StringValue string_;
};

std::unique_ptr<CallDecoder> MakeInvokeDecoder(const ToolParserOptions& options) {
  return std::make_unique<M3InvokeDecoder>(options);
}

const TagFamily& Family() {
  static const TagFamily family(TagFamilyDef{
      .container_open = "]<]minimax[>[<tool_call>",
      .container_close = "]<]minimax[>[</tool_call>",
      .custom_start = "]<]minimax[>[<invoke name=\"",
      .custom = MakeInvokeDecoder,
  });
  return family;
}

// Writes the JSON value `json` (valid) as the template expands it: members as child elements
// (null members omitted), list elements as `item` elements, strings as their text, other
// scalars as written. Walks the text with a stack of the tags to close.
void AppendXml(std::string& out, std::string_view json) {
  using Kind = text::JsonTokenReader::Kind;
  text::JsonTokenReader reader(json);
  struct Open {
    bool object;
    std::string tag;  // this container's own element ("" for the top-level value)
  };
  std::vector<Open> stack;
  for (auto token = reader.Next(); token.kind != Kind::kEnd; token = reader.Next()) {
    if (token.kind == Kind::kObjectEnd || token.kind == Kind::kArrayEnd) {
      if (!stack.back().tag.empty())
        out.append(kNs).append("</").append(stack.back().tag).append(">");
      stack.pop_back();
      continue;
    }
    std::string tag;
    if (!stack.empty() && stack.back().object) {  // a member: its key, then its value
      tag = DecodedString(token.raw);
      token = reader.Next();
      if (token.kind == Kind::kNull) continue;
    } else if (!stack.empty()) {
      tag = "item";
    }
    if (!tag.empty()) out.append(kNs).append("<").append(tag).append(">");
    if (token.kind == Kind::kObjectBegin || token.kind == Kind::kArrayBegin) {
      stack.push_back({token.kind == Kind::kObjectBegin, std::move(tag)});
      continue;
    }
    if (token.kind == Kind::kString) {
      out.append(DecodedString(token.raw));
    } else if (token.kind != Kind::kNull) {
      out.append(token.raw);
    }
    if (!tag.empty()) out.append(kNs).append("</").append(tag).append(">");
  }
}

}  // namespace

std::unique_ptr<ToolParser> MakeMinimaxM3Parser(const ToolParserOptions& options) {
  return MakeTagParser(Family(), options);
}

}  // namespace crux::parse::tools::tags

namespace crux::parse::tools {

const ToolParserInfo& MinimaxM3ToolFormat() {
  using S = CallGrammar::Slot;
  static const CallGrammar grammar{
      .open = "]<]minimax[>[<tool_call>\n",
      .close = "]<]minimax[>[</tool_call>",
      .call = {{S::kText, "]<]minimax[>[<invoke name=\""},
               {S::kName},
               {S::kText, "\">"},
               {S::kArguments},
               {S::kText, "]<]minimax[>[</invoke>\n"}},
      .args = CallGrammar::Args::kCustom,
      // The form a constrained decoder writes: each parameter one element, a string raw up to
      // the next tag, any other value as JSON text, which the parser reads by the parameter's
      // schema ({"k": [1]} as NS<k>[1]NS</k>).
      .argument = {{S::kText, "]<]minimax[>[<"},
                   {S::kKey},
                   {S::kText, ">"},
                   {S::kValue},
                   {S::kText, "]<]minimax[>[</"},
                   {S::kKeyAgain},
                   {S::kText, ">"}},
      .write_arguments = tags::AppendXml,
      .value_stop = "]<]minimax[>[",
      .untyped_scalars = true,
  };
  static const ToolParserInfo format{
      .name = "minimax_m3",
      .aliases = {"minimax-m3"},
      .models = "MiniMax-M3",
      .format =
          "]<]minimax[>[<tool_call> ]<]minimax[>[<invoke name=\"f\">]<]minimax[>[<k>v"
          "]<]minimax[>[</k>… (nested XML values)",
      .create = tags::MakeMinimaxM3Parser,
      .grammar = &grammar,
      .detect_markers = {"]<]minimax[>["},
      .template_needles = {{80, "]<]minimax[>[", ""}},
  };
  return format;
}

}  // namespace crux::parse::tools
