// GbnfWriter::AddSchemaValues: a SchemaIr as GBNF rules, one rule per (node, types) pair.
//
// A node's keywords are a conjunction (its own keywords, `$ref`, each allOf member, anyOf,
// oneOf). The types of every conjunct narrow the node's types exactly; beyond that a grammar
// writes one conjunct — the node's own keywords when it has any, else the first of the others
// (an alias to the `$ref` or the allOf member, an alternation for anyOf/oneOf) — and records
// the others as loosened. Enum and const values are written as their canonical texts, each
// first checked against the whole node with Validate, so they are exact.
#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>

#include "crux/constrain/gbnf.h"
#include "crux/constrain/validate.h"
#include "crux/text/json_scan.h"
#include "gbnf_internal.h"
#include "json_util.h"

namespace crux::constrain {
namespace {

constexpr uint8_t kNumeric = kTypeInteger | kTypeNumber;

std::string_view FormatName(StringFormat format) {
  switch (format) {
    case StringFormat::kDate:
      return "date";
    case StringFormat::kTime:
      return "time";
    case StringFormat::kDateTime:
      return "date-time";
    case StringFormat::kEmail:
      return "email";
    case StringFormat::kUuid:
      return "uuid";
    case StringFormat::kUri:
      return "uri";
    case StringFormat::kIpv4:
      return "ipv4";
    case StringFormat::kIpv6:
      return "ipv6";
    case StringFormat::kHostname:
      return "hostname";
    case StringFormat::kNone:
      break;
  }
  return "";
}

double NumberValue(const SchemaNumber& number) {
  return number.is_integer ? static_cast<double>(number.integer) : number.value;
}

// `{lo,hi}` as GBNF (hi UINT64_MAX: no upper bound).
std::string Repeat(uint64_t lo, uint64_t hi) {
  if (hi == UINT64_MAX && lo <= 1) return lo == 0 ? "*" : "+";
  std::string out = "{";
  out.append(std::to_string(lo));
  if (hi != lo) out.append(",");
  if (hi != lo && hi != UINT64_MAX) out.append(std::to_string(hi));
  return out.append("}");
}

bool Has(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Integer ranges as digit patterns (canonical spelling: no leading zeros, no "-0").

std::string DigitClass(char low, char high) {
  if (low == high) return std::string("\"") + low + "\"";
  return std::string("[") + low + "-" + high + "]";
}

// `count` more digits of any value.
std::string AnyDigits(size_t count) {
  if (count == 0) return "";
  return count == 1 ? "[0-9]" : "[0-9]{" + std::to_string(count) + "}";
}

std::string Group(const std::string& expr) {
  return expr.find('|') == std::string::npos ? expr : "( " + expr + " )";
}

// The digit strings of low's length from `low` to `high` (low <= high, equal lengths).
std::string DigitsBetween(std::string_view low, std::string_view high) {
  if (low.size() == 1) return DigitClass(low[0], high[0]);
  const std::string_view low_rest = low.substr(1);
  const std::string_view high_rest = high.substr(1);
  if (low[0] == high[0]) {
    return GbnfWriter::Sequence(
        {DigitClass(low[0], low[0]), Group(DigitsBetween(low_rest, high_rest))});
  }
  const std::string zeros(low_rest.size(), '0');
  const std::string nines(low_rest.size(), '9');
  if (low_rest == zeros && high_rest == nines) {
    return DigitClass(low[0], high[0]) + " " + AnyDigits(low_rest.size());
  }
  std::vector<std::string> alternatives = {
      GbnfWriter::Sequence({DigitClass(low[0], low[0]), Group(DigitsBetween(low_rest, nines))})};
  if (high[0] - low[0] > 1) {
    alternatives.push_back(
        DigitClass(static_cast<char>(low[0] + 1), static_cast<char>(high[0] - 1)) + " " +
        AnyDigits(low_rest.size()));
  }
  alternatives.push_back(
      GbnfWriter::Sequence({DigitClass(high[0], high[0]), Group(DigitsBetween(zeros, high_rest))}));
  return GbnfWriter::Alternatives(alternatives);
}

// Positive integers from `low` to `high` (1 <= low <= high; high UINT64_MAX: no bound), one
// alternative per length.
std::string PositiveBetween(uint64_t low, uint64_t high) {
  std::vector<std::string> alternatives;
  uint64_t floor = low;  // the least value of this length
  for (size_t length = std::to_string(low).size();; ++length) {
    if (high == UINT64_MAX && floor != low) {  // every longer number
      alternatives.push_back("[1-9] [0-9]{" + std::to_string(length - 1) + ",}");
      break;
    }
    const uint64_t ceiling = std::min<uint64_t>(high, std::stoull(std::string(length, '9')));
    alternatives.push_back(DigitsBetween(std::to_string(floor), std::to_string(ceiling)));
    if (ceiling == high) break;
    floor = ceiling + 1;
  }
  return GbnfWriter::Alternatives(alternatives);
}

// The integers from `low` to `high` (nullopt: no bound; low <= high).
std::string IntegerRange(std::optional<int64_t> low, std::optional<int64_t> high) {
  std::vector<std::string> alternatives;
  // Negative values: "-" and their magnitudes, from -min(high, -1) up to -low.
  const int64_t negative_high = high ? std::min<int64_t>(*high, -1) : -1;
  if (!low || *low <= negative_high) {
    const auto magnitude = [](int64_t value) { return static_cast<uint64_t>(-(value + 1)) + 1; };
    const uint64_t most = low ? magnitude(*low) : UINT64_MAX;
    alternatives.push_back("\"-\" " + Group(PositiveBetween(magnitude(negative_high), most)));
  }
  if ((!low || *low <= 0) && (!high || *high >= 0)) alternatives.emplace_back("\"0\"");
  const int64_t positive_low = low ? std::max<int64_t>(*low, 1) : 1;
  if (!high || *high >= positive_low) {
    alternatives.push_back(PositiveBetween(static_cast<uint64_t>(positive_low),
                                           high ? static_cast<uint64_t>(*high) : UINT64_MAX));
  }
  return GbnfWriter::Alternatives(alternatives);
}

// The least integer at or above `bound` (above it when `exclusive`); nullopt outside int64.
std::optional<int64_t> IntegerAbove(const SchemaNumber& bound, bool exclusive) {
  if (bound.is_integer && !exclusive) return bound.integer;
  if (bound.is_integer) {
    if (bound.integer == INT64_MAX) return std::nullopt;
    return bound.integer + 1;
  }
  const double value = exclusive ? std::floor(bound.value) + 1 : std::ceil(bound.value);
  if (!(value > -9.2e18 && value < 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(value);
}

// The greatest integer at or below `bound` (below it when `exclusive`); nullopt outside int64.
std::optional<int64_t> IntegerBelow(const SchemaNumber& bound, bool exclusive) {
  if (bound.is_integer && !exclusive) return bound.integer;
  if (bound.is_integer) {
    if (bound.integer == INT64_MIN) return std::nullopt;
    return bound.integer - 1;
  }
  const double value = exclusive ? std::ceil(bound.value) - 1 : std::floor(bound.value);
  if (!(value > -9.2e18 && value < 9.2e18)) return std::nullopt;
  return static_cast<int64_t>(value);
}

}  // namespace

class GbnfWriter::SchemaRules {
 public:
  SchemaRules(GbnfWriter& writer, const SchemaIr& ir, const GbnfOptions& options)
      : w_(writer),
        ir_(ir),
        options_(options),
        hint_(std::string("s").append(std::to_string(writer.schemas_++))) {}

  // The rule of node `id`'s values of `types` (written by Drain).
  std::string Value(NodeId id, uint8_t types) {
    if (id == kNoNode) return w_.AddJsonValue(options_);
    const uint8_t top = TopTypes(id);
    types = WithIntegers(types) & top;
    if (types == 0) return w_.Never();
    auto [it, added] = names_.try_emplace({id, types});
    if (added) {
      std::string hint = hint_ + "-n" + std::to_string(id);
      if (types != top) hint += "-t" + std::to_string(types);
      it->second = w_.NewName(hint);
      pending_.emplace_back(id, types, it->second);
    }
    return it->second;
  }

  // Writes the rules asked for, first asked first written.
  void Drain() {
    for (size_t next = 0; next < pending_.size(); ++next) {
      const auto [id, types, name] = pending_[next];
      current_ = name.substr(w_.prefix().size());
      w_.AddRule(name, Body(id, types));
    }
    pending_.clear();
  }

 private:
  struct Conjunct {
    std::string_view keyword;
    NodeId node = kNoNode;  // kNoNode: anyOf / oneOf (the node's lists)
  };

  void Loosen(std::string_view keyword, NodeId id) {
    const std::string& pointer = ir_.pointers.size() > id ? ir_.pointers[id] : std::string();
    w_.Loosen(std::string(keyword) + " at " + (pointer.empty() ? "(root)" : pointer) +
              options_.loosened_context);
  }

  std::string Body(NodeId id, uint8_t types);
  std::string Alternation(NodeId id, const Conjunct& conjunct, uint8_t types);
  std::string EnumBody(NodeId id, uint8_t types);
  std::string OwnBody(NodeId id, uint8_t types);
  std::string StringExpr(NodeId id);
  std::string IntegerExpr(NodeId id);
  std::string NumberExpr(NodeId id, bool integer);
  std::string ArrayExpr(NodeId id);
  std::string ArrayTail(uint64_t lo, uint64_t hi, const std::string& item, NodeId id);
  std::string ObjectExpr(NodeId id);
  std::string ExtraMember(NodeId id, bool& closed);
  bool HasOwnKeywords(const SchemaNode& node, uint8_t types) const;
  const std::string& Ws() {
    if (!ws_ready_) {
      ws_ = w_.Whitespace(options_.max_whitespace);
      comma_ = GbnfWriter::Sequence({ws_, "\",\"", ws_});
      ws_ready_ = true;
    }
    return ws_;
  }
  const std::string& Comma() {
    Ws();
    return comma_;
  }
  uint8_t TopTypes(NodeId id) { return PossibleTypes(ir_, id, top_types_); }
  bool Validates(NodeId id, std::string_view value);

  GbnfWriter& w_;
  const SchemaIr& ir_;
  SchemaIr probe_;  // a copy of ir_ whose root is moved to check enum values (on first use)
  bool probe_ready_ = false;
  const GbnfOptions& options_;
  std::string hint_;   // rule names of this schema: hint_-n<node>[-t<types>]
  std::string ws_;     // the whitespace rule ("" for none), made on first use
  std::string comma_;  // ws "," ws
  bool ws_ready_ = false;
  std::string current_;  // the rule being written, without the prefix (its helpers' names)
  std::map<std::pair<NodeId, uint8_t>, std::string> names_;
  std::vector<std::tuple<NodeId, uint8_t, std::string>> pending_;
  std::map<NodeId, uint8_t> top_types_;
};

bool GbnfWriter::SchemaRules::HasOwnKeywords(const SchemaNode& node, uint8_t types) const {
  const bool string =
      (types & kTypeString) != 0 && (node.min_length > 0 || node.max_length != UINT64_MAX ||
                                     node.has_pattern || node.format != StringFormat::kNone);
  const bool number = (types & kNumeric) != 0 && (node.minimum || node.maximum ||
                                                  node.exclusive_minimum || node.exclusive_maximum);
  const bool array =
      (types & kTypeArray) != 0 && (!node.prefix_items.empty() || node.items != kNoNode ||
                                    node.min_items > 0 || node.max_items != UINT64_MAX);
  const bool object =
      (types & kTypeObject) != 0 &&
      (!node.properties.empty() || !node.required.empty() || !node.pattern_properties.empty() ||
       node.additional_properties != kNoNode || node.property_names != kNoNode ||
       node.min_properties > 0 || node.max_properties != UINT64_MAX);
  return string || number || array || object;
}

std::string GbnfWriter::SchemaRules::Body(NodeId id, uint8_t types) {
  const SchemaNode& node = ir_.node(id);
  if (node.always_false) return w_.Never();
  if (node.has_enum || node.const_value) return EnumBody(id, types);
  types &= WithIntegers(node.types);
  std::vector<Conjunct> conjuncts;
  if (node.ref != kNoNode) conjuncts.push_back({"$ref", node.ref});
  for (const NodeId member : node.all_of)
    conjuncts.push_back({"allOf", member});
  if (!node.any_of.empty()) conjuncts.push_back({"anyOf"});
  if (!node.one_of.empty()) conjuncts.push_back({"oneOf"});
  types &= TopTypes(id);
  if (types == 0) return w_.Never();
  const bool own = HasOwnKeywords(node, types);
  for (size_t i = own ? 0 : 1; i < conjuncts.size(); ++i)
    Loosen(conjuncts[i].keyword, id);
  if (own || conjuncts.empty()) return OwnBody(id, types);
  const Conjunct& first = conjuncts[0];
  if (first.node != kNoNode) return Value(first.node, types);
  return Alternation(id, first, types);
}

std::string GbnfWriter::SchemaRules::Alternation(NodeId id, const Conjunct& conjunct,
                                                 uint8_t types) {
  const SchemaNode& node = ir_.node(id);
  const bool one_of = conjunct.keyword == "oneOf";
  std::vector<std::string> branches;
  uint8_t seen = 0;
  bool disjoint = true;
  for (const NodeId branch : one_of ? node.one_of : node.any_of) {
    const uint8_t branch_types = TopTypes(branch) & types;
    if (branch_types == 0) continue;
    // Branches of disjoint types cannot both match: oneOf is then anyOf.
    disjoint = disjoint && (seen & branch_types) == 0;
    seen |= branch_types;
    const std::string rule = Value(branch, types);
    if (!Has(branches, rule)) branches.push_back(rule);
  }
  if (one_of && !disjoint) Loosen("oneOf", id);
  if (branches.empty()) return w_.Never();
  return GbnfWriter::Alternatives(branches);
}

bool GbnfWriter::SchemaRules::Validates(NodeId id, std::string_view value) {
  if (!probe_ready_) {
    probe_ = ir_;
    probe_ready_ = true;
  }
  probe_.root = id;
  return Validate(probe_, value).valid();
}

std::string GbnfWriter::SchemaRules::EnumBody(NodeId id, uint8_t types) {
  const SchemaNode& node = ir_.node(id);
  std::vector<std::string> values = node.enum_values;
  if (node.const_value) values = {*node.const_value};
  std::vector<std::string> literals;
  for (const std::string& value : values) {
    if ((TypeOfCanonical(value) & types) == 0 || !Validates(id, value)) continue;
    std::string literal = Literal(value);
    if (!Has(literals, literal)) literals.push_back(std::move(literal));
  }
  if (literals.empty()) return w_.Never();
  return GbnfWriter::Alternatives(literals);
}

std::string GbnfWriter::SchemaRules::OwnBody(NodeId id, uint8_t types) {
  std::vector<std::string> alternatives;
  if ((types & kTypeNull) != 0) alternatives.emplace_back("\"null\"");
  if ((types & kTypeBoolean) != 0) {
    alternatives.emplace_back("\"true\"");
    alternatives.emplace_back("\"false\"");
  }
  if ((types & kTypeNumber) != 0) {
    alternatives.push_back(NumberExpr(id, false));
  } else if ((types & kTypeInteger) != 0) {
    alternatives.push_back(IntegerExpr(id));
  }
  if ((types & kTypeString) != 0) alternatives.push_back(StringExpr(id));
  if ((types & kTypeArray) != 0) alternatives.push_back(ArrayExpr(id));
  if ((types & kTypeObject) != 0) alternatives.push_back(ObjectExpr(id));
  return GbnfWriter::Alternatives(alternatives);
}

std::string GbnfWriter::SchemaRules::StringExpr(NodeId id) {
  const SchemaNode& node = ir_.node(id);
  if (node.has_pattern) Loosen("pattern", id);
  if (node.format != StringFormat::kNone) {
    Loosen("format:" + std::string(FormatName(node.format)), id);
  }
  uint64_t lo = node.min_length;
  uint64_t hi = node.max_length;
  if (lo == 0 && hi == UINT64_MAX) return w_.JsonString();
  if (lo > hi) return w_.Never();
  if (hi != UINT64_MAX && hi > options_.max_repeat) {
    Loosen("maxLength", id);
    hi = UINT64_MAX;
  }
  if (lo > options_.max_repeat) {
    Loosen("minLength", id);
    lo = options_.max_repeat;
  }
  return "\"\\\"\" " + w_.JsonChar() + Repeat(lo, hi) + " \"\\\"\"";
}

std::string GbnfWriter::SchemaRules::IntegerExpr(NodeId id) {
  const SchemaNode& node = ir_.node(id);
  std::optional<int64_t> low;
  std::optional<int64_t> high;
  bool exact = true;  // every bound is an int64 after rounding
  auto tighten = [&](const std::optional<SchemaNumber>& bound, bool exclusive, bool is_low) {
    if (!bound) return;
    const std::optional<int64_t> value =
        is_low ? IntegerAbove(*bound, exclusive) : IntegerBelow(*bound, exclusive);
    exact = exact && value.has_value();
    if (!value) return;
    auto& side = is_low ? low : high;
    side = !side ? *value : is_low ? std::max(*side, *value) : std::min(*side, *value);
  };
  tighten(node.minimum, false, true);
  tighten(node.exclusive_minimum, true, true);
  tighten(node.maximum, false, false);
  tighten(node.exclusive_maximum, true, false);
  if (!exact) return NumberExpr(id, true);
  if (!low && !high) return w_.JsonNumber(JsonNumberKind::kInteger);
  if (low && high && *low > *high) return w_.Never();
  return IntegerRange(low, high);
}

std::string GbnfWriter::SchemaRules::NumberExpr(NodeId id, bool integer) {
  const SchemaNode& node = ir_.node(id);
  // The least value allowed, where the grammar can say it: none, 0 or (integers) 1.
  double lower = -INFINITY;
  if (node.minimum) lower = NumberValue(*node.minimum);
  if (node.exclusive_minimum) {
    const double bound = NumberValue(*node.exclusive_minimum);
    lower = std::max(lower, integer ? std::floor(bound) + 1 : std::nextafter(bound, INFINITY));
  }
  if (integer) lower = std::ceil(lower);
  JsonNumberKind kind = integer ? JsonNumberKind::kInteger : JsonNumberKind::kNumber;
  bool lower_exact = !node.minimum && !node.exclusive_minimum;
  if (integer && lower >= 1) {
    kind = JsonNumberKind::kPositiveInteger;
    lower_exact = lower == 1;
  } else if (lower >= 0) {
    kind = integer ? JsonNumberKind::kNonNegativeInteger : JsonNumberKind::kNonNegativeNumber;
    lower_exact = lower == 0 && !node.exclusive_minimum;
  }
  if (!lower_exact) {
    if (node.minimum) Loosen("minimum", id);
    if (node.exclusive_minimum) Loosen("exclusiveMinimum", id);
  }
  if (node.maximum) Loosen("maximum", id);
  if (node.exclusive_maximum) Loosen("exclusiveMaximum", id);
  return w_.JsonNumber(kind);
}

std::string GbnfWriter::SchemaRules::ArrayTail(uint64_t lo, uint64_t hi, const std::string& item,
                                               NodeId id) {
  if (hi == 0) return "";
  if (hi != UINT64_MAX && hi > options_.max_repeat) {
    Loosen("maxItems", id);
    hi = UINT64_MAX;
  }
  if (lo > options_.max_repeat) {
    Loosen("minItems", id);
    lo = options_.max_repeat;
  }
  const std::string name = w_.NewName(current_ + "-items");
  w_.AddRule(name, "( " + GbnfWriter::Sequence({Comma(), item}) + " )" + Repeat(lo, hi));
  return name;
}

std::string GbnfWriter::SchemaRules::ArrayExpr(NodeId id) {
  const SchemaNode& node = ir_.node(id);
  const size_t prefix = node.prefix_items.size();
  uint64_t lo = node.min_items;
  uint64_t hi = node.max_items;
  const bool closed = node.items != kNoNode && ir_.node(node.items).always_false;
  if (closed) hi = std::min<uint64_t>(hi, prefix);
  for (size_t i = 0; i < prefix; ++i) {
    if (ir_.node(node.prefix_items[i]).always_false) hi = std::min<uint64_t>(hi, i);
  }
  if (lo > hi) return w_.Never();
  const std::string open = GbnfWriter::Sequence({"\"[\"", Ws()});
  if (hi == 0) return GbnfWriter::Sequence({open, "\"]\""});
  const std::string item = closed ? "" : Value(node.items, kTypeAny);
  // rest: the elements after the first `i` (i ≥ 1), built from the tail back.
  std::string rest;
  if (prefix == 0) {
    rest = ArrayTail(lo > 0 ? lo - 1 : 0, hi == UINT64_MAX ? hi : hi - 1, item, id);
  } else {
    const uint64_t tail_hi = hi == UINT64_MAX ? hi : (hi > prefix ? hi - prefix : 0);
    rest = ArrayTail(lo > prefix ? lo - prefix : 0, tail_hi, item, id);
    for (size_t i = prefix; i-- > 1;) {
      if (i >= hi) {
        rest.clear();
        continue;
      }
      std::string body =
          GbnfWriter::Sequence({Comma(), Value(node.prefix_items[i], kTypeAny), rest});
      if (i >= lo) body = "( " + body + " )?";
      rest = w_.NewName(current_ + "-at" + std::to_string(i));
      w_.AddRule(rest, body);
    }
  }
  const std::string first = prefix == 0 ? item : Value(node.prefix_items[0], kTypeAny);
  const std::string elements = GbnfWriter::Sequence({first, rest});
  if (lo == 0) return GbnfWriter::Sequence({open, "(", elements, Ws(), ")?", "\"]\""});
  return GbnfWriter::Sequence({open, elements, Ws(), "\"]\""});
}

std::string GbnfWriter::SchemaRules::ExtraMember(NodeId id, bool& closed) {
  const SchemaNode& node = ir_.node(id);
  closed = false;
  std::string value;
  if (!node.pattern_properties.empty()) {
    Loosen("patternProperties", id);  // their names and values: any
    value = w_.AddJsonValue(options_);
  } else if (node.additional_properties != kNoNode) {
    closed = ir_.node(node.additional_properties).always_false;
    if (!closed) value = Value(node.additional_properties, kTypeAny);
  } else if (options_.strict_objects && !node.properties.empty()) {
    closed = true;
  } else {
    value = w_.AddJsonValue(options_);
  }
  if (closed) return "";
  // An extra member's name may repeat a listed one: keys are not kept unique.
  if (!node.properties.empty()) Loosen("unique keys", id);
  const std::string name = w_.NewName(current_ + "-extra");
  w_.AddRule(name, GbnfWriter::Sequence({w_.JsonString(), Ws(), "\":\"", Ws(), value}));
  return name;
}

std::string GbnfWriter::SchemaRules::ObjectExpr(NodeId id) {
  const SchemaNode& node = ir_.node(id);
  if (node.property_names != kNoNode) Loosen("propertyNames", id);
  bool closed = false;
  const std::string extra = ExtraMember(id, closed);
  std::vector<GbnfItem> items;
  auto member = [&](std::string_view name, const std::string& value) {
    std::string key;
    text::AppendJsonString(key, name);
    return GbnfWriter::Sequence({Literal(key), Ws(), "\":\"", Ws(), value});
  };
  for (const PropertySchema& property : node.properties) {
    const bool required = Has(node.required, property.name);
    if (ir_.node(property.schema).always_false) {
      if (required) return w_.Never();
      continue;
    }
    items.push_back({member(property.name, Value(property.schema, kTypeAny)), required});
  }
  // Required names the object does not list: written after the listed ones, valued as extras.
  for (const std::string& name : node.required) {
    const bool listed = std::any_of(node.properties.begin(), node.properties.end(),
                                    [&](const PropertySchema& p) { return p.name == name; });
    if (listed) continue;
    if (closed) return w_.Never();
    const std::string value = node.additional_properties != kNoNode
                                  ? Value(node.additional_properties, kTypeAny)
                                  : w_.AddJsonValue(options_);
    items.push_back({member(name, value), true});
  }
  if (node.min_properties > static_cast<uint64_t>(std::count_if(
                                items.begin(), items.end(), [](auto& i) { return i.required; })))
    Loosen("minProperties", id);
  if (node.max_properties < (extra.empty() ? items.size() : UINT64_MAX))
    Loosen("maxProperties", id);
  const GbnfList list = w_.AddList(items, Comma(), extra);
  const std::string open = GbnfWriter::Sequence({"\"{\"", Ws()});
  if (list.rule.empty()) return GbnfWriter::Sequence({open, "\"}\""});
  if (list.can_be_empty) return GbnfWriter::Sequence({open, "(", list.rule, Ws(), ")?", "\"}\""});
  return GbnfWriter::Sequence({open, list.rule, Ws(), "\"}\""});
}

std::vector<std::string> GbnfWriter::AddSchemaValues(const SchemaIr& ir,
                                                     const std::vector<GbnfValue>& values,
                                                     const GbnfOptions& options) {
  for (const NotEnforced& entry : ir.not_enforced) {
    Loosen(entry.keyword + " at " + (entry.json_pointer.empty() ? "(root)" : entry.json_pointer) +
           options.loosened_context);
  }
  SchemaRules rules(*this, ir, options);
  std::vector<std::string> names;
  names.reserve(values.size());
  for (const GbnfValue& value : values)
    names.push_back(rules.Value(value.node == kNoNode ? ir.root : value.node, value.types));
  rules.Drain();
  return names;
}

}  // namespace crux::constrain
