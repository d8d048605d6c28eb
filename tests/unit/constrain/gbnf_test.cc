// GbnfWriter's text: literal escaping, rule names, the shape of its rules, and what each schema
// keyword is recorded as when the grammar loosens it. Whether llama.cpp reads the grammars and
// matches the right texts is tested with llama.cpp's own parser in
// tests/unit/engine/llama/gbnf_llama_test.cc.
#include "crux/constrain/gbnf.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {
namespace {

// The rule definitions of a grammar text: name → body.
std::vector<std::pair<std::string, std::string>> Rules(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> rules;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t at = line.find(" ::= ");
    EXPECT_NE(at, std::string::npos) << line;
    if (at != std::string::npos) rules.emplace_back(line.substr(0, at), line.substr(at + 5));
  }
  return rules;
}

struct Written {
  std::string text;
  std::vector<std::string> loosened;
};

Written Write(std::string_view schema, const GbnfOptions& options = {}) {
  auto ir = CompileSchema(schema);
  EXPECT_TRUE(ir) << (ir ? "" : ir.error().message());
  if (!ir) return {};
  GbnfWriter writer;
  const std::string root = writer.AddSchema(*ir, options);
  EXPECT_EQ(writer.exact(), writer.loosened().empty());
  return {writer.Text(root), writer.loosened()};
}

TEST(GbnfTest, LiteralsEscapeWhatGbnfReads) {
  EXPECT_EQ(GbnfWriter::Literal(""), R"("")");
  EXPECT_EQ(GbnfWriter::Literal("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(GbnfWriter::Literal("\n\r\t\x01\x1F\x7F"), R"("\n\r\t\x01\x1F\x7F")");
  EXPECT_EQ(GbnfWriter::Literal("é<｜tool▁sep｜>😀"), "\"é<｜tool▁sep｜>😀\"");
  // Bytes that are not UTF-8 (a lone continuation, a cut sequence) as code points of their value.
  EXPECT_EQ(GbnfWriter::Literal("\x80x\xE2\x96"), R"("\x80x\xE2\x96")");
}

TEST(GbnfTest, TextWritesTheRootThenEveryRule) {
  GbnfWriter writer("p-");
  const std::string a = writer.NewName("a");
  writer.AddRule(a, R"("x")");
  EXPECT_EQ(writer.Text(a + " " + a), "root ::= p-a p-a\np-a ::= \"x\"\n");
  EXPECT_EQ(writer.NewName("a"), "p-a-1");
  EXPECT_EQ(writer.NewName("a"), "p-a-2");
  EXPECT_EQ(writer.NewName("Get_Weather.v2"), "p-get-weather-v2");
  GbnfWriter bare;
  EXPECT_EQ(bare.NewName("root"), "root-1");
  EXPECT_TRUE(bare.exact());
  bare.Loosen("x");
  bare.Loosen("x");
  EXPECT_EQ(bare.loosened(), std::vector<std::string>{"x"});
}

TEST(GbnfTest, SequencesJoinLiteralsAndDropEmptyItems) {
  EXPECT_EQ(GbnfWriter::Sequence({R"("a")", "", R"("")", R"("b\"")", "x", R"("c")"}),
            R"("ab\"" x "c")");
  // Only whole literals join: `x | "c"` then "d" is not `x | "cd"`.
  EXPECT_EQ(GbnfWriter::Sequence({R"(x | "c")", R"("d")"}), R"(x | "c" "d")");
  EXPECT_EQ(GbnfWriter::Alternatives({"a", R"("b" c)"}), R"(a | "b" c)");
}

TEST(GbnfTest, ExactSchemasRecordNothing) {
  for (const char* schema : {
           R"({"type": "object", "properties": {"a": {"type": "integer", "minimum": 0},
               "b": {"enum": ["x", 1]}, "c": {"type": "array", "items": {"type": "string",
               "maxLength": 8}, "maxItems": 3}}, "required": ["a"],
               "additionalProperties": false})",
           R"({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})",
           R"({"anyOf": [{"type": "number", "minimum": 0}, {"type": "boolean"}]})",
           R"({"$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}},
               "$ref": "#/$defs/n"})",
           R"({"type": "object"})", R"({"const": {"k": [1, "é"]}})",
           R"({"type": "integer", "minimum": -3, "exclusiveMaximum": 1e3})"}) {
    const Written written = Write(schema);
    EXPECT_TRUE(written.loosened.empty()) << schema << ": " << written.loosened.front();
  }
}

TEST(GbnfTest, LoosenedKeywordsNameTheirPlace) {
  struct Case {
    const char* schema;
    std::vector<std::string> loosened;
  };
  const Case cases[] = {
      {R"({"properties": {"a": {"type": "string", "pattern": "^a+$"}}, "required": ["a"],
          "additionalProperties": false})",
       {"pattern at /properties/a"}},
      {R"({"type": "string", "format": "date"})", {"format:date at (root)"}},
      {R"({"type": "number", "minimum": 5, "maximum": 9})",
       {"minimum at (root)", "maximum at (root)"}},
      {R"({"type": "number", "exclusiveMinimum": 0})", {"exclusiveMinimum at (root)"}},
      {R"({"type": "string", "maxLength": 5000})", {"maxLength at (root)"}},
      {R"({"type": "array", "minItems": 2000})", {"minItems at (root)"}},
      {R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})", {"oneOf at (root)"}},
      {R"({"allOf": [{"type": "object"}, {"required": ["a"]}]})", {"allOf at (root)"}},
      {R"({"type": "object", "properties": {"a": {}}})", {"unique keys at (root)"}},
      {R"({"type": "object", "patternProperties": {"^x": {}}, "additionalProperties": false})",
       {"patternProperties at (root)"}},
      {R"({"type": "object", "propertyNames": {"maxLength": 3}, "minProperties": 1})",
       {"propertyNames at (root)", "minProperties at (root)"}},
      {R"({"type": "integer", "multipleOf": 3})", {"multipleOf at /multipleOf"}},
  };
  for (const Case& c : cases)
    EXPECT_EQ(Write(c.schema).loosened, c.loosened) << c.schema;
  GbnfOptions strict;
  strict.strict_objects = true;
  EXPECT_TRUE(Write(R"({"type": "object", "properties": {"a": {}}})", strict).loosened.empty());
}

TEST(GbnfTest, RepetitionsStayWithinWhatLlamaCppAccepts) {
  GbnfOptions options;
  options.max_repeat = 100;
  const Written written = Write(R"({"type": "object", "properties": {
      "s": {"type": "string", "minLength": 3, "maxLength": 150},
      "t": {"type": "string", "maxLength": 100},
      "a": {"type": "array", "minItems": 1, "maxItems": 500},
      "b": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 90}}})",
                                options);
  const std::regex count(R"(\{(\d+)(,(\d*))?\})");
  for (const auto& [name, body] : Rules(written.text)) {
    size_t repetitions = 0;
    for (std::sregex_iterator it(body.begin(), body.end(), count), end; it != end; ++it) {
      ++repetitions;
      EXPECT_LE(std::stoul((*it)[1]), 100u) << body;
      if ((*it)[3].length() > 0) {
        EXPECT_LE(std::stoul((*it)[3]), 100u) << body;
      }
    }
    // The JSON char rule writes \u's four hex digits as counted classes in separate branches.
    if (body.find("[0-9a-fA-F]{3}") == std::string::npos) {
      EXPECT_LE(repetitions, 1u) << body;
    }
  }
  EXPECT_NE(written.text.find("{0,100}"), std::string::npos) << written.text;
  EXPECT_NE(written.text.find("{1,89}"), std::string::npos) << written.text;
  EXPECT_EQ(written.loosened,
            (std::vector<std::string>{"unique keys at (root)", "maxLength at /properties/s",
                                      "maxItems at /properties/a"}));
}

TEST(GbnfTest, ValuesOfOneSchemaShareTheirRules) {
  auto ir = CompileSchema(R"({"$defs": {"p": {"type": "object", "properties": {"x": {}}}},
      "properties": {"a": {"$ref": "#/$defs/p"}, "b": {"$ref": "#/$defs/p"}}})");
  ASSERT_TRUE(ir);
  const NodeId a = ir->node(ir->root).properties[0].schema;
  const NodeId b = ir->node(ir->root).properties[1].schema;
  GbnfWriter writer;
  const std::vector<std::string> names =
      writer.AddSchemaValues(*ir, {{a, kTypeAny}, {b, kTypeAny}, {b, kTypeObject}, {a, kTypeNull}});
  ASSERT_EQ(names.size(), 4u);
  EXPECT_NE(names[0], names[1]);
  EXPECT_EQ(names[1], names[2]) << "b's values are objects anyway";
  const std::string text = writer.Text(names[0]);
  size_t objects = 0;
  for (const auto& [name, body] : Rules(text)) {
    if (body.find(R"("\"x\"")") != std::string::npos) ++objects;
    if (name == names[3]) {
      EXPECT_EQ(body, "[^\\x00-\\U0010FFFF]") << "a is never null";
    }
  }
  EXPECT_EQ(objects, 1u) << text;
}

TEST(GbnfTest, TextAutomataHaveOneRulePerMarkerState) {
  GbnfWriter writer;
  const std::string until = writer.AddTextUntil("aab");
  EXPECT_EQ(writer.AddTextUntil("aab"), until);  // shared
  EXPECT_EQ(Rules(writer.Text(until)).size(), 1u + 3u);
  GbnfWriter unicode;
  const std::string marker = unicode.AddTextUntil("<｜tool▁sep｜>");  // 12 code points
  const std::string text = unicode.Text(marker);
  EXPECT_EQ(Rules(text).size(), 1u + 12u) << text;
  EXPECT_NE(text.find("[^<]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"｜\""), std::string::npos) << text;
  GbnfWriter without;
  const std::string none = without.AddTextWithout("ab");
  const auto rules = Rules(without.Text(none));
  ASSERT_EQ(rules.size(), 1u + 2u);
  for (size_t i = 1; i < rules.size(); ++i) {
    EXPECT_EQ(rules[i].second.substr(0, 2), "( ") << "may end anywhere: " << rules[i].second;
  }
}

}  // namespace
}  // namespace crux::constrain
