#include <gtest/gtest.h>

#include <string>

#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"

namespace crux::constrain {
namespace {

SchemaIr MustCompile(const std::string& schema) {
  auto ir = CompileSchema(schema);
  EXPECT_TRUE(ir.ok()) << schema << ": " << (ir.ok() ? "" : ir.error().message());
  return ir.ok() ? std::move(ir).value() : SchemaIr{};
}

// The error of a schema that must not compile.
Error MustFail(const std::string& schema, const SchemaOptions& options = {}) {
  auto ir = CompileSchema(schema, options);
  EXPECT_FALSE(ir.ok()) << schema;
  return ir.ok() ? Error(ErrorCode::kInternal, "compiled") : ir.error();
}

TEST(SchemaCompileTest, TypedFields) {
  const SchemaIr ir = MustCompile(R"({
    "type": "object", "required": ["a"], "additionalProperties": false,
    "minProperties": 1, "maxProperties": 3,
    "properties": {
      "a": {"type": ["string", "null"], "minLength": 2, "maxLength": 5, "pattern": "^x",
            "format": "email"},
      "b": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10.5},
      "c": {"type": "array", "prefixItems": [{"const": 1.0}], "items": {"enum": [{"b":1,"a":2}]},
            "minItems": 1, "maxItems": 4}
    },
    "patternProperties": {"^p_": true}, "propertyNames": {"maxLength": 8}})");
  ASSERT_EQ(ir.nodes.size(), 9u);
  const SchemaNode& root = ir.node(ir.root);
  EXPECT_EQ(root.types, kTypeObject);
  EXPECT_EQ(root.required, std::vector<std::string>{"a"});
  ASSERT_EQ(root.properties.size(), 3u);
  EXPECT_EQ(root.properties[0].name, "a");  // schema order
  EXPECT_EQ(root.min_properties, 1u);
  EXPECT_EQ(root.max_properties, 3u);
  EXPECT_TRUE(ir.node(root.additional_properties).always_false);
  EXPECT_EQ(root.pattern_properties.at(0).name, "^p_");
  EXPECT_EQ(ir.node(root.property_names).max_length, 8u);
  const SchemaNode& a = ir.node(root.properties[0].schema);
  EXPECT_EQ(a.types, kTypeString | kTypeNull);
  EXPECT_EQ(a.min_length, 2u);
  EXPECT_EQ(a.max_length, 5u);
  EXPECT_TRUE(a.has_pattern);
  EXPECT_EQ(a.format, StringFormat::kEmail);
  const SchemaNode& b = ir.node(root.properties[1].schema);
  EXPECT_EQ(b.minimum->integer, 1);
  EXPECT_FALSE(b.exclusive_maximum->is_integer);
  EXPECT_DOUBLE_EQ(b.exclusive_maximum->value, 10.5);
  const SchemaNode& c = ir.node(root.properties[2].schema);
  EXPECT_EQ(*ir.node(c.prefix_items.at(0)).const_value, "1");
  EXPECT_EQ(ir.node(c.items).enum_values.at(0), R"({"a":2,"b":1})");
  EXPECT_EQ(c.max_items, 4u);
  EXPECT_TRUE(ir.not_enforced.empty());
}

TEST(SchemaCompileTest, Draft7TupleAndDraft4ExclusiveBounds) {
  const SchemaIr ir = MustCompile(R"({"items": [{"type": "string"}], "additionalItems": false,
    "minimum": 3, "exclusiveMinimum": true})");
  const SchemaNode& root = ir.node(ir.root);
  EXPECT_EQ(root.prefix_items.size(), 1u);
  EXPECT_TRUE(ir.node(root.items).always_false);
  EXPECT_FALSE(root.minimum.has_value());
  EXPECT_EQ(root.exclusive_minimum->integer, 3);
}

TEST(SchemaCompileTest, NullableAddsNull) {
  const SchemaIr ir = MustCompile(R"({"type": "string", "nullable": true})");
  EXPECT_EQ(ir.node(ir.root).types, kTypeString | kTypeNull);
}

TEST(SchemaCompileTest, RecursiveRefIsACycleOfIds) {
  const SchemaIr ir = MustCompile(R"({"$ref": "#/$defs/node", "$defs": {"node": {
    "type": "object", "properties": {"next": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/node"}]},
    "self": {"$ref": "#"}}}}})");
  const SchemaNode& root = ir.node(ir.root);
  const NodeId node = root.ref;
  ASSERT_NE(node, kNoNode);
  const SchemaNode& next = ir.node(ir.node(node).properties[0].schema);
  EXPECT_EQ(ir.node(next.any_of[1]).ref, node);
  EXPECT_EQ(ir.node(ir.node(node).properties[1].schema).ref, ir.root);
}

TEST(SchemaCompileTest, RefEscapesAndDefinitions) {
  const SchemaIr ir = MustCompile(R"({"definitions": {"a/b": {"type": "string"},
    "c~d": {"type": "null"}, "e f": {"type": "boolean"}},
    "anyOf": [{"$ref": "#/definitions/a~1b"}, {"$ref": "#/definitions/c~0d"},
              {"$ref": "#/definitions/e%20f"}]})");
  const SchemaNode& root = ir.node(ir.root);
  EXPECT_EQ(ir.node(ir.node(root.any_of[0]).ref).types, kTypeString);
  EXPECT_EQ(ir.node(ir.node(root.any_of[1]).ref).types, kTypeNull);
  EXPECT_EQ(ir.node(ir.node(root.any_of[2]).ref).types, kTypeBoolean);
}

TEST(SchemaCompileTest, AnchorsAndTheRootId) {
  const SchemaIr ir = MustCompile(R"({"$id": "https://example.com/s.json",
    "$defs": {"a": {"$anchor": "name", "type": "string"}, "b": {"$id": "#old", "type": "null"}},
    "anyOf": [{"$ref": "#name"}, {"$ref": "#old"}, {"$ref": "https://example.com/s.json#/$defs/a"},
              {"$ref": "#draft4"}], "properties": {"x": {"id": "#draft4", "type": "boolean"}}})");
  const SchemaNode& root = ir.node(ir.root);
  EXPECT_EQ(ir.node(ir.node(root.any_of[0]).ref).types, kTypeString);
  EXPECT_EQ(ir.node(ir.node(root.any_of[1]).ref).types, kTypeNull);
  EXPECT_EQ(ir.node(root.any_of[2]).ref, ir.node(root.any_of[0]).ref);
  EXPECT_EQ(ir.node(ir.node(root.any_of[3]).ref).types, kTypeBoolean);
  EXPECT_EQ(
      MustFail(R"({"$id": "https://example.com/s.json", "$ref": "https://example.com/t.json"})")
          .code(),
      ErrorCode::kUnsupported);
}

TEST(SchemaCompileTest, DraftRules) {
  const SchemaIr draft7 = MustCompile(R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s",
    "type": "integer", "multipleOf": 2}}})");
  EXPECT_EQ(draft7.draft, Draft::kDraft7);
  const SchemaNode& a = draft7.node(draft7.node(draft7.root).properties[0].schema);
  EXPECT_EQ(a.types, kTypeAny);  // the siblings of $ref are ignored up to draft 7
  EXPECT_TRUE(draft7.not_enforced.empty());
  const SchemaIr draft2020 = MustCompile(R"({"$defs": {"s": {"type": "string"}},
    "$ref": "#/$defs/s", "maxLength": 3})");
  EXPECT_EQ(draft2020.draft, Draft::kDraft2020);
  EXPECT_EQ(draft2020.node(draft2020.root).max_length, 3u);
  EXPECT_EQ(MustCompile(R"({"$schema": "http://json-schema.org/draft-04/schema#"})").draft,
            Draft::kDraft4);
}

TEST(SchemaCompileTest, ReportsKeywordsNotEnforced) {
  const SchemaIr ir =
      MustCompile(R"({"properties": {"a": {"multipleOf": 2, "format": "uri-reference",
    "not": {}, "title": "t", "description": "d", "examples": [1], "default": 1}},
    "uniqueItems": false, "if": {}, "frobnicate": 1, "$comment": "c", "$schema": "s"})");
  ASSERT_EQ(ir.not_enforced.size(), 5u);
  EXPECT_EQ(ir.not_enforced[0].keyword, "multipleOf");
  EXPECT_EQ(ir.not_enforced[0].json_pointer, "/properties/a/multipleOf");
  EXPECT_EQ(ir.not_enforced[1].keyword, "format:uri-reference");
  EXPECT_EQ(ir.not_enforced[1].json_pointer, "/properties/a/format");
  EXPECT_EQ(ir.not_enforced[2].keyword, "not");
  EXPECT_EQ(ir.not_enforced[3].keyword, "if");
  EXPECT_EQ(ir.not_enforced[4].keyword, "frobnicate");
  SchemaOptions strict;
  strict.reject_not_enforced = true;
  const Error error = MustFail(R"({"items": {"uniqueItems": true}})", strict);
  EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
  EXPECT_NE(error.message().find("'uniqueItems' at '/items/uniqueItems'"), std::string::npos);
}

TEST(SchemaCompileTest, ErrorsNameKeywordAndPointer) {
  struct Case {
    const char* schema;
    ErrorCode code;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"properties": {"a": {"minLength": "3"}}})", ErrorCode::kInvalidArgument,
       "'minLength' at '/properties/a/minLength'"},
      {R"({"type": "strng"})", ErrorCode::kInvalidArgument, "'type' at '/type'"},
      {R"({"required": [1]})", ErrorCode::kInvalidArgument, "'required' at '/required'"},
      {R"({"anyOf": []})", ErrorCode::kInvalidArgument, "'anyOf' at '/anyOf'"},
      {R"({"items": 3})", ErrorCode::kInvalidArgument, "schema at '/items'"},
      {R"({"$ref": "#/$defs/missing"})", ErrorCode::kInvalidArgument, "does not resolve"},
      {R"({"$ref": "https://example.com/s.json"})", ErrorCode::kUnsupported, "never fetched"},
      {R"({"$ref": "#anchor"})", ErrorCode::kInvalidArgument, "no schema has this anchor"},
      {R"({"$ref": "other.json#/a"})", ErrorCode::kUnsupported, "not a local reference"},
      {R"({"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})",
       ErrorCode::kInvalidArgument, "never reaches the instance"},
      {R"({"allOf": [{"$ref": "#"}]})", ErrorCode::kInvalidArgument, "never reaches"},
      {R"({"type": "string",)", ErrorCode::kParse, "not valid JSON"},
  };
  for (const Case& c : cases) {
    const Error error = MustFail(c.schema);
    EXPECT_EQ(error.code(), c.code) << c.schema;
    EXPECT_NE(error.message().find(c.fragment), std::string::npos)
        << c.schema << " → " << error.message();
  }
}

TEST(SchemaCompileTest, Limits) {
  const std::string big(kMaxSchemaBytes + 1, ' ');
  EXPECT_EQ(MustFail(big).code(), ErrorCode::kLimit);
  std::string deep;
  for (size_t i = 0; i <= kMaxNestingDepth; ++i)
    deep += R"({"items":)";
  deep += "{}";
  for (size_t i = 0; i <= kMaxNestingDepth; ++i)
    deep += "}";
  EXPECT_NE(MustFail(deep).message().find("kMaxNestingDepth"), std::string::npos);
  std::string values = "[0";
  for (size_t i = 1; i <= kMaxEnumValues; ++i)
    values += "," + std::to_string(i);
  const Error enum_error = MustFail(R"({"enum": )" + values + "]}");
  EXPECT_EQ(enum_error.code(), ErrorCode::kLimit);
  EXPECT_NE(enum_error.message().find("'enum' at '/enum'"), std::string::npos);
  const std::string pattern(kMaxPatternBytes + 1, 'a');
  EXPECT_EQ(MustFail(R"({"pattern": ")" + pattern + R"("})").code(), ErrorCode::kLimit);
  std::string many = R"({"anyOf": [{})";
  for (size_t i = 0; i < kMaxSchemaNodes; ++i)
    many += ",{}";
  EXPECT_NE(MustFail(many + "]}").message().find("kMaxSchemaNodes"), std::string::npos);
}

// Several MB of schema (50,000 properties, an enum at the limit) compile in linear time.
TEST(SchemaCompileTest, LargeSchemasCompile) {
  std::string properties;
  for (int i = 0; i < 50000; ++i) {
    properties += (i ? ",\"p" : "\"p") + std::to_string(i) +
                  R"(": {"type": "string", "maxLength": 100, "description": "a property"})";
  }
  std::string values = "0";
  for (size_t i = 1; i < kMaxEnumValues; ++i)
    values += "," + std::to_string(i);
  const std::string schema = R"({"properties": {)" + properties +
                             R"(}, "additionalProperties": {"enum": [)" + values + "]}}";
  ASSERT_GT(schema.size(), size_t{3} << 20);
  const SchemaIr ir = MustCompile(schema);
  EXPECT_EQ(ir.node(ir.root).properties.size(), 50000u);
  EXPECT_EQ(ir.node(ir.node(ir.root).additional_properties).enum_values.size(), kMaxEnumValues);
  std::string instance = "{";
  for (int i = 0; i < 50000; ++i)
    instance += (i ? ",\"p" : "\"p") + std::to_string(i) + R"(": "v")";
  EXPECT_TRUE(Validate(ir, instance + R"(, "extra": 9999})").valid());
  EXPECT_FALSE(Validate(ir, instance + R"(, "extra": 10000})").valid());
}

TEST(SchemaCompileTest, NulBytesAreData) {
  const SchemaIr ir = MustCompile(R"({"properties": {"a\u0000b": {"const": "x\u0000y"}},
    "required": ["a\u0000b"]})");
  EXPECT_EQ(ir.node(ir.root).properties[0].name, std::string("a\0b", 3));
  const std::string raw("{\"type\": \"str\0ing\"}", 20);
  EXPECT_FALSE(CompileSchema(raw).ok());
}

TEST(SchemaCompileTest, UnsupportedPatternIsReported) {
  const SchemaIr ir = MustCompile(R"({"pattern": "(?<name>a)\\p{L}"})");
  EXPECT_FALSE(ir.node(ir.root).has_pattern);
  ASSERT_EQ(ir.not_enforced.size(), 1u);
  EXPECT_EQ(ir.not_enforced[0].json_pointer, "/pattern");
}

TEST(SchemaCompileTest, BuiltInSchemas) {
  EXPECT_EQ(AnyJsonSchema().node(0).types, kTypeAny);
  EXPECT_EQ(AnyObjectSchema().node(0).types, kTypeObject);
}

}  // namespace
}  // namespace crux::constrain
