#include "parse/tools/toolkit.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace crux::parse::tools {
namespace {

struct RecordingSink : CallSink {
  void BeginCall(std::string_view name, std::string) override { begins.emplace_back(name); }
  void Args(std::string_view f) override { args += f; }
  void EndCall() override { ++ends; }
  std::vector<std::string> begins;
  std::string args;
  int ends = 0;
};

JsonCallObject::Status FeedPieces(JsonCallObject& env, const std::string& text, size_t piece,
                                  RecordingSink& sink) {
  for (size_t pos = 0; pos < text.size(); pos += piece) {
    size_t consumed = 0;
    const auto st = env.Feed(text.substr(pos, piece), consumed, sink);
    if (st != JsonCallObject::Status::kNeedMore) return st;
  }
  return JsonCallObject::Status::kNeedMore;
}

TEST(JsonCallObject, StreamsArgumentsOnceTheNameIsKnown) {
  for (size_t piece : {1u, 3u, 100u}) {
    JsonCallObject env;
    RecordingSink sink;
    EXPECT_EQ(FeedPieces(env, R"({"name": "f", "arguments": {"a": [1, "}"]}})", piece, sink),
              JsonCallObject::Status::kDone);
    ASSERT_EQ(sink.begins.size(), 1u);
    EXPECT_EQ(sink.begins[0], "f");
    EXPECT_EQ(sink.args, R"({"a": [1, "}"]})");
    EXPECT_EQ(sink.ends, 1);
  }
}

TEST(JsonCallObject, HandlesKeyOrderStringArgumentsAndErrors) {
  JsonCallObject env;
  RecordingSink sink;
  EXPECT_EQ(
      FeedPieces(env, R"({"parameters": {"x": 1}, "type": "function", "name": "g"})", 2, sink),
      JsonCallObject::Status::kDone);
  EXPECT_EQ(sink.begins.at(0), "g");
  EXPECT_EQ(sink.args, R"({"x": 1})");

  env.Reset();
  sink = {};
  EXPECT_EQ(FeedPieces(env, R"({"name": "h", "arguments": "{\"q\": \"a\\\"b\"}"})", 1, sink),
            JsonCallObject::Status::kDone);
  EXPECT_EQ(sink.args, R"({"q": "a\"b"})");

  for (const char* bad :
       {R"({"arguments": {}})", R"({"name": 3})", R"({"name": "f", "arguments": [1]})",
        R"({"name": "f", "arguments": "[1]"})", R"({"name": "f" "x"})", "[1]"}) {
    env.Reset();
    sink = {};
    EXPECT_EQ(FeedPieces(env, bad, 1, sink), JsonCallObject::Status::kError) << bad;
  }
}

TEST(ConvertValue, TypesPlainTextBySchema) {
  EXPECT_EQ(ConvertValue("Paris", ParamType::kString), "\"Paris\"");
  EXPECT_EQ(ConvertValue(" 42 ", ParamType::kString), "\" 42 \"");
  EXPECT_EQ(ConvertValue("42", ParamType::kInteger), "42");
  EXPECT_EQ(ConvertValue("+007", ParamType::kInteger), "7");
  EXPECT_EQ(ConvertValue("3.0", ParamType::kInteger), "3");
  EXPECT_EQ(ConvertValue("many", ParamType::kInteger), "\"many\"");
  EXPECT_EQ(ConvertValue("2.5", ParamType::kNumber), "2.5");
  EXPECT_EQ(ConvertValue("True", ParamType::kBoolean), "true");
  EXPECT_EQ(ConvertValue("{'a': None, 'b': (1, 2)}", ParamType::kObject),
            R"({"a":null,"b":[1,2]})");
  EXPECT_EQ(ConvertValue("[1, 2]", ParamType::kArray), "[1, 2]");
  EXPECT_EQ(ConvertValue("not json", ParamType::kArray), "\"not json\"");
  EXPECT_EQ(ConvertValue("5", ParamType::kAny), "5");
  EXPECT_EQ(ConvertValue("007", ParamType::kAny, true), "\"007\"");
  EXPECT_EQ(ConvertValue("True", ParamType::kAny, true), "true");
  EXPECT_EQ(ConvertValue("True", ParamType::kAny, false), "\"True\"");
}

TEST(PythonLiteral, ConvertsToJson) {
  EXPECT_EQ(PythonLiteralToJson("{1, 2, 2}"), "[1,2]");
  EXPECT_EQ(PythonLiteralToJson("{'k': None}"), R"({"k":null})");
  EXPECT_EQ(PythonLiteralToJson("['it\\'s', \"q\"]"), R"(["it's","q"])");
  EXPECT_EQ(PythonLiteralToJson("{1: 'a'}"), R"({"1":"a"})");
  EXPECT_EQ(PythonLiteralToJson(".5"), "0.5");
  EXPECT_FALSE(PythonLiteralToJson("foo(").has_value());
  EXPECT_FALSE(PythonLiteralToJson("[1, 2").has_value());
}

TEST(PythonLiteral, NestsWithoutLimitAndRejectsWhatIsNotALiteral) {
  EXPECT_EQ(PythonLiteralToJson("{'a': [1, (2, 3), {'b': {4, 5,}},], 'c': {},}"),
            R"({"a":[1,[2,3],{"b":[4,5]}],"c":{}})");
  EXPECT_EQ(PythonLiteralToJson("{(1, 2): [3, {4}], 5: ()}"), R"({"[1,2]":[3,[4]],"5":[]})");
  EXPECT_EQ(PythonLiteralToJson("{(2,), (1,), (2,)}"), "[[1],[2]]");
  EXPECT_EQ(PythonLiteralToJson(" [ ] "), "[]");
  for (const char* bad : {"{1: 2, 3}", "{1, 2: 3}", "{'a' 1}", "[1 2]", "(1,", "{'a': }", "[,]",
                          "{,}", "[1]]", "{'a': 1"}) {
    EXPECT_FALSE(PythonLiteralToJson(bad).has_value()) << bad;
  }
  constexpr size_t kDepth = 200'000;  // the parser keeps its own stack
  std::string deep;
  for (size_t i = 0; i < kDepth; ++i)
    deep += i % 2 == 0 ? "{'k': (" : "[";
  deep += "None";
  for (size_t i = kDepth; i-- > 0;)
    deep += i % 2 == 0 ? ",)}" : "]";
  const std::optional<std::string> json = PythonLiteralToJson(deep);
  ASSERT_TRUE(json.has_value());
  EXPECT_EQ(json->substr(0, 14), R"({"k":[[{"k":[[)");
  EXPECT_EQ(JsonToPythonLiteral(*json).substr(0, 15), "{'k': [[{'k': [");
  EXPECT_EQ(JsonToPythonLiteral(R"({"s": "it's", "n": [1.5, true, null], "o": {}})"),
            R"({'s': "it's", 'n': [1.5, True, None], 'o': {}})");
}

TEST(ArgsWriter, BuildsObjects) {
  ArgsWriter w;
  std::string out;
  w.Close(out);
  EXPECT_EQ(out, "{}");
  out.clear();
  w.Reset();
  w.Key(out, "a");
  out += "1";
  w.Key(out, "b\"");
  w.StringBegin(out);
  w.StringPart(out, "x\ny");
  w.StringEnd(out);
  w.Close(out);
  EXPECT_EQ(out, R"({"a": 1, "b\"": "x\ny"})");
}

}  // namespace
}  // namespace crux::parse::tools
