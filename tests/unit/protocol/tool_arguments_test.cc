// Tool-call arguments reach every protocol whole, at any width or depth: Anthropic's body
// `tool_use.input` is byte for byte what its stream's partial_json fragments concatenate to,
// and Chat and Responses carry the argument string verbatim in bodies and streams. Deep
// values are only handled as text here (nlohmann's dump, copy and == would recurse).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "crux/base/utf8.h"
#include "crux/parse/result.h"
#include "crux/protocol/codec.h"
#include "crux/text/json_text.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::json;
using Kind = text::JsonTokenReader::Kind;

struct Encoded {
  std::string body;
  std::vector<Json> frames;  // the stream's data objects, in order
};

// One call to `f` after some text, its arguments sent in `piece`-byte fragments.
Encoded Encode(Api api, const std::string& arguments, size_t piece = 97) {
  // Built by hand: an EventSink would merge the fragments into one.
  auto event = [](parse::EventKind kind, std::string text = {}) {
    parse::Event e;
    e.kind = kind;
    e.index = kind == parse::EventKind::kContent ? -1 : 0;
    e.text = std::move(text);
    if (kind == parse::EventKind::kToolCallBegin) {
      e.id = "call_1";
      e.name = "f";
    }
    return e;
  };
  std::vector<parse::Event> all = {event(parse::EventKind::kContent, "Calling f."),
                                   event(parse::EventKind::kToolCallBegin)};
  // Cut on character boundaries, as parsers do (they hold back an unfinished character).
  for (size_t pos = 0, size = 0; pos < arguments.size(); pos += size) {
    const std::string_view rest = std::string_view(arguments).substr(pos);
    size = utf8::CompletePrefixLength(rest.substr(0, piece));
    if (size == 0) size = std::min(rest.size(), piece + 3);
    all.push_back(event(parse::EventKind::kToolCallArgs, std::string(rest.substr(0, size))));
  }
  all.push_back(event(parse::EventKind::kToolCallEnd));
  ChatRequest request;
  request.api = api;
  request.model = "m";
  ResponseMeta meta;
  meta.id = "id-1";
  meta.id_seed = 3;
  parse::Completion completion;
  completion.reason = parse::FinishReason::kToolCalls;

  parse::ResultBuilder builder;
  builder.AddAll(all);

  Encoded encoded;
  encoded.body = EncodeBody(request, meta, builder.Take(), completion);
  auto encoder = MakeStreamEncoder(request, meta);
  std::string sse;
  encoder->Begin(sse);
  for (const parse::Event& e : all)
    encoder->Event(e, sse);
  encoder->End(completion, sse);
  for (size_t pos = 0; (pos = sse.find("data: ", pos)) != std::string::npos;) {
    const size_t end = sse.find('\n', pos);
    const std::string data = sse.substr(pos + 6, end - pos - 6);
    pos = end;
    if (data != "[DONE]") encoded.frames.push_back(Json::parse(data));
  }
  return encoded;
}

// The raw text of every `input` of the body's content blocks, found by walking the text.
std::vector<std::string> BodyInputs(const std::string& body) {
  std::vector<std::string> inputs;
  text::JsonTokenReader reader(body);
  reader.Next();  // '{'
  for (auto key = reader.Next(); key.kind == Kind::kKey; key = reader.Next()) {
    if (key.raw != "\"content\"") {
      reader.NextValue();
      continue;
    }
    reader.Next();  // '['
    while (reader.Next().kind == Kind::kObjectBegin) {
      for (auto k = reader.Next(); k.kind == Kind::kKey; k = reader.Next()) {
        const std::string_view value = reader.NextValue();
        if (k.raw == "\"input\"") inputs.emplace_back(value);
      }
    }
  }
  return inputs;
}

// The Anthropic stream's partial_json fragments of block `index`, concatenated; `deltas`
// counts them. Also checks that the block started with `input: {}`.
std::string StreamedInput(const Encoded& encoded, int index, int* deltas = nullptr) {
  std::string text;
  int count = 0;
  for (const Json& frame : encoded.frames) {
    if (frame["type"] == "content_block_start" && frame["index"] == index) {
      EXPECT_EQ(frame["content_block"]["type"], "tool_use");
      EXPECT_EQ(frame["content_block"]["input"], Json::object());
    }
    if (frame["type"] != "content_block_delta" || frame["index"] != index ||
        frame["delta"]["type"] != "input_json_delta") {
      continue;
    }
    text += frame["delta"]["partial_json"].get<std::string>();
    ++count;
  }
  if (deltas != nullptr) *deltas = count;
  return text;
}

std::string WideArguments(int members) {
  std::string args = "{";
  for (int i = 0; i < members; ++i) {
    if (i > 0) args += ", ";
    args += "\"k" + std::to_string(i) + "\": ";
    args += i % 3 == 0 ? std::to_string(i) : "\"v\\u00e9 " + std::to_string(i) + " é\"";
  }
  return args + "}";
}

std::string DeepArguments(int depth) {
  return R"({"a": )" + std::string(depth, '[') + R"({"b": "é", "n": 1.50})" +
         std::string(depth, ']') + "}";
}

TEST(AnthropicToolInput, BodyEqualsTheStreamAtAnyWidthOrDepth) {
  for (const std::string& args :
       {WideArguments(5000), DeepArguments(10000), std::string(R"({ "a" : [ 1 , 2 ] })")}) {
    const Encoded encoded = Encode(Api::kAnthropicMessages, args);
    const std::vector<std::string> inputs = BodyInputs(encoded.body);
    ASSERT_EQ(inputs.size(), 1u) << encoded.body.substr(0, 300);
    EXPECT_TRUE(inputs[0] == args) << "the body's input is the arguments as written";
    EXPECT_TRUE(StreamedInput(encoded, 1) == inputs[0]) << "body and stream disagree";
    EXPECT_EQ(text::JsonTextType(encoded.body), text::JsonType::kObject);
  }
  // Shallow enough to read as JSON: the members are all there.
  const Encoded wide = Encode(Api::kAnthropicMessages, WideArguments(5000));
  const Json body = Json::parse(wide.body);
  EXPECT_EQ(body["content"][1]["input"].size(), 5000u);
  EXPECT_EQ(body["content"][1]["input"]["k4999"], "v\u00e9 4999 \u00e9");
  EXPECT_EQ(body["stop_reason"], "tool_use");
}

TEST(AnthropicToolInput, ArgumentsThatAreNotAnObjectAreKeptAndAgree) {
  // Other JSON is the input in both forms.
  for (const std::string args : {"[1, 2]", "\"just text\"", "42", "null"}) {
    const Encoded encoded = Encode(Api::kAnthropicMessages, args, 2);
    const std::vector<std::string> inputs = BodyInputs(encoded.body);
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(inputs[0], args);
    EXPECT_EQ(StreamedInput(encoded, 1), inputs[0]);
  }
  // No arguments: {} in both (the stream sends no fragment; its start block says {}).
  {
    const Encoded encoded = Encode(Api::kAnthropicMessages, "");
    EXPECT_EQ(BodyInputs(encoded.body), std::vector<std::string>{"{}"});
    int deltas = -1;
    EXPECT_EQ(StreamedInput(encoded, 1, &deltas), "");
    EXPECT_EQ(deltas, 0);
  }
  // Not JSON: the stream sends the text as it is; the body holds the same text as a string.
  for (const std::string args : {"{not json", "{\"a\": 1", "a, b", "{\"a\": 1} trailing"}) {
    const Encoded encoded = Encode(Api::kAnthropicMessages, args, 3);
    const std::vector<std::string> inputs = BodyInputs(encoded.body);
    ASSERT_EQ(inputs.size(), 1u);
    const Json input = Json::parse(inputs[0]);
    ASSERT_TRUE(input.is_string()) << inputs[0];
    EXPECT_EQ(input.get<std::string>(), args);
    EXPECT_EQ(StreamedInput(encoded, 1), args);
  }
}

TEST(AnthropicToolInput, InvalidUtf8IsRepairedTheSameWayInBothForms) {
  const std::string args = "{\"a\": \"caf\xc3 \xff ok\"}";
  const Encoded encoded = Encode(Api::kAnthropicMessages, args, 1000);
  const std::vector<std::string> inputs = BodyInputs(encoded.body);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_EQ(inputs[0], "{\"a\": \"caf\xef\xbf\xbd \xef\xbf\xbd ok\"}");
  EXPECT_EQ(StreamedInput(encoded, 1), inputs[0]);
}

TEST(ToolArguments, ChatAndResponsesCarryTheStringVerbatim) {
  for (const std::string& args : {WideArguments(5000), DeepArguments(10000)}) {
    const Encoded chat = Encode(Api::kChatCompletions, args);
    EXPECT_TRUE(
        Json::parse(chat.body)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] ==
        args);
    std::string streamed;
    for (const Json& frame : chat.frames) {
      if (!frame.contains("choices") || frame["choices"].empty()) continue;
      const Json& delta = frame["choices"][0]["delta"];
      if (delta.contains("tool_calls")) {
        streamed += delta["tool_calls"][0]["function"].value("arguments", "");
      }
    }
    EXPECT_TRUE(streamed == args);

    const Encoded responses = Encode(Api::kResponses, args);
    const Json body = Json::parse(responses.body);
    std::string in_body;
    for (const Json& item : body["output"]) {
      if (item["type"] == "function_call") in_body = item["arguments"];
    }
    EXPECT_TRUE(in_body == args);
    streamed.clear();
    for (const Json& frame : responses.frames) {
      if (frame["type"] == "response.function_call_arguments.delta") streamed += frame["delta"];
    }
    EXPECT_TRUE(streamed == args);
  }
}

}  // namespace
}  // namespace crux::protocol
