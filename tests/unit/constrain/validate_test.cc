#include "crux/constrain/validate.h"

#include <gtest/gtest.h>

#include <string>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {
namespace {

// One instance against one schema: valid, or the first violation's pointer and keyword.
struct Case {
  const char* schema;
  const char* instance;
  bool valid;
  const char* pointer = "";
  const char* keyword = "";
};

void RunCase(const Case& c) {
  auto ir = CompileSchema(c.schema);
  ASSERT_TRUE(ir.ok()) << c.schema << ": " << ir.error().message();
  const ValidationResult result = Validate(*ir, c.instance);
  EXPECT_EQ(result.valid(), c.valid) << c.schema << " / " << c.instance;
  if (c.valid || result.valid()) return;
  EXPECT_EQ(result.violations[0].json_pointer, c.pointer) << c.schema << " / " << c.instance;
  EXPECT_EQ(result.violations[0].keyword, c.keyword) << c.schema << " / " << c.instance;
  EXPECT_FALSE(result.violations[0].message.empty());
}

TEST(ValidateTest, TypesAndEnums) {
  const Case cases[] = {
      {R"({"type": "integer"})", "3", true},
      {R"({"type": "integer"})", "3.0", true},
      {R"({"type": "integer"})", "3.5", false, "", "type"},
      {R"({"type": "number"})", "3", true},
      {R"({"type": ["string", "null"]})", "null", true},
      {R"({"type": ["string", "null"]})", "true", false, "", "type"},
      {R"({"type": "boolean"})", "0", false, "", "type"},
      {R"({"type": "string", "nullable": true})", "null", true},
      {R"({"enum": [1, "a", {"x": [1]}]})", R"({"x": [1.0]})", true},
      {R"({"enum": [1, "a"]})", R"("b")", false, "", "enum"},
      {R"({"const": {"a": 1, "b": 2}})", R"({"b": 2, "a": 1})", true},
      {R"({"const": 2})", "2.5", false, "", "const"},
      {"false", "1", false, "", "false"},
      {"true", R"({"any": [1]})", true},
  };
  for (const Case& c : cases)
    RunCase(c);
}

TEST(ValidateTest, DraftRules) {
  const char* draft4 =
      R"({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"})";
  RunCase({draft4, "3", true});
  RunCase({draft4, "3.0", false, "", "type"});
  const char* draft7 = R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s",
    "type": "integer"}}})";
  RunCase({draft7, R"({"a": "x"})", true});
  RunCase({draft7, R"({"a": 1})", false, "/a", "type"});
  RunCase({R"({"$defs": {"s": {"type": "string"}}, "$ref": "#/$defs/s", "maxLength": 1})",
           R"("ab")", false, "", "maxLength"});
}

TEST(ValidateTest, Numbers) {
  const Case cases[] = {
      {R"({"minimum": 5})", "5", true},
      {R"({"minimum": 5})", "4.999", false, "", "minimum"},
      {R"({"exclusiveMinimum": 5})", "5", false, "", "exclusiveMinimum"},
      {R"({"maximum": 9007199254740993})", "9007199254740993", true},
      {R"({"maximum": 9007199254740992})", "9007199254740993", false, "", "maximum"},
      {R"({"exclusiveMaximum": 1.5})", "1.4", true},
      {R"({"exclusiveMaximum": 1.5})", "1.5", false, "", "exclusiveMaximum"},
      {R"({"maximum": 3, "exclusiveMaximum": true})", "3", false, "", "exclusiveMaximum"},
      {R"({"minimum": 3})", R"("a string")", true},
  };
  for (const Case& c : cases)
    RunCase(c);
}

TEST(ValidateTest, Strings) {
  const Case cases[] = {
      {R"({"minLength": 2})", R"("é")", false, "", "minLength"},
      {R"({"maxLength": 2})", R"("éé")", true},
      {R"({"maxLength": 2})", R"("abc")", false, "", "maxLength"},
      {R"({"pattern": "b+"})", R"("abbc")", true},
      {R"({"pattern": "^b+$"})", R"("abbc")", false, "", "pattern"},
      {R"({"const": "a\u0000b"})", R"("a\u0000b")", true},
      {R"({"format": "date"})", R"("2024-02-29")", true},
      {R"({"format": "date"})", R"("2023-02-29")", false, "", "format"},
      {R"({"format": "time"})", R"("23:59:60.5+01:00")", true},
      {R"({"format": "time"})", R"("24:00:00Z")", false, "", "format"},
      {R"({"format": "date-time"})", R"("2024-01-01T10:00:00Z")", true},
      {R"({"format": "date-time"})", R"("2024-01-01 10:00:00")", false, "", "format"},
      {R"({"format": "email"})", R"("a.b+c@example.com")", true},
      {R"({"format": "email"})", R"("a..b@example.com")", false, "", "format"},
      {R"({"format": "uuid"})", R"("123e4567-e89b-12d3-a456-426614174000")", true},
      {R"({"format": "uuid"})", R"("123e4567e89b12d3a456426614174000")", false, "", "format"},
      {R"({"format": "uri"})", R"("https://example.com/a?b=%20#c")", true},
      {R"({"format": "uri"})", R"("/relative/path")", false, "", "format"},
      {R"({"format": "ipv4"})", R"("192.168.0.1")", true},
      {R"({"format": "ipv4"})", R"("192.168.00.1")", false, "", "format"},
      {R"({"format": "ipv6"})", R"("::ffff:192.168.0.1")", true},
      {R"({"format": "ipv6"})", R"("1:2:3:4:5:6:7:8")", true},
      {R"({"format": "ipv6"})", R"("1::2::3")", false, "", "format"},
      {R"({"format": "hostname"})", R"("a-b.example.com")", true},
      {R"({"format": "hostname"})", R"("-a.example.com")", false, "", "format"},
  };
  for (const Case& c : cases)
    RunCase(c);
}

TEST(ValidateTest, Arrays) {
  const Case cases[] = {
      {R"({"items": {"type": "integer"}})", "[1, 2]", true},
      {R"({"items": {"type": "integer"}})", R"([1, "x"])", false, "/1", "type"},
      {R"({"prefixItems": [{"type": "string"}], "items": false})", R"(["a"])", true},
      {R"({"prefixItems": [{"type": "string"}], "items": false})", R"(["a", 1])", false, "/1",
       "false"},
      {R"({"items": [{"type": "string"}], "additionalItems": {"type": "null"}})",
       R"(["a", null, 3])", false, "/2", "type"},
      {R"({"minItems": 1})", "[]", false, "", "minItems"},
      {R"({"maxItems": 1})", "[1, 2]", false, "", "maxItems"},
  };
  for (const Case& c : cases)
    RunCase(c);
}

TEST(ValidateTest, Objects) {
  const Case cases[] = {
      {R"({"required": ["a"]})", R"({"a": 1})", true},
      {R"({"required": ["a"]})", R"({"b": 1})", false, "", "required"},
      {R"({"properties": {"a/b": {"type": "string"}}})", R"({"a/b": 1})", false, "/a~1b", "type"},
      {R"({"properties": {"a": {}}, "additionalProperties": false})", R"({"a": 1, "b": 2})", false,
       "/b", "additionalProperties"},
      {R"({"additionalProperties": {"type": "string"}})", R"({"a": 1})", false, "/a", "type"},
      {R"({"patternProperties": {"^n_": {"type": "number"}}, "additionalProperties": false})",
       R"({"n_1": 1})", true},
      {R"({"patternProperties": {"^n_": {"type": "number"}}})", R"({"n_1": "x"})", false, "/n_1",
       "type"},
      {R"({"propertyNames": {"maxLength": 2}})", R"({"abc": 1})", false, "/abc", "maxLength"},
      {R"({"minProperties": 1})", "{}", false, "", "minProperties"},
      {R"({"maxProperties": 1})", R"({"a": 1, "b": 2})", false, "", "maxProperties"},
  };
  for (const Case& c : cases)
    RunCase(c);
}

TEST(ValidateTest, Combinators) {
  const Case cases[] = {
      {R"({"anyOf": [{"type": "string"}, {"type": "null"}]})", "null", true},
      {R"({"anyOf": [{"type": "string"}, {"type": "null"}]})", "1", false, "", "anyOf"},
      {R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})", "1.5", true},
      {R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})", "1", false, "", "oneOf"},
      {R"({"allOf": [{"minimum": 1}, {"maximum": 2}]})", "3", false, "", "maximum"},
      {R"({"properties": {"a": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string"}}})",
       R"({"a": 1})", false, "/a", "type"},
  };
  for (const Case& c : cases)
    RunCase(c);
}

TEST(ValidateTest, RecursiveSchema) {
  const char* tree = R"({"$defs": {"node": {"type": "object", "required": ["v"],
    "properties": {"v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "additionalProperties": false}}, "$ref": "#/$defs/node"})";
  RunCase({tree, R"({"v": 1, "kids": [{"v": 2, "kids": [{"v": 3}]}]})", true});
  RunCase({tree, R"({"v": 1, "kids": [{"v": 2, "kids": [{"v": "x"}]}]})", false, "/kids/0/kids/0/v",
           "type"});
}

TEST(ValidateTest, InstanceProblems) {
  RunCase({"{}", "[1,", false, "", "json"});
  RunCase({"{}", "", false, "", "json"});
  std::string deep(kMaxNestingDepth + 1, '[');
  deep += std::string(kMaxNestingDepth + 1, ']');
  RunCase({"{}", deep.c_str(), false, "", "json"});
  // Patterns run as automata, linear in the string: no length cut-off.
  const std::string long_string = "\"" + std::string(1 << 16, 'a') + "b\"";
  RunCase({R"({"pattern": "^a+b$"})", long_string.c_str(), true});
  RunCase({R"({"pattern": "^a+c$"})", long_string.c_str(), false, "", "pattern"});
}

TEST(ValidateTest, ViolationsAreBounded) {
  std::string items = "[";
  for (int i = 0; i < 100; ++i)
    items += std::string(i ? "," : "") + "\"x\"";
  auto ir = CompileSchema(R"({"items": {"type": "integer"}})");
  ASSERT_TRUE(ir.ok());
  const ValidationResult result = Validate(*ir, items + "]");
  EXPECT_EQ(result.violations.size(), kMaxViolations);
  EXPECT_EQ(result.violations[3].json_pointer, "/3");
}

// A chain of anyOf nodes whose branches both lead to the next one has 2^40 paths; the step
// budget ends the walk with a `limit` violation instead of a hang.
TEST(ValidateTest, ExponentialSchemaIsBounded) {
  std::string defs;
  for (int i = 0; i < 40; ++i) {
    const std::string next = "{\"$ref\": \"#/$defs/d" + std::to_string(i + 1) + "\"}";
    defs += "\"d" + std::to_string(i) + "\": {\"anyOf\": [" + next + ", " + next + "]}, ";
  }
  defs += R"("d40": {"type": "string"})";
  auto ir = CompileSchema(R"({"$ref": "#/$defs/d0", "$defs": {)" + defs + "}}");
  ASSERT_TRUE(ir.ok()) << ir.error().message();
  EXPECT_TRUE(Validate(*ir, R"("x")").valid());
  const ValidationResult result = Validate(*ir, "1");
  ASSERT_FALSE(result.valid());
  EXPECT_EQ(result.violations[0].keyword, "limit");
}

TEST(ValidateTest, BuiltInSchemas) {
  EXPECT_TRUE(Validate(AnyJsonSchema(), "[1, {}]").valid());
  EXPECT_TRUE(Validate(AnyObjectSchema(), R"({"a": 1})").valid());
  EXPECT_FALSE(Validate(AnyObjectSchema(), "[]").valid());
}

}  // namespace
}  // namespace crux::constrain
