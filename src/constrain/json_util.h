// Helpers shared by the schema compiler and the validator (private to constrain/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {

// Schema documents keep their key order (the grammar emits properties in schema order).
using Json = nlohmann::ordered_json;

// Parses one JSON text into an ordered document in linear time (nlohmann's own ordered parse
// checks every key against the object's earlier keys, quadratic in an object's size). Duplicate
// names are all kept, in order. Throws nothing: a syntax error is ErrorCode::kParse.
Expected<Json> ParseJson(std::string_view text);

// True when arrays and objects in `text` nest deeper than `limit` (brackets inside strings do
// not count). Linear, stops at the first level past the limit.
bool NestsDeeperThan(std::string_view text, size_t limit);

// Canonical JSON text of `value`: object keys sorted, integral numbers (1.0) written as
// integers, no whitespace. Two JSON values are equal in JSON Schema's sense exactly when their
// canonical texts are equal.
std::string CanonicalJson(const Json& value);

// The JSON type of a canonical JSON text (an enum or const value), as one TypeBits bit: a
// number with no '.', 'e' or 'E' is kTypeInteger, any other number kTypeNumber. Decided by the
// first byte (a number's bytes are searched too); `text` is not validated.
uint8_t TypeOfCanonical(std::string_view text);

// A JSON number as a SchemaNumber (exact when integral and within int64).
SchemaNumber ToSchemaNumber(const Json& value);

// True when the number `value` is an integer in JSON Schema's sense (1.0 is).
bool IsIntegral(const Json& value);

// Appends `/token` to a JSON pointer, escaping `~` and `/`.
void AppendPointerToken(std::string& pointer, std::string_view token);

// Number of Unicode code points in well-formed UTF-8 `text`.
size_t CodePointCount(std::string_view text);

// Compares two numbers: negative, zero or positive. Exact for two integers, else in double.
int CompareNumbers(const SchemaNumber& a, const SchemaNumber& b);

}  // namespace crux::constrain
