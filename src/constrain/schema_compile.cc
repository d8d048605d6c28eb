// JSON Schema → SchemaIr. One pass over the document: each subschema becomes a node, each
// keyword fills a typed field of it (one small handler per keyword family, found in a table).
// `$ref` targets are compiled once from a work list, so a recursive schema is a cycle of ids
// and a long chain of references costs no stack.
#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "crux/constrain/schema_ir.h"
#include "formats.h"
#include "json_util.h"
#include "regex.h"

namespace crux::constrain {
namespace {

// Where a keyword is being compiled: the node it fills and the schema object holding it.
struct Site {
  NodeId id;
  const Json& schema;
  const std::string& pointer;  // JSON pointer of the schema object
};

std::string KeywordPointer(const std::string& pointer, std::string_view keyword) {
  std::string out = pointer;
  AppendPointerToken(out, keyword);
  return out;
}

Error KeywordError(ErrorCode code, std::string_view keyword, const std::string& pointer,
                   std::string_view what) {
  return Error(code, "schema keyword '" + std::string(keyword) + "' at '" +
                         KeywordPointer(pointer, keyword) + "': " + std::string(what));
}

// Keywords that only annotate: accepted and ignored, by the specifications' own terms.
constexpr std::array<std::string_view, 24> kAnnotations = {"title",
                                                           "description",
                                                           "examples",
                                                           "default",
                                                           "$comment",
                                                           "$schema",
                                                           "$id",
                                                           "id",
                                                           "deprecated",
                                                           "readOnly",
                                                           "writeOnly",
                                                           "$anchor",
                                                           "$dynamicAnchor",
                                                           "$recursiveAnchor",
                                                           "$vocabulary",
                                                           "contentMediaType",
                                                           "contentEncoding",
                                                           "$defs",
                                                           "definitions",
                                                           "nullable",
                                                           "example",
                                                           "discriminator",
                                                           "markdownDescription",
                                                           "additionalItems"};

// Every other keyword is reported in SchemaIr::not_enforced: the assertions crux does not
// enforce (multipleOf, uniqueItems, dependentRequired, dependentSchemas, dependencies,
// if/then/else, not, contains, minContains, maxContains, unevaluated*, $dynamicRef,
// $recursiveRef) and any keyword it does not know.

bool IsAnnotation(std::string_view keyword) {
  if (keyword.substr(0, 2) == "x-") return true;
  for (std::string_view name : kAnnotations) {
    if (name == keyword) return true;
  }
  return false;
}

// Whether `pattern` compiles to an automaton: ok when it does, kLimit when it is too large
// (an error of the schema), any other error when it is outside the supported subset or
// malformed (then it is not enforced).
Status PatternSupport(const std::string& pattern) {
  const RegexSource source{RegexSource::Kind::kPattern, pattern};
  auto dfa = CompileRegexes({&source, 1});
  if (dfa) return {};
  return dfa.error();
}

// Reads a non-negative integer count (1.0 counts).
bool ReadCount(const Json& value, uint64_t& out) {
  if (!value.is_number() || !IsIntegral(value)) return false;
  if (value.is_number_unsigned()) {
    out = value.get<uint64_t>();
    return true;
  }
  const double d = value.get<double>();
  if (d < 0) return false;
  out = d >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(d);
  return true;
}

class Compiler {
 public:
  Compiler(const Json& document, const SchemaOptions& options)
      : document_(document), options_(options) {}

  Expected<SchemaIr> Run();

 private:
  using Handler = Status (Compiler::*)(const Site&, std::string_view, const Json&);
  struct Pending {
    NodeId id;
    const Json* schema;
    std::string pointer;
  };

  static Handler FindHandler(std::string_view keyword);
  Expected<NodeId> NewNode(const std::string& pointer);
  Expected<NodeId> Subschema(const Json& schema, const std::string& pointer);
  Status Fill(NodeId id, const Json& schema, const std::string& pointer);
  Status Keyword(const Site& site, std::string_view keyword, const Json& value);
  Status Report(std::string_view keyword, const std::string& pointer);
  // When a `patternProperties` pattern of the node was not enforced, which names are
  // "additional" is unknown: `additionalProperties` is then not enforced either (enforcing it
  // would reject names the pattern matches).
  Status UndecidedNames(const Site& site);
  Expected<NodeId> ResolveRef(std::string_view ref, const std::string& pointer);
  // The JSON pointer (escaped, `%` decoded) a `$ref` names in this document.
  Expected<std::string> LocalFragment(std::string_view ref, const std::string& pointer) const;
  // Records `$anchor`s and draft 6/7 `$id: "#name"` anchors under `value`, which is at
  // `pointer` (restored on return).
  void CollectAnchors(const Json& value, std::string& pointer);
  Status CheckRefCycles() const;

  Status Type(const Site& site, std::string_view keyword, const Json& value);
  Status Enum(const Site& site, std::string_view keyword, const Json& value);
  Status Const(const Site& site, std::string_view keyword, const Json& value);
  Status Ref(const Site& site, std::string_view keyword, const Json& value);
  Status Combinator(const Site& site, std::string_view keyword, const Json& value);
  Status Bound(const Site& site, std::string_view keyword, const Json& value);
  Status Count(const Site& site, std::string_view keyword, const Json& value);
  Status Pattern(const Site& site, std::string_view keyword, const Json& value);
  Status Format(const Site& site, std::string_view keyword, const Json& value);
  Status Items(const Site& site, std::string_view keyword, const Json& value);
  Status PrefixItems(const Site& site, std::string_view keyword, const Json& value);
  Status Properties(const Site& site, std::string_view keyword, const Json& value);
  Status PatternProperties(const Site& site, std::string_view keyword, const Json& value);
  Status Required(const Site& site, std::string_view keyword, const Json& value);
  Status SingleSchema(const Site& site, std::string_view keyword, const Json& value);
  Status SchemaList(const Site& site, std::string_view keyword, const Json& value,
                    std::vector<NodeId>& out);

  const Json& document_;
  SchemaOptions options_;
  SchemaIr ir_;
  std::vector<NodeId> patterns_dropped_;  // nodes being filled that dropped a pattern (a stack)
  std::vector<std::string> node_pointers_;
  std::unordered_map<std::string, NodeId> by_pointer_;
  std::vector<Pending> pending_;
  std::unordered_map<std::string, std::string> anchors_;  // anchor name → JSON pointer
  std::string root_id_;  // the root `$id` without its fragment: refs may start with it
};

Compiler::Handler Compiler::FindHandler(std::string_view keyword) {
  static constexpr std::pair<std::string_view, Handler> kTable[] = {
      {"type", &Compiler::Type},
      {"enum", &Compiler::Enum},
      {"const", &Compiler::Const},
      {"$ref", &Compiler::Ref},
      {"allOf", &Compiler::Combinator},
      {"anyOf", &Compiler::Combinator},
      {"oneOf", &Compiler::Combinator},
      {"minimum", &Compiler::Bound},
      {"maximum", &Compiler::Bound},
      {"exclusiveMinimum", &Compiler::Bound},
      {"exclusiveMaximum", &Compiler::Bound},
      {"minLength", &Compiler::Count},
      {"maxLength", &Compiler::Count},
      {"minItems", &Compiler::Count},
      {"maxItems", &Compiler::Count},
      {"minProperties", &Compiler::Count},
      {"maxProperties", &Compiler::Count},
      {"pattern", &Compiler::Pattern},
      {"format", &Compiler::Format},
      {"items", &Compiler::Items},
      {"prefixItems", &Compiler::PrefixItems},
      {"properties", &Compiler::Properties},
      {"patternProperties", &Compiler::PatternProperties},
      {"required", &Compiler::Required},
      {"additionalProperties", &Compiler::SingleSchema},
      {"propertyNames", &Compiler::SingleSchema},
  };
  for (const auto& [name, handler] : kTable) {
    if (name == keyword) return handler;
  }
  return nullptr;
}

Draft DraftOf(const Json& document) {
  if (!document.is_object() || !document.contains("$schema") || !document["$schema"].is_string()) {
    return Draft::kDraft2020;
  }
  const std::string uri = document["$schema"].get<std::string>();
  static constexpr std::pair<std::string_view, Draft> kDrafts[] = {{"draft-03", Draft::kDraft4},
                                                                   {"draft-04", Draft::kDraft4},
                                                                   {"draft-06", Draft::kDraft6},
                                                                   {"draft-07", Draft::kDraft7},
                                                                   {"2019-09", Draft::kDraft2019}};
  for (const auto& [marker, draft] : kDrafts) {
    if (uri.find(marker) != std::string::npos) return draft;
  }
  return Draft::kDraft2020;
}

Expected<SchemaIr> Compiler::Run() {
  ir_.draft = DraftOf(document_);
  std::string pointer;
  CollectAnchors(document_, pointer);
  if (document_.is_object() && document_.contains("$id") && document_["$id"].is_string()) {
    root_id_ = document_["$id"].get<std::string>();
    root_id_ = root_id_.substr(0, root_id_.find('#'));
  }
  auto root = Subschema(document_, "");
  if (!root) return root.error();
  ir_.root = *root;
  while (!pending_.empty()) {
    Pending next = std::move(pending_.back());
    pending_.pop_back();
    if (Status status = Fill(next.id, *next.schema, next.pointer); !status) return status.error();
  }
  if (Status status = CheckRefCycles(); !status) return status.error();
  ir_.pointers = node_pointers_;
  return std::move(ir_);
}

Expected<NodeId> Compiler::NewNode(const std::string& pointer) {
  if (ir_.nodes.size() >= kMaxSchemaNodes) {
    return Error(ErrorCode::kLimit, "schema at '" + pointer + "': more than " +
                                        std::to_string(kMaxSchemaNodes) +
                                        " subschemas (kMaxSchemaNodes)");
  }
  const auto id = static_cast<NodeId>(ir_.nodes.size());
  ir_.nodes.emplace_back();
  node_pointers_.push_back(pointer);
  by_pointer_.emplace(pointer, id);
  return id;
}

Expected<NodeId> Compiler::Subschema(const Json& schema, const std::string& pointer) {
  if (auto found = by_pointer_.find(pointer); found != by_pointer_.end()) return found->second;
  auto id = NewNode(pointer);
  if (!id) return id;
  if (Status status = Fill(*id, schema, pointer); !status) return status.error();
  return id;
}

Status Compiler::Fill(NodeId id, const Json& schema, const std::string& pointer) {
  if (schema.is_boolean()) {
    if (!schema.get<bool>()) {
      ir_.nodes[id].always_false = true;
      ir_.nodes[id].types = 0;
    }
    return {};
  }
  if (!schema.is_object()) {
    return Error(ErrorCode::kInvalidArgument,
                 "schema at '" + pointer + "' must be an object or a boolean");
  }
  const Site site{id, schema, pointer};
  if (auto ref = schema.find("$ref"); ref != schema.end() && ir_.draft <= Draft::kDraft7) {
    return Keyword(site, "$ref", *ref);  // its siblings are ignored up to draft 7
  }
  for (const auto& [keyword, value] : schema.items()) {
    if (Status status = Keyword(site, keyword, value); !status) return status;
  }
  if (Status status = UndecidedNames(site); !status) return status;
  if (auto nullable = schema.find("nullable"); nullable != schema.end()) {
    if (!nullable->is_boolean()) {
      return KeywordError(ErrorCode::kInvalidArgument, "nullable", pointer, "must be a boolean");
    }
    if (nullable->get<bool>() && ir_.nodes[id].types != kTypeAny) {
      ir_.nodes[id].types |= kTypeNull;
    }
  }
  return {};
}

Status Compiler::Keyword(const Site& site, std::string_view keyword, const Json& value) {
  if (Handler handler = FindHandler(keyword)) return (this->*handler)(site, keyword, value);
  if (IsAnnotation(keyword)) return {};
  if (keyword == "uniqueItems" && value.is_boolean() && !value.get<bool>()) return {};
  return Report(keyword, KeywordPointer(site.pointer, keyword));
}

Status Compiler::UndecidedNames(const Site& site) {
  if (patterns_dropped_.empty() || patterns_dropped_.back() != site.id) return {};
  patterns_dropped_.pop_back();
  SchemaNode& node = ir_.nodes[site.id];
  if (node.additional_properties == kNoNode) return {};
  node.additional_properties = kNoNode;
  return Report("additionalProperties", KeywordPointer(site.pointer, "additionalProperties"));
}

Status Compiler::Report(std::string_view keyword, const std::string& pointer) {
  if (options_.reject_not_enforced) {
    return Error(ErrorCode::kUnsupported, "schema keyword '" + std::string(keyword) + "' at '" +
                                              pointer + "' is not enforced");
  }
  ir_.not_enforced.push_back({std::string(keyword), pointer});
  return {};
}

Status Compiler::Type(const Site& site, std::string_view keyword, const Json& value) {
  static constexpr std::pair<std::string_view, uint8_t> kNames[] = {
      {"null", kTypeNull},     {"boolean", kTypeBoolean}, {"integer", kTypeInteger},
      {"number", kTypeNumber}, {"string", kTypeString},   {"array", kTypeArray},
      {"object", kTypeObject}};
  auto bit_of = [&](const Json& name) -> uint8_t {
    if (!name.is_string()) return 0;
    for (const auto& [type_name, bit] : kNames) {
      if (type_name == name.get<std::string>()) return bit;
    }
    return 0;
  };
  uint8_t types = 0;
  if (value.is_string()) {
    types = bit_of(value);
    if (types == 0) {
      return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                          "unknown type '" + value.get<std::string>() + "'");
    }
  } else if (value.is_array()) {
    for (const Json& name : value) {
      const uint8_t bit = bit_of(name);
      if (bit == 0) {
        return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                            "every entry must be a type name");
      }
      types |= bit;
    }
  } else {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be a type name or an array of them");
  }
  ir_.nodes[site.id].types &= types;
  return {};
}

Status Compiler::Enum(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_array()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer, "must be an array");
  }
  if (value.size() > kMaxEnumValues) {
    return KeywordError(ErrorCode::kLimit, keyword, site.pointer,
                        std::to_string(value.size()) + " values, more than " +
                            std::to_string(kMaxEnumValues) + " (kMaxEnumValues)");
  }
  SchemaNode& node = ir_.nodes[site.id];
  node.has_enum = true;
  node.enum_values.clear();
  for (const Json& item : value)
    node.enum_values.push_back(CanonicalJson(item));
  return {};
}

Status Compiler::Const(const Site& site, std::string_view /*keyword*/, const Json& value) {
  ir_.nodes[site.id].const_value = CanonicalJson(value);
  return {};
}

Status Compiler::Ref(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_string()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer, "must be a string");
  }
  auto target = ResolveRef(value.get<std::string>(), site.pointer);
  if (!target) return target.error();
  ir_.nodes[site.id].ref = *target;
  return {};
}

Status Compiler::Combinator(const Site& site, std::string_view keyword, const Json& value) {
  std::vector<NodeId> ids;
  if (Status status = SchemaList(site, keyword, value, ids); !status) return status;
  if (ids.empty()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be a non-empty array of schemas");
  }
  SchemaNode& node = ir_.nodes[site.id];
  (keyword == "allOf"   ? node.all_of
   : keyword == "anyOf" ? node.any_of
                        : node.one_of) = std::move(ids);
  return {};
}

Status Compiler::SchemaList(const Site& site, std::string_view keyword, const Json& value,
                            std::vector<NodeId>& out) {
  if (!value.is_array()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be an array of schemas");
  }
  const std::string base = KeywordPointer(site.pointer, keyword);
  for (size_t i = 0; i < value.size(); ++i) {
    std::string pointer = base;
    AppendPointerToken(pointer, std::to_string(i));
    auto id = Subschema(value[i], pointer);
    if (!id) return id.error();
    out.push_back(*id);
  }
  return {};
}

Status Compiler::Bound(const Site& site, std::string_view keyword, const Json& value) {
  const bool exclusive = keyword.substr(0, 9) == "exclusive";
  if (exclusive && value.is_boolean()) return {};  // draft 4 form: read with minimum/maximum
  if (!value.is_number()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer, "must be a number");
  }
  const bool is_min = keyword == "minimum" || keyword == "exclusiveMinimum";
  bool strict = exclusive;
  if (!exclusive) {
    auto flag = site.schema.find(is_min ? "exclusiveMinimum" : "exclusiveMaximum");
    strict = flag != site.schema.end() && flag->is_boolean() && flag->get<bool>();
  }
  SchemaNode& node = ir_.nodes[site.id];
  auto& bound = is_min ? (strict ? node.exclusive_minimum : node.minimum)
                       : (strict ? node.exclusive_maximum : node.maximum);
  const SchemaNumber number = ToSchemaNumber(value);
  if (!bound ||
      (is_min ? CompareNumbers(number, *bound) > 0 : CompareNumbers(number, *bound) < 0)) {
    bound = number;
  }
  return {};
}

Status Compiler::Count(const Site& site, std::string_view keyword, const Json& value) {
  static constexpr std::pair<std::string_view, uint64_t SchemaNode::*> kFields[] = {
      {"minLength", &SchemaNode::min_length},
      {"maxLength", &SchemaNode::max_length},
      {"minItems", &SchemaNode::min_items},
      {"maxItems", &SchemaNode::max_items},
      {"minProperties", &SchemaNode::min_properties},
      {"maxProperties", &SchemaNode::max_properties}};
  uint64_t count = 0;
  if (!ReadCount(value, count)) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be a non-negative integer");
  }
  for (const auto& [name, field] : kFields) {
    if (name == keyword) ir_.nodes[site.id].*field = count;
  }
  return {};
}

Status Compiler::Pattern(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_string()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer, "must be a string");
  }
  const std::string pattern = value.get<std::string>();
  if (pattern.size() > kMaxPatternBytes) {
    return KeywordError(ErrorCode::kLimit, keyword, site.pointer,
                        std::to_string(pattern.size()) + " bytes, more than " +
                            std::to_string(kMaxPatternBytes) + " (kMaxPatternBytes)");
  }
  if (Status support = PatternSupport(pattern); !support) {
    if (support.error().code() == ErrorCode::kLimit) {
      return KeywordError(ErrorCode::kLimit, keyword, site.pointer, support.error().message());
    }
    return Report(keyword, KeywordPointer(site.pointer, keyword));
  }
  SchemaNode& node = ir_.nodes[site.id];
  node.has_pattern = true;
  node.pattern = pattern;
  return {};
}

Status Compiler::Format(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_string()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer, "must be a string");
  }
  const std::string name = value.get<std::string>();
  if (auto format = FormatFromName(name)) {
    ir_.nodes[site.id].format = *format;
    return {};
  }
  return Report("format:" + name, KeywordPointer(site.pointer, keyword));
}

Status Compiler::Items(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_array()) {
    auto id = Subschema(value, KeywordPointer(site.pointer, keyword));
    if (!id) return id.error();
    ir_.nodes[site.id].items = *id;
    return {};
  }
  // Draft 7 tuple form: `items` is the prefix and `additionalItems` the rest.
  std::vector<NodeId> ids;
  if (Status status = SchemaList(site, keyword, value, ids); !status) return status;
  ir_.nodes[site.id].prefix_items = std::move(ids);
  if (auto rest = site.schema.find("additionalItems"); rest != site.schema.end()) {
    auto id = Subschema(*rest, KeywordPointer(site.pointer, "additionalItems"));
    if (!id) return id.error();
    ir_.nodes[site.id].items = *id;
  }
  return {};
}

Status Compiler::PrefixItems(const Site& site, std::string_view keyword, const Json& value) {
  std::vector<NodeId> ids;
  if (Status status = SchemaList(site, keyword, value, ids); !status) return status;
  ir_.nodes[site.id].prefix_items = std::move(ids);
  return {};
}

Status Compiler::Properties(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_object()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be an object of schemas");
  }
  const std::string base = KeywordPointer(site.pointer, keyword);
  std::vector<PropertySchema> properties;
  for (const auto& [name, schema] : value.items()) {
    std::string pointer = base;
    AppendPointerToken(pointer, name);
    auto id = Subschema(schema, pointer);
    if (!id) return id.error();
    properties.push_back({name, *id});
  }
  ir_.nodes[site.id].properties = std::move(properties);
  return {};
}

Status Compiler::PatternProperties(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_object()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be an object of schemas");
  }
  const std::string base = KeywordPointer(site.pointer, keyword);
  std::vector<PropertySchema> patterns;
  for (const auto& [pattern, schema] : value.items()) {
    std::string pointer = base;
    AppendPointerToken(pointer, pattern);
    if (pattern.size() > kMaxPatternBytes) {
      return Error(ErrorCode::kLimit, "schema keyword 'patternProperties' at '" + pointer +
                                          "': pattern longer than kMaxPatternBytes (" +
                                          std::to_string(kMaxPatternBytes) + ")");
    }
    if (Status support = PatternSupport(pattern); !support) {
      if (support.error().code() == ErrorCode::kLimit) {
        return Error(ErrorCode::kLimit, "schema keyword 'patternProperties' at '" + pointer +
                                            "': " + support.error().message());
      }
      if (Status status = Report(keyword, pointer); !status) return status;
      if (patterns_dropped_.empty() || patterns_dropped_.back() != site.id) {
        patterns_dropped_.push_back(site.id);
      }
      continue;
    }
    auto id = Subschema(schema, pointer);
    if (!id) return id.error();
    patterns.push_back({pattern, *id});
  }
  ir_.nodes[site.id].pattern_properties = std::move(patterns);
  return {};
}

Status Compiler::Required(const Site& site, std::string_view keyword, const Json& value) {
  if (!value.is_array()) {
    return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                        "must be an array of strings");
  }
  std::vector<std::string> names;
  for (const Json& name : value) {
    if (!name.is_string()) {
      return KeywordError(ErrorCode::kInvalidArgument, keyword, site.pointer,
                          "must be an array of strings");
    }
    names.push_back(name.get<std::string>());
  }
  ir_.nodes[site.id].required = std::move(names);
  return {};
}

Status Compiler::SingleSchema(const Site& site, std::string_view keyword, const Json& value) {
  auto id = Subschema(value, KeywordPointer(site.pointer, keyword));
  if (!id) return id.error();
  (keyword == "additionalProperties" ? ir_.nodes[site.id].additional_properties
                                     : ir_.nodes[site.id].property_names) = *id;
  return {};
}

// Decodes `%XX` escapes of a URI fragment; false on a malformed escape.
bool PercentDecode(std::string_view text, std::string& out) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size() || hex(text[i + 1]) < 0 || hex(text[i + 2]) < 0) return false;
    out.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
    i += 2;
  }
  return true;
}

// Undoes JSON pointer escapes (`~0` is `~`, `~1` is `/`); false on any other `~`.
bool UnescapeToken(std::string_view token, std::string& out) {
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~') {
      out.push_back(token[i]);
    } else if (i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out.push_back(token[++i] == '0' ? '~' : '/');
    } else {
      return false;
    }
  }
  return true;
}

// The member of `value` named by one pointer token, or nullptr.
const Json* Step(const Json& value, const std::string& token) {
  if (value.is_object()) {
    auto found = value.find(token);
    return found == value.end() ? nullptr : &*found;
  }
  if (!value.is_array() || token.empty() || token.size() > 9) return nullptr;
  if (token.size() > 1 && token[0] == '0') return nullptr;
  size_t index = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return nullptr;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return index < value.size() ? &value[index] : nullptr;
}

void Compiler::CollectAnchors(const Json& value, std::string& pointer) {
  if (value.is_object()) {
    auto anchor = value.find("$anchor");
    if (anchor != value.end() && anchor->is_string()) {
      anchors_.emplace(anchor->get<std::string>(), pointer);
    }
    for (const char* key : {"$id", "id"}) {  // draft 6/7 and draft 4 anchors: "#name"
      auto id = value.find(key);
      if (id != value.end() && id->is_string() && id->get<std::string>().starts_with('#')) {
        anchors_.emplace(id->get<std::string>().substr(1), pointer);
      }
    }
  }
  if (!value.is_object() && !value.is_array()) return;
  size_t index = 0;
  for (const auto& [key, member] : value.items()) {
    const size_t length = pointer.size();
    AppendPointerToken(pointer, value.is_object() ? key : std::to_string(index++));
    CollectAnchors(member, pointer);
    pointer.resize(length);
  }
}

// `ref` in single quotes, for messages (appended piecewise: g++ 12 misreads the + chain).
std::string QuotedRef(std::string_view ref) {
  std::string out;
  out.reserve(ref.size() + 2);
  out += '\'';
  out += ref;
  out += '\'';
  return out;
}

Expected<std::string> Compiler::LocalFragment(std::string_view ref,
                                              const std::string& pointer) const {
  const std::string quoted = QuotedRef(ref);
  if (!root_id_.empty() && ref.starts_with(root_id_)) ref.remove_prefix(root_id_.size());
  if (ref.empty()) ref = "#";
  if (ref[0] != '#') {
    return KeywordError(ErrorCode::kUnsupported, "$ref", pointer,
                        quoted + " is not a local reference (#…); schemas are never fetched");
  }
  std::string fragment;
  if (!PercentDecode(ref.substr(1), fragment)) {
    return KeywordError(ErrorCode::kInvalidArgument, "$ref", pointer, quoted + ": bad % escape");
  }
  if (!fragment.empty() && fragment[0] != '/') {
    auto anchor = anchors_.find(fragment);
    if (anchor == anchors_.end()) {
      return KeywordError(ErrorCode::kInvalidArgument, "$ref", pointer,
                          quoted + ": no schema has this anchor");
    }
    return anchor->second;
  }
  return fragment;
}

Expected<NodeId> Compiler::ResolveRef(std::string_view ref, const std::string& pointer) {
  const std::string quoted = QuotedRef(ref);
  auto local = LocalFragment(ref, pointer);
  if (!local) return local.error();
  const std::string& fragment = *local;
  const Json* target = &document_;
  std::string canonical;
  for (size_t pos = 0; pos < fragment.size();) {
    const size_t next = std::min(fragment.find('/', pos + 1), fragment.size());
    std::string token;
    if (!UnescapeToken(std::string_view(fragment).substr(pos + 1, next - pos - 1), token) ||
        (target = Step(*target, token)) == nullptr) {
      return KeywordError(ErrorCode::kInvalidArgument, "$ref", pointer,
                          quoted + " does not resolve");
    }
    AppendPointerToken(canonical, token);
    pos = next;
  }
  if (auto found = by_pointer_.find(canonical); found != by_pointer_.end()) return found->second;
  if (!target->is_object() && !target->is_boolean()) {
    return KeywordError(ErrorCode::kInvalidArgument, "$ref", pointer,
                        quoted + " points at a value that is not a schema");
  }
  auto id = NewNode(canonical);
  if (!id) return id;
  pending_.push_back({*id, target, canonical});
  return id;
}

// The nodes checked against the same instance as `node` (no step into the instance).
std::vector<NodeId> SameInstanceEdges(const SchemaNode& node) {
  std::vector<NodeId> edges = node.all_of;
  edges.insert(edges.end(), node.any_of.begin(), node.any_of.end());
  edges.insert(edges.end(), node.one_of.begin(), node.one_of.end());
  if (node.ref != kNoNode) edges.push_back(node.ref);
  return edges;
}

// A cycle of references that never steps into the instance would make validation (and the
// grammar) recurse forever; found by an iterative depth-first search.
Status Compiler::CheckRefCycles() const {
  enum : uint8_t { kNew, kOpen, kDone };
  std::vector<uint8_t> state(ir_.nodes.size(), kNew);
  struct Frame {
    NodeId id;
    std::vector<NodeId> edges;
    size_t next = 0;
  };
  for (NodeId start = 0; start < ir_.nodes.size(); ++start) {
    if (state[start] != kNew) continue;
    std::vector<Frame> stack;
    stack.push_back({start, SameInstanceEdges(ir_.nodes[start])});
    state[start] = kOpen;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.edges.size()) {
        state[top.id] = kDone;
        stack.pop_back();
        continue;
      }
      const NodeId child = top.edges[top.next++];
      if (state[child] == kOpen) {
        return KeywordError(ErrorCode::kInvalidArgument, "$ref", node_pointers_[child],
                            "a cycle of references that never reaches the instance");
      }
      if (state[child] == kNew) {
        state[child] = kOpen;
        stack.push_back({child, SameInstanceEdges(ir_.nodes[child])});
      }
    }
  }
  return {};
}

}  // namespace

Expected<SchemaIr> CompileSchema(std::string_view schema_json, const SchemaOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (schema_json.size() > kMaxSchemaBytes) {
    return Error(ErrorCode::kLimit, "schema of " + std::to_string(schema_json.size()) +
                                        " bytes is larger than kMaxSchemaBytes (" +
                                        std::to_string(kMaxSchemaBytes) + ")");
  }
  if (NestsDeeperThan(schema_json, kMaxNestingDepth)) {
    return Error(ErrorCode::kLimit,
                 "schema nests arrays and objects deeper than "
                 "kMaxNestingDepth (" +
                     std::to_string(kMaxNestingDepth) + ")");
  }
  auto document = ParseJson(schema_json);
  if (!document)
    return Error(ErrorCode::kParse, "schema is not valid JSON: " + document.error().message());
  auto ir = Compiler(*document, options).Run();
  if (ir) {
    ir->compile_us = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                               std::chrono::steady_clock::now() - start)
                                               .count());
  }
  return ir;
}

uint8_t PossibleTypes(const SchemaIr& ir, NodeId id, std::map<NodeId, uint8_t>& memo) {
  if (id == kNoNode) return kTypeAny;
  if (auto found = memo.find(id); found != memo.end()) return found->second;
  memo[id] = kTypeAny;
  const SchemaNode& node = ir.node(id);
  uint8_t types = node.always_false ? 0 : WithIntegers(node.types);
  if (node.has_enum || node.const_value) {
    uint8_t values = 0;
    for (const std::string& value : node.enum_values)
      values |= TypeOfCanonical(value);
    if (node.const_value) values = TypeOfCanonical(*node.const_value);
    types &= WithIntegers(values);
  }
  if (node.ref != kNoNode) types &= PossibleTypes(ir, node.ref, memo);
  for (const NodeId member : node.all_of)
    types &= PossibleTypes(ir, member, memo);
  for (const auto* list : {&node.any_of, &node.one_of}) {
    if (list->empty()) continue;
    uint8_t any = 0;
    for (const NodeId branch : *list)
      any |= PossibleTypes(ir, branch, memo);
    types &= any;
  }
  memo[id] = types;
  return types;
}

SchemaIr AnyJsonSchema() {
  SchemaIr ir;
  ir.nodes.emplace_back();
  ir.pointers.emplace_back();
  return ir;
}

SchemaIr AnyObjectSchema() {
  SchemaIr ir = AnyJsonSchema();
  ir.nodes[0].types = kTypeObject;
  return ir;
}

}  // namespace crux::constrain
