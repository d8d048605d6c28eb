#include "crux/constrain/extract.h"

#include <gtest/gtest.h>

#include <string>

#include "crux/constrain/schema_ir.h"

namespace crux::constrain {
namespace {

std::string Extracted(std::string_view answer) {
  const auto json = ExtractJson(answer);
  return json ? std::string(*json) : "<none>";
}

TEST(ExtractJson, FindsTheValueWhereverTheModelPutIt) {
  EXPECT_EQ(Extracted(" {\"a\": 1}\n"), "{\"a\": 1}");
  EXPECT_EQ(Extracted("[1, 2]"), "[1, 2]");
  EXPECT_EQ(Extracted("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
  EXPECT_EQ(Extracted("Here it is:\n```\n{\"a\": 1}\n```\nDone."), "{\"a\": 1}");
  // The first fenced block holding JSON wins.
  EXPECT_EQ(Extracted("```python\nx = 1\n```\n```json\n[true]\n```"), "[true]");
  // An unterminated fence (the model stopped before closing it).
  EXPECT_EQ(Extracted("```json\n{\"a\": \"b\"}"), "{\"a\": \"b\"}");
  // A balanced scan skips what does not parse and respects strings.
  EXPECT_EQ(Extracted("First: {\"a\": 1}. Garbage: {broken}"), "{\"a\": 1}");
  EXPECT_EQ(Extracted("Garbage {broken} then {\"s\": \"}{\"}"), "{\"s\": \"}{\"}");
  EXPECT_EQ(Extracted("the list [1, {\"k\": [2]}] ends"), "[1, {\"k\": [2]}]");
}

TEST(ExtractJson, ReportsAnswersWithoutAValue) {
  EXPECT_EQ(Extracted(""), "<none>");
  EXPECT_EQ(Extracted("I cannot answer in JSON."), "<none>");
  // Truncated output is not repaired.
  EXPECT_EQ(Extracted("{\"a\": [1, 2"), "<none>");
  EXPECT_EQ(Extracted("```json\n{\"a\": "), "<none>");
  // A long answer of brackets that never balance is given up on in linear time.
  EXPECT_EQ(Extracted(std::string(1 << 20, '{')), "<none>");
}

TEST(CheckAnswer, ObjectRootAndSchemaViolationsAreNamed) {
  AnswerCheck object = CheckAnswer("[1]", nullptr);
  EXPECT_FALSE(object.valid);
  EXPECT_EQ(object.error, "the root is not an object");
  EXPECT_TRUE(CheckAnswer("Sure: {\"x\": 1}", nullptr).valid);

  auto schema = CompileSchema(
      R"({"type": "object", "properties": {"days": {"type": "integer"}}, "required": ["days"]})");
  ASSERT_TRUE(schema.ok());
  const AnswerCheck good = CheckAnswer("```json\n{\"days\": 3}\n```", &*schema);
  EXPECT_TRUE(good.valid) << good.error;
  EXPECT_EQ(good.json, "{\"days\": 3}");
  const AnswerCheck bad = CheckAnswer("{\"days\": \"three\"}", &*schema);
  EXPECT_FALSE(bad.valid);
  EXPECT_NE(bad.error.find("JSON Schema validation failed: /days"), std::string::npos) << bad.error;
  const AnswerCheck none = CheckAnswer("no json", &*schema);
  EXPECT_FALSE(none.valid);
  EXPECT_EQ(none.error, "no JSON value in the answer");
}

}  // namespace
}  // namespace crux::constrain
