// Non-streaming bodies and encoder details the golden files do not pin down.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "crux/protocol/codec.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::json;

ChatRequest RequestFor(Api api) {
  ChatRequest r;
  r.api = api;
  r.model = "requested";
  return r;
}

ResponseMeta Meta() {
  ResponseMeta meta;
  meta.id = "id-1";
  meta.created = 1767225600;
  meta.id_seed = 3;
  return meta;
}

parse::Completion Done(parse::FinishReason reason) {
  parse::Completion c;
  c.reason = reason;
  c.usage = {20, 10, 4, 2};
  return c;
}

TEST(ChatBody, ContentNullToolCallIdsAndUsage) {
  parse::ParseResult result;
  result.tool_calls.push_back({"", "f", R"({"a":1})", true});
  Json body = Json::parse(EncodeBody(RequestFor(Api::kChatCompletions), Meta(), result,
                                     Done(parse::FinishReason::kStop)));
  EXPECT_EQ(body["model"], "requested");  // no served name: the request's model
  const Json& message = body["choices"][0]["message"];
  EXPECT_TRUE(message["content"].is_null());
  EXPECT_FALSE(message.contains("reasoning_content"));
  EXPECT_TRUE(std::regex_match(message["tool_calls"][0]["id"].get<std::string>(),
                               std::regex("call_[A-Za-z0-9]{24}")));
  EXPECT_EQ(body["choices"][0]["finish_reason"], "tool_calls");
  EXPECT_EQ(body["usage"]["total_tokens"], 30);
  EXPECT_EQ(body["usage"]["completion_tokens_details"]["reasoning_tokens"], 4);
  EXPECT_EQ(body["usage"]["prompt_tokens_details"]["cached_tokens"], 2);
  body = Json::parse(EncodeBody(RequestFor(Api::kChatCompletions), Meta(), parse::ParseResult{},
                                Done(parse::FinishReason::kLength)));
  EXPECT_EQ(body["choices"][0]["finish_reason"], "length");
  body = Json::parse(EncodeBody(RequestFor(Api::kChatCompletions), Meta(), parse::ParseResult{},
                                Done(parse::FinishReason::kToolCalls)));
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");  // no call: nothing to run
}

TEST(AnthropicBody, BlocksStopReasonsAndInvalidInput) {
  parse::ParseResult result;
  result.reasoning = "hmm";
  result.content = "ok";
  result.tool_calls.push_back({"call_1", "f", "{not json", true});
  Json body = Json::parse(EncodeBody(RequestFor(Api::kAnthropicMessages), Meta(), result,
                                     Done(parse::FinishReason::kLength)));
  ASSERT_EQ(body["content"].size(), 3u);
  EXPECT_EQ(
      body["content"][0],
      (Json{{"type", "thinking"}, {"thinking", "hmm"}, {"signature", "crux-336611192ffbcf39"}}));
  EXPECT_EQ(body["content"][1], (Json{{"type", "text"}, {"text", "ok"}}));
  // Not JSON: kept as a string holding the text, never {} (the stream sends the same text).
  EXPECT_EQ(body["content"][2]["input"], "{not json");
  EXPECT_EQ(body["stop_reason"], "tool_use");
  EXPECT_TRUE(body["stop_sequence"].is_null());
  EXPECT_EQ(body["usage"]["input_tokens"], 20);
  EXPECT_EQ(body["usage"]["output_tokens"], 10);
  EXPECT_EQ(body["usage"]["cache_read_input_tokens"], 2);

  parse::Completion stop = Done(parse::FinishReason::kStopSequence);
  stop.stop_sequence = "</x>";
  body = Json::parse(
      EncodeBody(RequestFor(Api::kAnthropicMessages), Meta(), parse::ParseResult{}, stop));
  EXPECT_EQ(body["content"], Json::parse(R"([{"type":"text","text":""}])"));
  EXPECT_EQ(body["stop_reason"], "stop_sequence");
  EXPECT_EQ(body["stop_sequence"], "</x>");
  body = Json::parse(EncodeBody(RequestFor(Api::kAnthropicMessages), Meta(), parse::ParseResult{},
                                Done(parse::FinishReason::kLength)));
  EXPECT_EQ(body["stop_reason"], "max_tokens");
}

TEST(ResponsesBody, StatusesEchoesAndItemIds) {
  ChatRequest request = RequestFor(Api::kResponses);
  request.instructions = "Be terse.";
  request.max_tokens = 64;
  request.temperature = 0.25;
  request.tools_json = R"([{"type":"web_search"}])";
  request.tool_choice_json = R"("none")";
  request.metadata_json = R"({"k":"v"})";
  request.previous_response_id = "resp_prev";
  parse::ParseResult result;
  result.reasoning = "r";
  result.content = "Hello";
  result.tool_calls.push_back({"call_1", "f", "{}", true});
  Json body = Json::parse(EncodeBody(request, Meta(), result, Done(parse::FinishReason::kLength)));
  EXPECT_EQ(body["status"], "incomplete");
  EXPECT_EQ(body["incomplete_details"]["reason"], "max_output_tokens");
  EXPECT_EQ(body["instructions"], "Be terse.");
  EXPECT_EQ(body["max_output_tokens"], 64);
  EXPECT_EQ(body["temperature"], 0.25);
  EXPECT_TRUE(body["top_p"].is_null());
  EXPECT_EQ(body["tools"], Json::parse(request.tools_json));
  EXPECT_EQ(body["tool_choice"], "none");
  EXPECT_EQ(body["metadata"]["k"], "v");
  EXPECT_EQ(body["previous_response_id"], "resp_prev");
  EXPECT_EQ(body["output_text"], "Hello");
  ASSERT_EQ(body["output"].size(), 3u);
  EXPECT_TRUE(
      std::regex_match(body["output"][0]["id"].get<std::string>(), std::regex("rs_[0-9a-f]{32}")));
  EXPECT_TRUE(
      std::regex_match(body["output"][1]["id"].get<std::string>(), std::regex("msg_[0-9a-f]{32}")));
  EXPECT_TRUE(
      std::regex_match(body["output"][2]["id"].get<std::string>(), std::regex("fc_[0-9a-f]{32}")));
  EXPECT_EQ(body["output"][2]["call_id"], "call_1");
  EXPECT_EQ(body["usage"]["output_tokens_details"]["reasoning_tokens"], 4);

  body = Json::parse(
      EncodeBody(request, Meta(), parse::ParseResult{}, Done(parse::FinishReason::kError)));
  EXPECT_EQ(body["status"], "failed");
  EXPECT_EQ(body["error"]["code"], "server_error");
  EXPECT_EQ(body["output"], Json::array());
}

TEST(ResponseIds, FollowEachProtocolsStyle) {
  EXPECT_TRUE(std::regex_match(NewResponseId(Api::kChatCompletions),
                               std::regex("chatcmpl-[A-Za-z0-9]{24}")));
  EXPECT_TRUE(
      std::regex_match(NewResponseId(Api::kAnthropicMessages), std::regex("msg_[A-Za-z0-9]{24}")));
  EXPECT_TRUE(std::regex_match(NewResponseId(Api::kResponses), std::regex("resp_[0-9a-f]{32}")));
  EXPECT_NE(NewResponseId(Api::kResponses), NewResponseId(Api::kResponses));
  EXPECT_EQ(ApiName(Api::kAnthropicMessages), "messages");
  EXPECT_EQ(RoleName(Role::kTool), "tool");
}

TEST(StreamEncoders, InvalidUtf8NeverThrowsAndIsReplaced) {
  for (Api api : {Api::kChatCompletions, Api::kAnthropicMessages, Api::kResponses}) {
    auto encoder = MakeStreamEncoder(RequestFor(api), Meta());
    std::string out;
    parse::Event e;
    e.kind = parse::EventKind::kContent;
    e.text = "caf\xc3 \xff";
    encoder->Event(e, out);
    encoder->End(Done(parse::FinishReason::kStop), out);
    EXPECT_NE(out.find("caf\xef\xbf\xbd \xef\xbf\xbd"), std::string::npos) << out;
  }
}

TEST(StreamEncoders, KeepAlives) {
  EXPECT_EQ(MakeStreamEncoder(RequestFor(Api::kChatCompletions), Meta())->KeepAlive(),
            ": keep-alive\n\n");
  EXPECT_EQ(MakeStreamEncoder(RequestFor(Api::kResponses), Meta())->KeepAlive(),
            ": keep-alive\n\n");
  EXPECT_EQ(MakeStreamEncoder(RequestFor(Api::kAnthropicMessages), Meta())->KeepAlive(),
            "event: ping\ndata: {\"type\":\"ping\"}\n\n");
}

TEST(StreamEncoders, NothingAfterTheTerminalFrames) {
  for (Api api : {Api::kChatCompletions, Api::kAnthropicMessages, Api::kResponses}) {
    auto encoder = MakeStreamEncoder(RequestFor(api), Meta());
    std::string out;
    encoder->Fail(Error(ErrorCode::kUnavailable, "busy"), out);
    EXPECT_FALSE(out.empty());
    std::string later;
    parse::Event e;
    e.text = "late";
    encoder->Event(e, later);
    encoder->End(Done(parse::FinishReason::kStop), later);
    encoder->Fail(Error(ErrorCode::kInternal, "again"), later);
    EXPECT_EQ(later, "");
  }
}

}  // namespace
}  // namespace crux::protocol
