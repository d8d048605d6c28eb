// The validator: a recursive walk of (schema node, instance value) pairs. Violations are
// recorded only on the path that decides the result; the branches of anyOf/oneOf are probed
// silently and reported as one violation of the combinator.
#include "crux/constrain/validate.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "formats.h"
#include "json_util.h"
#include "regex.h"

namespace crux::constrain {
namespace {

// Up to this many names, a linear search beats building a hash index.
constexpr size_t kLinearSearchMax = 16;

std::string Quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

class Validator {
 public:
  explicit Validator(const SchemaIr& ir) : ir_(ir) {}

  // True when `value` (at pointer_) validates against node `id`; violations are recorded
  // when `record`.
  bool Check(NodeId id, const Json& value, bool record);
  ValidationResult Take() { return {std::move(violations_)}; }
  void Fail(std::string_view keyword, std::string message) {
    if (violations_.size() < kMaxViolations) {
      violations_.push_back({pointer_, std::string(keyword), std::move(message)});
    }
  }

 private:
  bool Fail(bool record, std::string_view keyword, std::string message) {
    if (record) Fail(keyword, std::move(message));
    return false;
  }
  bool CheckType(const SchemaNode& node, const Json& value, bool record);
  bool CheckEnum(const SchemaNode& node, const Json& value, bool record);
  bool CheckNumber(const SchemaNode& node, const Json& value, bool record);
  bool CheckString(const SchemaNode& node, const std::string& text, bool record);
  bool CheckPattern(const std::string& pattern, const std::string& text, bool record);
  bool CheckArray(const SchemaNode& node, const Json& value, bool record);
  bool CheckObject(const SchemaNode& node, const Json& value, bool record);
  bool CheckMember(const SchemaNode& node, const std::string& name, const Json& member,
                   bool record);
  bool CheckApplicators(const SchemaNode& node, const Json& value, bool record);
  bool CheckChild(NodeId id, std::string_view token, const Json& value, bool record);
  // The searched automaton of `pattern`, compiled on first use; null when it does not compile
  // (CompileSchema keeps such patterns out of the IR).
  const ByteDfa* Pattern(const std::string& pattern);
  bool PatternMatches(const std::string& pattern, const std::string& text, bool& compiled);
  NodeId FindProperty(const SchemaNode& node, const std::string& name);

  const SchemaIr& ir_;
  std::string pointer_;
  std::vector<Violation> violations_;
  size_t steps_ = 0;
  bool out_of_steps_ = false;
  std::unordered_map<std::string, std::unique_ptr<ByteDfa>> patterns_;
  // Name → schema of the nodes with many properties, built on first use.
  std::unordered_map<const SchemaNode*, std::unordered_map<std::string_view, NodeId>> indexes_;
};

NodeId Validator::FindProperty(const SchemaNode& node, const std::string& name) {
  if (node.properties.size() <= kLinearSearchMax) {
    for (const PropertySchema& property : node.properties) {
      if (property.name == name) return property.schema;
    }
    return kNoNode;
  }
  auto [index, inserted] = indexes_.try_emplace(&node);
  if (inserted) {
    for (const PropertySchema& property : node.properties) {
      index->second.emplace(property.name, property.schema);
    }
  }
  auto found = index->second.find(name);
  return found == index->second.end() ? kNoNode : found->second;
}

bool Validator::Check(NodeId id, const Json& value, bool record) {
  if (++steps_ > kMaxValidationSteps) {
    if (!out_of_steps_) {
      out_of_steps_ = true;
      Fail("limit", "validation took more than kMaxValidationSteps (" +
                        std::to_string(kMaxValidationSteps) + ") steps");
    }
    return false;
  }
  const SchemaNode& node = ir_.node(id);
  if (node.always_false) return Fail(record, "false", "no value is allowed here");
  if (!CheckType(node, value, record)) return false;
  bool ok = CheckEnum(node, value, record);
  if (!ok && !record) return false;
  if (value.is_number()) ok = CheckNumber(node, value, record) && ok;
  if (value.is_string()) ok = CheckString(node, value.get_ref<const std::string&>(), record) && ok;
  if (value.is_array()) ok = CheckArray(node, value, record) && ok;
  if (value.is_object()) ok = CheckObject(node, value, record) && ok;
  if (!ok && !record) return false;
  return CheckApplicators(node, value, record) && ok;
}

bool Validator::CheckType(const SchemaNode& node, const Json& value, bool record) {
  bool ok = false;
  switch (value.type()) {
    case Json::value_t::null:
      ok = (node.types & kTypeNull) != 0;
      break;
    case Json::value_t::boolean:
      ok = (node.types & kTypeBoolean) != 0;
      break;
    case Json::value_t::string:
      ok = (node.types & kTypeString) != 0;
      break;
    case Json::value_t::array:
      ok = (node.types & kTypeArray) != 0;
      break;
    case Json::value_t::object:
      ok = (node.types & kTypeObject) != 0;
      break;
    default:
      ok = (node.types & kTypeNumber) != 0 ||
           ((node.types & kTypeInteger) != 0 &&
            (ir_.draft == Draft::kDraft4 ? value.is_number_integer() : IsIntegral(value)));
  }
  if (ok) return true;
  return Fail(record, "type",
              std::string("a value of type ") + value.type_name() + " is not allowed here");
}

bool Validator::CheckEnum(const SchemaNode& node, const Json& value, bool record) {
  if (!node.has_enum && !node.const_value) return true;
  const std::string canonical = CanonicalJson(value);
  bool ok = true;
  if (node.const_value && canonical != *node.const_value) {
    ok = Fail(record, "const", "must equal " + *node.const_value);
  }
  if (node.has_enum) {
    bool found = false;
    for (const std::string& allowed : node.enum_values)
      found = found || allowed == canonical;
    if (!found)
      ok = Fail(record, "enum",
                "is not one of the " + std::to_string(node.enum_values.size()) + " allowed values");
  }
  return ok;
}

bool Validator::CheckNumber(const SchemaNode& node, const Json& value, bool record) {
  const SchemaNumber number = ToSchemaNumber(value);
  bool ok = true;
  auto check = [&](const std::optional<SchemaNumber>& bound, std::string_view keyword,
                   bool pass_if(int)) {
    if (bound && !pass_if(CompareNumbers(number, *bound))) {
      ok = Fail(
          record, keyword,
          "is out of range (" + std::string(keyword) + " " +
              CanonicalJson(Json(bound->is_integer ? Json(bound->integer) : Json(bound->value))) +
              ")");
    }
  };
  check(node.minimum, "minimum", [](int c) { return c >= 0; });
  check(node.maximum, "maximum", [](int c) { return c <= 0; });
  check(node.exclusive_minimum, "exclusiveMinimum", [](int c) { return c > 0; });
  check(node.exclusive_maximum, "exclusiveMaximum", [](int c) { return c < 0; });
  return ok;
}

bool Validator::CheckString(const SchemaNode& node, const std::string& text, bool record) {
  bool ok = true;
  if (node.min_length > 0 || node.max_length != UINT64_MAX) {
    const size_t length = CodePointCount(text);
    if (length < node.min_length) {
      ok = Fail(
          record, "minLength",
          std::to_string(length) + " characters, fewer than " + std::to_string(node.min_length));
    }
    if (length > node.max_length) {
      ok = Fail(
          record, "maxLength",
          std::to_string(length) + " characters, more than " + std::to_string(node.max_length));
    }
  }
  if (node.has_pattern) ok = CheckPattern(node.pattern, text, record) && ok;
  if (node.format != StringFormat::kNone && !MatchesFormat(node.format, text)) {
    ok = Fail(record, "format", "is not a valid " + std::string(FormatName(node.format)));
  }
  return ok;
}

const ByteDfa* Validator::Pattern(const std::string& pattern) {
  auto [entry, inserted] = patterns_.try_emplace(pattern);
  if (inserted) {
    const RegexSource source{RegexSource::Kind::kPattern, pattern};
    auto dfa = CompileRegexes({&source, 1});
    if (dfa) entry->second = std::make_unique<ByteDfa>(std::move(*dfa));
  }
  return entry->second.get();
}

bool Validator::PatternMatches(const std::string& pattern, const std::string& text,
                               bool& compiled) {
  const ByteDfa* dfa = Pattern(pattern);
  compiled = dfa != nullptr;
  return compiled && dfa->Matches(RunDfa(*dfa, text), 0);
}

bool Validator::CheckPattern(const std::string& pattern, const std::string& text, bool record) {
  bool compiled = false;
  if (PatternMatches(pattern, text, compiled)) return true;
  if (!compiled) return Fail(record, "pattern", "pattern does not compile");
  return Fail(record, "pattern", "does not match " + Quoted(pattern));
}

bool Validator::CheckChild(NodeId id, std::string_view token, const Json& value, bool record) {
  const size_t length = pointer_.size();
  AppendPointerToken(pointer_, token);
  const bool ok = Check(id, value, record);
  pointer_.resize(length);
  return ok;
}

bool Validator::CheckArray(const SchemaNode& node, const Json& value, bool record) {
  bool ok = true;
  if (value.size() < node.min_items) {
    ok =
        Fail(record, "minItems",
             std::to_string(value.size()) + " items, fewer than " + std::to_string(node.min_items));
  }
  if (value.size() > node.max_items) {
    ok = Fail(record, "maxItems",
              std::to_string(value.size()) + " items, more than " + std::to_string(node.max_items));
  }
  for (size_t i = 0; i < value.size() && (ok || record); ++i) {
    const NodeId item = i < node.prefix_items.size() ? node.prefix_items[i] : node.items;
    if (item != kNoNode) ok = CheckChild(item, std::to_string(i), value[i], record) && ok;
  }
  return ok;
}

bool Validator::CheckObject(const SchemaNode& node, const Json& value, bool record) {
  bool ok = true;
  if (value.size() < node.min_properties) {
    ok = Fail(record, "minProperties",
              std::to_string(value.size()) + " properties, fewer than " +
                  std::to_string(node.min_properties));
  }
  if (value.size() > node.max_properties) {
    ok = Fail(record, "maxProperties",
              std::to_string(value.size()) + " properties, more than " +
                  std::to_string(node.max_properties));
  }
  if (!node.required.empty()) {
    std::unordered_set<std::string_view> names;  // linear lookups suffice for small objects
    if (value.size() > kLinearSearchMax && node.required.size() > kLinearSearchMax) {
      for (const auto& [name, member] : value.items())
        names.insert(name);
    }
    for (const std::string& name : node.required) {
      const bool present = names.empty() ? value.contains(name) : names.count(name) > 0;
      if (!present) ok = Fail(record, "required", "missing property " + Quoted(name));
    }
  }
  for (const auto& [name, member] : value.items()) {
    if (!ok && !record) return false;
    ok = CheckMember(node, name, member, record) && ok;
  }
  return ok;
}

bool Validator::CheckMember(const SchemaNode& node, const std::string& name, const Json& member,
                            bool record) {
  bool ok = true;
  if (node.property_names != kNoNode)
    ok = CheckChild(node.property_names, name, Json(name), record);
  const NodeId property = FindProperty(node, name);
  const bool listed = property != kNoNode;
  if (listed) ok = CheckChild(property, name, member, record) && ok;
  bool matched = listed;
  for (const PropertySchema& pattern : node.pattern_properties) {
    bool compiled = false;
    if (!PatternMatches(pattern.name, name, compiled)) continue;
    matched = true;
    ok = CheckChild(pattern.schema, name, member, record) && ok;
  }
  if (!matched && node.additional_properties != kNoNode) {
    if (ir_.node(node.additional_properties).always_false) {
      const size_t length = pointer_.size();
      AppendPointerToken(pointer_, name);
      ok = Fail(record, "additionalProperties", "property " + Quoted(name) + " is not allowed");
      pointer_.resize(length);
    } else {
      ok = CheckChild(node.additional_properties, name, member, record) && ok;
    }
  }
  return ok;
}

bool Validator::CheckApplicators(const SchemaNode& node, const Json& value, bool record) {
  bool ok = true;
  if (node.ref != kNoNode) ok = Check(node.ref, value, record);
  for (NodeId id : node.all_of) {
    if (!ok && !record) return false;
    ok = Check(id, value, record) && ok;
  }
  if (!node.any_of.empty()) {
    bool any = false;
    for (NodeId id : node.any_of)
      any = any || Check(id, value, false);
    if (!any)
      ok = Fail(record, "anyOf",
                "matches none of the " + std::to_string(node.any_of.size()) + " schemas");
  }
  if (!node.one_of.empty()) {
    size_t matches = 0;
    for (NodeId id : node.one_of) {
      if (matches < 2 && Check(id, value, false)) ++matches;
    }
    if (matches != 1) {
      ok = Fail(
          record, "oneOf",
          matches == 0 ? "matches none of the schemas" : "matches more than one of the schemas");
    }
  }
  return ok;
}

}  // namespace

ValidationResult Validate(const SchemaIr& schema, std::string_view instance_json) {
  Validator validator(schema);
  if (NestsDeeperThan(instance_json, kMaxNestingDepth)) {
    validator.Fail("json", "nests arrays and objects deeper than kMaxNestingDepth (" +
                               std::to_string(kMaxNestingDepth) + ")");
    return validator.Take();
  }
  auto instance = ParseJson(instance_json);
  if (!instance) {
    validator.Fail("json", "not valid JSON: " + instance.error().message());
    return validator.Take();
  }
  if (!schema.nodes.empty()) validator.Check(schema.root, *instance, true);
  return validator.Take();
}

}  // namespace crux::constrain
