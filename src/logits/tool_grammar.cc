#include "tool_grammar.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "crux/text/json_scan.h"
#include "crux/text/stream_buffer.h"

namespace crux::logits::tools {

std::vector<std::pair<std::string_view, uint8_t>> TypeWords(uint8_t types, TypeWordSlots slots) {
  std::vector<std::pair<std::string_view, uint8_t>> words;
  if (slots.is_string) {
    if ((types & constrain::kTypeString) != 0) words.emplace_back("true", constrain::kTypeString);
    const auto others = static_cast<uint8_t>(types & ~constrain::kTypeString);
    if (others != 0) words.emplace_back("false", others);
  } else if (slots.value_type) {
    static constexpr std::pair<std::string_view, uint8_t> kWords[] = {
        {"string", constrain::kTypeString}, {"integer", constrain::kTypeInteger},
        {"number", constrain::kTypeNumber}, {"boolean", constrain::kTypeBoolean},
        {"null", constrain::kTypeNull},     {"object", constrain::kTypeObject},
        {"array", constrain::kTypeArray}};
    for (const auto& [word, bit] : kWords) {
      if ((types & bit) == 0) continue;
      if (bit == constrain::kTypeInteger && (types & constrain::kTypeNumber) != 0) continue;
      words.emplace_back(word, bit);
    }
  }
  return words;
}

uint8_t EnumTypes(const constrain::SchemaNode& node) {
  std::vector<std::string> values = node.enum_values;
  if (node.const_value) values.push_back(*node.const_value);
  uint8_t types = 0;
  for (const std::string& value : values) {
    const char first = value.empty() ? ' ' : value[0];
    if (first == '"')
      types |= constrain::kTypeString;
    else if (first == '{')
      types |= constrain::kTypeObject;
    else if (first == '[')
      types |= constrain::kTypeArray;
    else if (first == 't' || first == 'f')
      types |= constrain::kTypeBoolean;
    else if (first == 'n')
      types |= constrain::kTypeNull;
    else
      types |= constrain::kTypeNumber | constrain::kTypeInteger;
  }
  return types;
}

namespace {

using Slot = parse::CallGrammar::Slot;

OpKind KindOf(Slot slot) {
  switch (slot) {
    case Slot::kName:
      return OpKind::kName;
    case Slot::kNameString:
      return OpKind::kNameString;
    case Slot::kId:
      return OpKind::kId;
    case Slot::kIndex:
      return OpKind::kIndex;
    case Slot::kIndex1:
      return OpKind::kIndex1;
    case Slot::kArguments:
      return OpKind::kArgs;
    case Slot::kKey:
      return OpKind::kKey;
    case Slot::kKeyAgain:
      return OpKind::kKeyAgain;
    case Slot::kValue:
      return OpKind::kValue;
    case Slot::kValueType:
      return OpKind::kValueType;
    case Slot::kIsString:
      return OpKind::kIsString;
    case Slot::kText:
      break;
  }
  return OpKind::kText;
}

// Appends `parts` as ops (consecutive texts merged), each op's next the following one; returns
// the index of the first.
uint32_t AppendParts(std::vector<Op>& ops, const std::vector<parse::CallGrammar::Part>& parts) {
  const auto first = static_cast<uint32_t>(ops.size());
  for (const parse::CallGrammar::Part& part : parts) {
    const OpKind kind = KindOf(part.slot);
    if (kind == OpKind::kText && !ops.empty() && ops.size() > first &&
        ops.back().kind == OpKind::kText) {
      ops.back().text.append(part.text);
      continue;
    }
    ops.push_back({kind, kind == OpKind::kText ? std::string(part.text) : std::string(), 0});
  }
  for (auto i = first; i < ops.size(); ++i)
    ops[i].next = i + 1;
  return first;
}

std::vector<uint32_t> Failure(std::string_view text) {
  std::vector<uint32_t> kmp(text.size(), 0);
  uint32_t k = 0;
  for (size_t i = 1; i < text.size(); ++i) {
    while (k > 0 && text[i] != text[k])
      k = kmp[k - 1];
    if (text[i] == text[k]) ++k;
    kmp[i] = k;
  }
  return kmp;
}

// A branch alternative: `prefix` then op `target`, absorbing the target's text.
Grammar::Alternative MakeAlternative(const Grammar& g, std::string prefix, uint32_t target) {
  if (target != kNone && g.ops[target].kind == OpKind::kText) {
    prefix += g.ops[target].text;
    target = g.ops[target].next;
  }
  return {std::move(prefix), target};
}

void AddWord(Param& param, std::string word, uint8_t bits) {
  param.type_trie.Add(word, static_cast<uint32_t>(param.type_words.size()));
  param.type_words.push_back(std::move(word));
  param.type_bits.push_back(bits);
}

// A schema that admits strings and holds them to its own keywords alone (no combination of
// schemas).
bool PlainString(const constrain::SchemaNode& node) {
  return !node.always_false && (node.types & constrain::kTypeString) != 0 &&
         node.ref == constrain::kNoNode && node.all_of.empty() && node.any_of.empty() &&
         node.one_of.empty();
}

// Whether a raw value enforces all that `node` (PlainString) asks of strings: minLength,
// maxLength, enum and const, but not a pattern or a format.
bool RawEnforces(const constrain::SchemaNode& node) {
  return node.pattern.empty() && node.format == constrain::StringFormat::kNone;
}

// The node that holds a parameter's string keywords: the parameter's schema itself, or its one
// string branch beside `null` ones (Optional[str] is anyOf [string, null]). kNoNode for other
// combinations of schemas.
constrain::NodeId RawStringNode(const constrain::SchemaIr& ir, constrain::NodeId id) {
  const constrain::SchemaNode& node = ir.node(id);
  if (node.any_of.empty() && node.one_of.empty())
    return PlainString(node) ? id : constrain::kNoNode;
  const std::vector<constrain::NodeId>& branches = node.any_of.empty() ? node.one_of : node.any_of;
  constrain::SchemaNode own = node;  // its own keywords must leave strings alone
  own.any_of.clear();
  own.one_of.clear();
  if (!node.any_of.empty() && !node.one_of.empty()) return constrain::kNoNode;
  if (!PlainString(own) || own.has_enum || own.const_value || own.min_length != 0 ||
      own.max_length != UINT64_MAX || !RawEnforces(own)) {
    return constrain::kNoNode;
  }
  constrain::NodeId found = constrain::kNoNode;
  for (const constrain::NodeId branch : branches) {
    if (ir.node(branch).types == constrain::kTypeNull) continue;
    if (found != constrain::kNoNode || !PlainString(ir.node(branch))) return constrain::kNoNode;
    found = branch;
  }
  return found;
}

// The raw-string facts and type words of one parameter; `strings`: the node of its string
// keywords (RawStringNode, or the parameter's own schema where there is none).
void DescribeParam(const parse::ToolSpec& spec, const constrain::SchemaNode& node,
                   const constrain::SchemaNode& strings, bool exact, bool value_type,
                   bool is_string, bool python, std::string_view quote, Param& param) {
  // `param.json_types` is set by the caller.
  param.types = node.types;
  // Quoted formats write a string raw only where that enforces all its schema asks, and as a
  // JSON string otherwise; formats that write every string raw hold it to what a raw value can.
  param.raw =
      !python && (quote.empty() || exact) && spec.TypeOf(param.name) == parse::ParamType::kString;
  param.min_length = strings.min_length;
  param.max_length = strings.max_length;
  if (strings.has_enum || strings.const_value) {
    std::vector<std::string> values = strings.enum_values;
    if (strings.const_value) values = {*strings.const_value};
    for (const std::string& value : values) {
      std::string decoded;
      if (value.size() < 2 || value.front() != '"') continue;
      if (!text::DecodeJsonString(std::string_view(value).substr(1, value.size() - 2), decoded))
        continue;
      // A value holding the quote cannot be written between quotes: JSON strings it is.
      if (!quote.empty() && decoded.find(quote) != std::string::npos) param.raw = false;
      param.enum_trie.Add(decoded, 0);
      param.has_enum = true;
    }
  }
  uint8_t types = node.types == 0 ? static_cast<uint8_t>(constrain::kTypeAny) : node.types;
  if (node.has_enum || node.const_value) types &= EnumTypes(node);
  if (param.json_types != 0 && !param.raw) types &= param.json_types;
  for (const auto& [word, bits] :
       TypeWords(types, {.value_type = value_type, .is_string = is_string}))
    AddWord(param, std::string(word), bits);
}

// A function name in Python call syntax, as the families' parsers read it: [A-Za-z0-9_.-]+.
bool IsName(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

// A Python keyword: [A-Za-z_][A-Za-z0-9_]*.
bool IsIdentifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// A key that custom key-value arguments may write bare (`k:`), as Gemma's literal reader takes
// it: not blank at either end, none of : { } [ ] , " and not starting with the quote.
bool IsBareKey(std::string_view name, std::string_view quote) {
  if (name.empty() || text::IsSpace(name.front()) || text::IsSpace(name.back())) return false;
  if (name.starts_with(quote)) return false;
  return name.find_first_of(":{}[],\"") == std::string_view::npos;
}

// The types of JSON value that a family reading untyped values as scalars
// (CallGrammar::untyped_scalars) reads back as written, for a parameter the parser sees as
// `param`: its one declared type, or numbers and booleans where it has none; null too where
// the parameter allows null. A string-typed parameter is written raw instead.
uint8_t ScalarReadTypes(const parse::ToolParam& param) {
  using parse::ParamType;
  uint8_t types = 0;
  switch (param.type) {
    case ParamType::kAny:
      types = constrain::kTypeNumber | constrain::kTypeInteger | constrain::kTypeBoolean;
      break;
    case ParamType::kString:
      types = constrain::kTypeString;
      break;
    case ParamType::kInteger:
      types = constrain::kTypeInteger;
      break;
    case ParamType::kNumber:
      types = constrain::kTypeNumber | constrain::kTypeInteger;
      break;
    case ParamType::kBoolean:
      types = constrain::kTypeBoolean;
      break;
    case ParamType::kObject:
      types = constrain::kTypeObject;
      break;
    case ParamType::kArray:
      types = constrain::kTypeArray;
      break;
    case ParamType::kNull:
      break;
  }
  if (param.nullable || param.type == ParamType::kNull) types |= constrain::kTypeNull;
  return types;
}

// The types the values of node `id` can have, as far as its own keywords, its reference and its
// combinations say; never narrower than the truth (deep nesting reads as any type), with
// integers counted among numbers.
// The longest name a family's parser reads (parse/tools' kMaxNameLength).
constexpr size_t kMaxName = 256;

// How the arguments write parameter `name`: bare, or (in a quoted format, where it cannot be
// bare) as a JSON string; an error where the format cannot write it.
Expected<std::string> ParamKey(const Grammar& g, const parse::ToolSpec& spec,
                               const std::string& name) {
  if (g.python && !IsIdentifier(name)) {
    return Error(ErrorCode::kUnsupported, "tool '" + spec.name + "': parameter '" + name +
                                              "' is not a Python identifier, which a Python "
                                              "keyword argument needs");
  }
  if (g.quote.empty()) return name;
  std::string key = name;
  if (!IsBareKey(name, g.quote)) {
    key.clear();
    text::AppendJsonString(key, name);
  }
  if (key.size() > kMaxName) {
    return Error(ErrorCode::kUnsupported, "tool '" + spec.name + "': parameter name longer than " +
                                              std::to_string(kMaxName) +
                                              " bytes, which this call format cannot read");
  }
  return key;
}

Error Unwritable(const parse::ToolSpec& spec, const Param& param) {
  return Error(ErrorCode::kUnsupported,
               "tool '" + spec.name + "': parameter '" + param.name +
                   "' is required, but no value its schema allows reads back as written in this "
                   "call format (its parser reads the value of a parameter without one declared "
                   "type as a number or true or false, and anything else as a string)");
}

Expected<bool> MakeParams(const parse::CallGrammar& family, const parse::ToolSpec& spec,
                          const Grammar& g, Tool& tool) {
  const bool python = g.python;
  const constrain::SchemaNode& root = tool.ir->node(tool.ir->root);
  if (root.properties.size() > 64) {
    return Error(ErrorCode::kInvalidArgument,
                 "tool '" + spec.name + "': more than 64 parameters in a key-value call format");
  }
  bool value_type = false;
  bool is_string = false;
  for (const auto& part : family.argument) {
    value_type = value_type || part.slot == Slot::kValueType;
    is_string = is_string || part.slot == Slot::kIsString;
  }
  std::map<constrain::NodeId, uint8_t> types;  // PossibleTypes' memo
  for (const constrain::PropertySchema& property : root.properties) {
    Param param;
    param.name = property.name;
    param.node = property.schema;
    auto key = ParamKey(g, spec, param.name);
    if (!key) return key.error();
    param.key = *std::move(key);
    const constrain::NodeId strings = RawStringNode(*tool.ir, property.schema);
    const constrain::SchemaNode& string_node =
        tool.ir->node(strings == constrain::kNoNode ? property.schema : strings);
    const constrain::SchemaNode& node = tool.ir->node(property.schema);
    const parse::ToolParam* read = spec.Param(param.name);
    if (family.untyped_scalars && read != nullptr) param.json_types = ScalarReadTypes(*read);
    const bool raw_exact = strings != constrain::kNoNode && RawEnforces(string_node);
    DescribeParam(spec, node, string_node, raw_exact, value_type, is_string, python, g.quote,
                  param);
    if (param.raw && !raw_exact) tool.exact = false;
    const bool required =
        std::find(root.required.begin(), root.required.end(), param.name) != root.required.end();
    if (!param.raw && param.json_types != 0 &&
        (param.json_types & constrain::PossibleTypes(*tool.ir, property.schema, types)) == 0) {
      // No value of this parameter reads back as written: never offered.
      if (!required) continue;
      return Unwritable(spec, param);
    }
    const auto index = static_cast<uint32_t>(tool.params.size());
    tool.key_trie.Add(param.key, index);
    tool.all |= uint64_t{1} << index;
    if (required) {
      param.required = true;
      tool.required |= uint64_t{1} << index;
    }
    tool.params.push_back(std::move(param));
  }
  for (const std::string& name : root.required) {
    bool declared = false;
    for (const Param& param : tool.params)
      declared = declared || param.name == name;
    if (!declared) {
      return Error(ErrorCode::kUnsupported,
                   "tool '" + spec.name + "': required parameter '" + name +
                       "' is not declared in properties, which a key-value call format needs");
    }
  }
  return true;
}

Expected<bool> MakeTools(Grammar& g, const parse::CallGrammar& family,
                         std::vector<parse::ToolSpec> specs) {
  bool bare = false;
  for (const auto& part : family.call) {
    if (part.slot == Slot::kName) {
      bare = true;
      break;
    }
    if (part.slot == Slot::kNameString) break;
  }
  for (parse::ToolSpec& spec : specs) {
    if (!spec.callable()) continue;
    if (!g.options.forced_tool.empty() && spec.name != g.options.forced_tool) continue;
    if (spec.name.empty()) return Error(ErrorCode::kInvalidArgument, "a tool has no name");
    Tool tool;
    tool.name = spec.name;
    text::AppendJsonString(tool.name_json, spec.name);
    const std::string_view schema =
        spec.parameters_json.empty() ? std::string_view("{}") : spec.parameters_json;
    auto ir = constrain::CompileSchema(schema);
    if (!ir) {
      return Error(ir.error().code(),
                   "tool '" + spec.name + "' parameters: " + ir.error().message());
    }
    tool.ir = std::make_shared<const constrain::SchemaIr>(*std::move(ir));
    tool.exact = tool.ir->not_enforced.empty();
    if ((g.python || !g.quote.empty()) && (!IsName(tool.name) || tool.name.size() > kMaxName)) {
      return Error(ErrorCode::kUnsupported,
                   "tool '" + spec.name +
                       "': a name in this call format is at most 256 letters, digits, "
                       "'_', '.' and '-'");
    }
    if (g.key_value) {
      auto made = MakeParams(family, spec, g, tool);
      if (!made) return made.error();
    }
    g.names.Add(bare ? tool.name : tool.name_json, static_cast<uint32_t>(g.tools.size()));
    g.tools.push_back(std::move(tool));
  }
  if (g.tools.empty()) {
    return Error(ErrorCode::kInvalidArgument,
                 g.options.forced_tool.empty()
                     ? "tool calls: no callable tool declared"
                     : "tool_choice names '" + g.options.forced_tool + "', which is not declared");
  }
  return true;
}

// The program: open text, the call's ops, the branch after a call, the end, and (key-value)
// the branch between arguments with the argument's ops.
Expected<bool> MakeProgram(Grammar& g, const parse::CallGrammar& family) {
  g.ops.push_back({OpKind::kText, std::string(family.open), 1});
  g.block_op = 0;
  g.call_op = AppendParts(g.ops, family.call);
  const auto after_call = static_cast<uint32_t>(g.ops.size());
  g.ops.push_back({OpKind::kAfterCall, {}, kNone});
  g.end_op = static_cast<uint32_t>(g.ops.size());
  g.ops.push_back({OpKind::kEnd, {}, kNone});
  g.ops[after_call - 1].next = after_call;
  uint32_t args_op = kNone;
  for (uint32_t i = g.call_op; i < after_call; ++i) {
    if (g.ops[i].kind == OpKind::kArgs) args_op = i;
  }
  if (args_op == kNone) return Error(ErrorCode::kUnsupported, "call format has no arguments");
  g.args_op = args_op;
  uint32_t members = kNone;
  if (g.key_value) {
    members = static_cast<uint32_t>(g.ops.size());
    g.ops.push_back({OpKind::kMembers, {}, kNone});
    const uint32_t first = AppendParts(g.ops, family.argument);
    g.ops.back().next = members;
    g.ops[members].next = first;
    const uint32_t args_next = g.ops[args_op].next;
    g.ops[args_op].next = members;
    // Python values end themselves; quoted formats end theirs with the quote.
    for (auto i = first; i < g.ops.size() && !g.python && g.quote.empty(); ++i) {
      if (g.ops[i].kind == OpKind::kValue &&
          (g.ops[i].next >= g.ops.size() || g.ops[g.ops[i].next].kind != OpKind::kText ||
           g.ops[g.ops[i].next].next == first)) {
        return Error(ErrorCode::kUnsupported, "argument format has no text after a value");
      }
    }
    // Quoted strings: the quote, the raw value, the quote, then where the value went on.
    const auto argument_end = static_cast<uint32_t>(g.ops.size());
    for (auto i = first; i < argument_end && !g.quote.empty(); ++i) {
      if (g.ops[i].kind != OpKind::kValue) continue;
      const auto open = static_cast<uint32_t>(g.ops.size());
      g.ops[i].quoted = open;
      g.ops.push_back({OpKind::kText, g.quote, open + 1});
      g.ops.push_back({OpKind::kValue, {}, open + 2});
      g.ops.push_back({OpKind::kText, g.quote, g.ops[i].next});
    }
    g.continue_alt.resize(g.ops.size());
    g.continue_first.resize(g.ops.size());
    g.finish_alt.resize(g.ops.size());
    g.continue_first[members] = MakeAlternative(g, "", first);
    g.continue_alt[members] = MakeAlternative(g, std::string(family.argument_separator), first);
    g.finish_alt[members] = MakeAlternative(g, "", args_next);
  }
  g.continue_alt.resize(g.ops.size());
  g.continue_first.resize(g.ops.size());
  g.finish_alt.resize(g.ops.size());
  g.continue_alt[after_call] = MakeAlternative(g, std::string(family.separator), g.call_op);
  g.finish_alt[after_call] = MakeAlternative(g, std::string(family.close), g.end_op);
  return true;
}

// The raw-value classes of `g`'s vocabulary, terminator and CDATA rule, shared by every
// grammar that has the same three (what a class allows depends on nothing else).
std::shared_ptr<Grammar::RawClasses> RawClassesFor(const Grammar& g) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<Grammar::RawClasses>> tables;
  std::string key = std::to_string(g.vocabulary->identity()) + (g.cdata ? "c|" : "r|");
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::kValue && op.quoted == kNone) key += g.ops[op.next].text;
  }
  key += g.marker_key;
  std::lock_guard<std::mutex> lock(mutex);
  if (tables.size() >= 256) tables.clear();  // a bound for hostile variety; tables are shared
  auto& table = tables[key];
  if (!table) table = std::make_shared<Grammar::RawClasses>();
  return table;
}

}  // namespace

std::shared_ptr<const constrain::CompiledGrammar> Grammar::JsonGrammar(uint32_t tool_index,
                                                                       uint32_t param,
                                                                       uint8_t types) const {
  const uint64_t key = (uint64_t{tool_index} << 40) | (uint64_t{param + 1u} << 8) | types;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = grammars.find(key);
  if (found != grammars.end()) return found->second;
  const Tool& tool = tools[tool_index];
  constrain::SchemaIr ir = *tool.ir;
  constrain::SchemaNode node;
  if (param == kNone) {
    node.types = constrain::kTypeObject;
    node.all_of = {ir.root};
  } else {
    node.types = types == 0 ? static_cast<uint8_t>(constrain::kTypeAny) : types;
    node.all_of = {tool.params[param].node};
  }
  ir.nodes.push_back(std::move(node));
  ir.pointers.emplace_back();
  ir.root = static_cast<constrain::NodeId>(ir.nodes.size() - 1);
  constrain::GrammarOptions json = options.json;
  json.document_whitespace = false;
  json.python_literals = python;
  auto compiled = constrain::CompiledGrammar::Compile(ir, vocabulary, json);
  std::shared_ptr<const constrain::CompiledGrammar> grammar =
      compiled ? *std::move(compiled) : nullptr;
  grammars.emplace(key, grammar);
  return grammar;
}

// Raw string values: the shared state classes, the terminator's bytes, the tokens that are
// always safe inside a value and the candidates that must be stepped.
void PrepareRawValues(Grammar& g) {
  g.raw_classes = RawClassesFor(g);
  // Where a terminator holds a marker the value must not hold, the value is over once a
  // pending match of the terminator has reached that marker.
  for (const Op& op : g.ops) {
    if (op.kind != OpKind::kValue || op.quoted != kNone || g.marker_next.empty()) continue;
    Op& after = g.ops[op.next];
    uint32_t state = 0;
    for (uint32_t n = 0; n < after.text.size() && after.sealed == kNone; ++n) {
      if (!g.MarkerStep(state, std::string_view(after.text).substr(n, 1))) after.sealed = n + 1;
    }
  }
  // Raw values end at the text after the value: tokens holding neither its first byte nor
  // the first byte of its marker (the text without blanks) are safe.
  uint8_t stop_first = 0;
  uint8_t core_first = 0;
  for (const Op& op : g.ops) {
    if (op.kind != OpKind::kValue || op.quoted != kNone) continue;  // raw values go quoted
    const std::string& stop = g.ops[op.next].text;
    stop_first = static_cast<uint8_t>(stop[0]);
    const std::string_view core = text::Trim(stop);
    core_first = static_cast<uint8_t>(core.empty() ? stop[0] : core[0]);
  }
  const TokenIndex& index = *g.index;
  g.raw_safe.assign(g.vocabulary->mask_words(), 0);
  std::vector<uint8_t> unsafe(g.vocabulary->size(), 0);
  for (const uint8_t byte : {stop_first, core_first, uint8_t{'&'}, uint8_t{'<'}}) {
    if (byte != stop_first && byte != core_first && !g.cdata) continue;
    for (const uint32_t token : index.containing[byte])
      unsafe[token] = 1;
  }
  for (const uint32_t token : g.marker_tokens)  // a whole marker is stepped, whatever its bytes
    unsafe[token] = 1;
  std::vector<const Op*> stops;
  for (const Op& op : g.ops) {
    if (op.kind == OpKind::kValue && op.quoted == kNone) stops.push_back(&g.ops[op.next]);
  }
  for (uint32_t token = 0; token < g.vocabulary->size(); ++token) {
    if (unsafe[token] && !g.vocabulary->is_special(token)) g.raw_candidates.push_back(token);
    const std::string_view bytes = g.vocabulary->bytes(token);
    if (g.vocabulary->is_special(token) && !TestBit(index.eog_mask, token) &&
        std::any_of(stops.begin(), stops.end(), [&](const Op* stop) {
          return bytes.starts_with(stop->text) || (!bytes.empty() && bytes.size() >= stop->sealed &&
                                                   std::string_view(stop->text).starts_with(bytes));
        }))
      g.raw_special.push_back(token);
    if (unsafe[token] || !index.utf8_ok[token] || g.vocabulary->is_special(token)) continue;
    if ((index.free_mask[token >> 5] >> (token & 31) & 1) == 0) continue;
    g.raw_safe[token >> 5] |= uint32_t{1} << (token & 31);
  }
}

namespace {

// The markers a value of key-value `family` (or the arguments of a family whose parser ends
// them at a marker) must not hold: the texts from the arguments on, without blanks, two bytes
// or longer (`</parameter>`, `<parameter=`, `</function>`, cwm's `</tool>`).
std::vector<std::string> ValueMarkers(const parse::CallGrammar& family) {
  std::vector<std::string> markers;
  auto add = [&markers](std::string_view text) {
    const std::string_view core = text::Trim(text);
    if (core.size() < 2 || std::find(markers.begin(), markers.end(), core) != markers.end()) return;
    markers.emplace_back(core);
  };
  bool after = false;
  for (const parse::CallGrammar::Part& part : family.call) {
    after = after || part.slot == Slot::kArguments;
    if (after && part.slot == Slot::kText) add(part.text);
  }
  for (const parse::CallGrammar::Part& part : family.argument) {
    if (part.slot == Slot::kText) add(part.text);
  }
  add(family.argument_separator);
  add(family.separator);
  add(family.close);
  add(family.value_stop);
  return markers;
}

// The automaton over `markers` (Aho-Corasick, every transition filled in) and the tokens of
// `g`'s vocabulary that hold a whole marker; shared by the grammars of one vocabulary and set
// of markers.
struct MarkerTables {
  std::vector<std::array<uint16_t, 256>> next;
  std::vector<uint8_t> hit;
  std::vector<uint32_t> tokens;
};

std::shared_ptr<const MarkerTables> BuildMarkerTables(const constrain::Vocabulary& vocabulary,
                                                      const std::vector<std::string>& markers) {
  auto t = std::make_shared<MarkerTables>();
  std::vector<std::array<int32_t, 256>> child(1);
  child[0].fill(-1);
  t->hit.assign(1, 0);
  for (const std::string& marker : markers) {
    size_t state = 0;
    for (const char ch : marker) {
      const auto b = static_cast<uint8_t>(ch);
      if (child[state][b] < 0) {
        child[state][b] = static_cast<int32_t>(child.size());
        child.emplace_back().fill(-1);
        t->hit.push_back(0);
      }
      state = static_cast<size_t>(child[state][b]);
    }
    t->hit[state] = 1;
  }
  t->next.resize(child.size());
  std::vector<uint32_t> fail(child.size(), 0);
  std::vector<uint32_t> queue = {0};
  for (size_t q = 0; q < queue.size(); ++q) {
    const uint32_t u = queue[q];
    if (u != 0 && t->hit[fail[u]] != 0) t->hit[u] = 1;
    for (int b = 0; b < 256; ++b) {
      const int32_t v = child[u][b];
      if (v < 0) {
        t->next[u][b] = u == 0 ? 0 : t->next[fail[u]][b];
        continue;
      }
      fail[v] = u == 0 ? 0 : t->next[fail[u]][b];
      t->next[u][b] = static_cast<uint16_t>(v);
      queue.push_back(static_cast<uint32_t>(v));
    }
  }
  for (uint32_t token = 0; token < vocabulary.size(); ++token) {
    uint32_t state = 0;
    for (const char ch : vocabulary.bytes(token)) {
      state = t->next[state][static_cast<uint8_t>(ch)];
      if (t->hit[state] != 0) {
        t->tokens.push_back(token);
        break;
      }
    }
  }
  return t;
}

void PrepareValueMarkers(Grammar& g, const parse::CallGrammar& family) {
  const std::vector<std::string> markers = ValueMarkers(family);
  if (markers.empty()) return;
  std::string key = std::to_string(g.vocabulary->identity());
  for (const std::string& marker : markers)
    key += "|" + marker;
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const MarkerTables>> cache;
  std::shared_ptr<const MarkerTables> tables;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto found = cache.find(key); found != cache.end()) tables = found->second;
  }
  if (!tables) {
    tables = BuildMarkerTables(*g.vocabulary, markers);
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() >= 256) cache.clear();  // a bound for hostile variety
    cache.emplace(key, tables);
  }
  g.marker_key = key;
  g.marker_next = tables->next;
  g.marker_hit = tables->hit;
  g.marker_tokens = tables->tokens;
}

Expected<std::unique_ptr<Grammar>> CompileInto(
    std::unique_ptr<Grammar> g, const parse::CallGrammar& family,
    std::vector<parse::ToolSpec> tools, std::shared_ptr<const constrain::Vocabulary> vocabulary,
    ToolCallOptions options) {
  using Args = parse::CallGrammar::Args;
  g->vocabulary = std::move(vocabulary);
  g->index = IndexFor(*g->vocabulary);
  g->options = std::move(options);
  g->key_value = family.args == Args::kKeyValue;
  g->cdata = family.cdata_strings;
  if (auto made = MakeTools(*g, family, std::move(tools)); !made) return made.error();
  if (auto made = MakeProgram(*g, family); !made) return made.error();
  g->lead = g->ops[g->block_op].text;
  if (g->ops[g->call_op].kind == OpKind::kText) g->lead += g->ops[g->call_op].text;
  if (g->options.mode == ToolChoiceMode::kAuto) {
    for (const std::string& marker : g->options.start_markers) {
      if (!marker.empty() && g->lead.starts_with(marker) && marker.size() > g->trigger.size())
        g->trigger = marker;
    }
    if (g->trigger.empty() && g->lead.empty()) {
      return Error(ErrorCode::kUnsupported,
                   "tool calls: this format has no text that opens a call, so tool_choice auto "
                   "cannot tell a call from an answer; use tool_choice required");
    }
    // "[" then a bare name is also how prose and markdown may begin: the answer is a call
    // only once it has gone on to the arguments.
    g->tentative_name = g->trigger.empty() && g->ops[g->call_op].kind == OpKind::kName;
    g->kmp = Failure(g->trigger);
    g->free_masks.resize(g->trigger.size());
  }
  if ((g->key_value && !g->python && g->quote.empty()) || family.arguments_end_at_marker)
    PrepareValueMarkers(*g, family);
  if (g->key_value && !g->python) PrepareRawValues(*g);
  return g;
}

}  // namespace

Expected<std::unique_ptr<Grammar>> CompileGrammar(
    const parse::CallGrammar& family, std::vector<parse::ToolSpec> tools,
    std::shared_ptr<const constrain::Vocabulary> vocabulary, ToolCallOptions options) {
  using Args = parse::CallGrammar::Args;
  if (family.args == Args::kCustom && family.argument.empty()) {
    return Error(ErrorCode::kUnsupported,
                 "tool calls: constrained decoding does not follow this format's custom argument "
                 "syntax yet");
  }
  if (vocabulary == nullptr) return Error(ErrorCode::kInvalidArgument, "tool calls: no vocabulary");
  auto g = std::make_unique<Grammar>();
  if (family.args == Args::kCustom) {
    // The declared key-value form: the call's arguments between their brackets, string values
    // quoted.
    parse::CallGrammar keyed = family;
    keyed.args = Args::kKeyValue;
    keyed.call.clear();
    for (const parse::CallGrammar::Part& part : family.call) {
      if (part.slot != Slot::kArguments) {
        keyed.call.push_back(part);
        continue;
      }
      keyed.call.push_back({Slot::kText, family.arguments_open});
      keyed.call.push_back(part);
      keyed.call.push_back({Slot::kText, family.arguments_close});
    }
    g->quote = family.string_quote;
    return CompileInto(std::move(g), keyed, std::move(tools), std::move(vocabulary),
                       std::move(options));
  }
  if (family.args == Args::kPythonKeywords) {
    // Key-value arguments, k=v joined by ", ", each value JSON with Python's keywords.
    parse::CallGrammar keywords = family;
    keywords.args = Args::kKeyValue;
    keywords.argument = {{Slot::kKey}, {Slot::kText, "="}, {Slot::kValue}};
    keywords.argument_separator = ", ";
    g->python = true;
    return CompileInto(std::move(g), keywords, std::move(tools), std::move(vocabulary),
                       std::move(options));
  }
  return CompileInto(std::move(g), family, std::move(tools), std::move(vocabulary),
                     std::move(options));
}

}  // namespace crux::logits::tools
