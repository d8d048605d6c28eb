// JSON Schema (drafts 7 and 2020-12) compiled into a typed, flat intermediate form: the one
// place untyped schema JSON is read. Everything downstream (the grammar that constrains
// decoding, the validator) works on SchemaIr alone.
//
// Thread-safety: CompileSchema is a pure function; a SchemaIr is immutable once built and may
// be shared between threads. Cost: linear in the schema's size (each `$ref` target is compiled
// once; recursive references become nodes that name each other by id).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"

namespace crux::constrain {

// Limits on hostile schemas; past each one CompileSchema returns ErrorCode::kLimit naming it.
inline constexpr size_t kMaxSchemaBytes = size_t{8} << 20;  // schema text, bytes
inline constexpr size_t kMaxNestingDepth = 128;    // arrays/objects nested in schema or instance
inline constexpr size_t kMaxSchemaNodes = 200000;  // IR nodes (subschemas) in one schema
inline constexpr size_t kMaxEnumValues = 10000;    // values of one `enum`
inline constexpr size_t kMaxPatternBytes = 2048;   // one `pattern` / `patternProperties` key

// Index of a node in SchemaIr::nodes.
using NodeId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

// The JSON types a node admits, as bits of SchemaNode::types. kTypeNumber admits integers too.
enum TypeBits : uint8_t {
  kTypeNull = 1,
  kTypeBoolean = 2,
  kTypeInteger = 4,
  kTypeNumber = 8,
  kTypeString = 16,
  kTypeArray = 32,
  kTypeObject = 64,
  kTypeAny = 127,
};

// `types` with kTypeInteger wherever kTypeNumber is: every integer is a number.
constexpr uint8_t WithIntegers(uint8_t types) {
  return (types & kTypeNumber) != 0 ? static_cast<uint8_t>(types | kTypeInteger) : types;
}

// The `format`s that are enforced; any other format is listed in SchemaIr::not_enforced.
enum class StringFormat : uint8_t {
  kNone,
  kDate,      // RFC 3339 full-date
  kTime,      // RFC 3339 full-time (offset required)
  kDateTime,  // RFC 3339 date-time
  kEmail,     // dot-atom local part @ hostname
  kUuid,      // RFC 4122 text form, any version
  kUri,       // RFC 3986 absolute URI (scheme required)
  kIpv4,      // dotted quad, no leading zeros
  kIpv6,      // RFC 4291 text form, with `::` and an embedded IPv4 tail
  kHostname,  // RFC 1123 labels, 253 bytes at most
};

// A number from a schema: exact when it is an integer that fits int64, else a double.
struct SchemaNumber {
  bool is_integer = false;
  int64_t integer = 0;
  double value = 0;
  bool operator==(const SchemaNumber&) const = default;
};

// A named property's schema.
struct PropertySchema {
  std::string name;
  NodeId schema = kNoNode;
  bool operator==(const PropertySchema&) const = default;
};

// One subschema. Every constraint applies to instances of the types it concerns only (a
// `minLength` constrains strings and lets numbers through), as in JSON Schema.
struct SchemaNode {
  uint8_t types = kTypeAny;   // TypeBits; 0 with always_false
  bool always_false = false;  // the `false` schema: nothing validates
  NodeId ref = kNoNode;       // `$ref` target, checked beside this node's own keywords
  std::vector<NodeId> all_of;
  std::vector<NodeId> any_of;
  std::vector<NodeId> one_of;
  // `enum` values and the `const` value as canonical JSON text: keys sorted, integral numbers
  // without a fraction (1.0 is 1), no whitespace.
  bool has_enum = false;
  std::vector<std::string> enum_values;
  std::optional<std::string> const_value;
  // Numbers (integers and numbers).
  std::optional<SchemaNumber> minimum;
  std::optional<SchemaNumber> maximum;
  std::optional<SchemaNumber> exclusive_minimum;
  std::optional<SchemaNumber> exclusive_maximum;
  // Strings; lengths count Unicode code points.
  uint64_t min_length = 0;
  uint64_t max_length = UINT64_MAX;
  // An ECMAScript regular expression, searched for (not anchored). The validator and the
  // constraining grammar run it as the same byte automaton (src/constrain/regex.h). has_pattern
  // is false when the pattern is outside the supported subset (then `pattern` is in
  // not_enforced).
  bool has_pattern = false;
  std::string pattern;
  StringFormat format = StringFormat::kNone;
  // Arrays: item i < prefix_items.size() follows prefix_items[i], the rest follow items.
  std::vector<NodeId> prefix_items;
  NodeId items = kNoNode;  // kNoNode: any value
  uint64_t min_items = 0;
  uint64_t max_items = UINT64_MAX;
  // Objects.
  std::vector<PropertySchema> properties;  // in schema order
  std::vector<std::string> required;
  std::vector<PropertySchema> pattern_properties;  // name = the pattern
  NodeId additional_properties = kNoNode;  // for names neither listed nor matched; kNoNode: any
  NodeId property_names = kNoNode;         // every name (as a string instance); kNoNode: any
  uint64_t min_properties = 0;
  uint64_t max_properties = UINT64_MAX;
  bool operator==(const SchemaNode&) const = default;
};

// A keyword the IR does not enforce, where it was found.
struct NotEnforced {
  std::string keyword;       // "multipleOf", "format:uri-reference", "if", …
  std::string json_pointer;  // of the keyword in the schema document ("/properties/a/not")
};

// The draft a schema declares in its root `$schema` (2020-12 when absent or unknown). It
// decides two rules: in draft 4 an integer is a number written without fraction or exponent
// (1.0 is not one; from draft 6 on it is), and up to draft 7 a `$ref` makes the other keywords
// of its schema ignored (from 2019-09 on they apply beside it).
enum class Draft : uint8_t { kDraft4, kDraft6, kDraft7, kDraft2019, kDraft2020 };

// A compiled schema. nodes[root] is the whole schema.
struct SchemaIr {
  std::vector<SchemaNode> nodes;
  NodeId root = 0;
  Draft draft = Draft::kDraft2020;
  std::vector<NotEnforced> not_enforced;  // empty: every keyword is enforced
  std::vector<std::string> pointers;      // JSON pointer of each node's schema ("" = root)
  // How long CompileSchema took, in microseconds: CompiledGrammar::Compile counts it toward
  // the compile time past which it makes no token sets ahead.
  uint64_t compile_us = 0;

  const SchemaNode& node(NodeId id) const { return nodes[id]; }
};

struct SchemaOptions {
  // When true, a keyword that cannot be enforced is an error (kUnsupported) instead of an
  // entry in SchemaIr::not_enforced.
  bool reject_not_enforced = false;
};

// Parses and compiles a JSON Schema. Local `$ref`s only: `#`, `#/$defs/x`, any JSON pointer
// into the document (with `~0`/`~1` and percent escapes), anchors (`$anchor`, and `$id`/`id`
// of the form "#name"), optionally prefixed with the root `$id`; a `$ref` to another document
// is kUnsupported and is never fetched. Errors name the keyword and its JSON pointer: kParse
// (not JSON), kInvalidArgument (a keyword's value has the wrong type or range, a `$ref` does
// not resolve, a `$ref` cycle that never reaches a keyword about the instance), kUnsupported,
// kLimit (the constants above).
Expected<SchemaIr> CompileSchema(std::string_view schema_json, const SchemaOptions& options = {});

// The types a value valid against node `id` can have (TypeBits, with kTypeInteger wherever
// kTypeNumber is, every integer being a number): its `type`, narrowed by the values of its
// `enum` or `const`, by its `$ref` and `allOf`, and by the union of its `anyOf` branches and
// of its `oneOf` branches. `memo` keeps the nodes worked out; a node met again while it is
// being worked out (a recursive `$ref`) counts as any type there.
uint8_t PossibleTypes(const SchemaIr& ir, NodeId id, std::map<NodeId, uint8_t>& memo);

// Any JSON value (generic JSON mode).
SchemaIr AnyJsonSchema();
// Any JSON object (`response_format: json_object`).
SchemaIr AnyObjectSchema();

}  // namespace crux::constrain
