// /v1/completions: the request decoder and both encoders.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "crux/protocol/codec.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::json;

ResponseMeta Meta() {
  ResponseMeta meta;
  meta.id = "cmpl-1";
  meta.created = 1767225600;
  return meta;
}

parse::Completion Done(parse::FinishReason reason, int prompt, int completion) {
  parse::Completion c;
  c.reason = reason;
  c.usage.prompt_tokens = prompt;
  c.usage.completion_tokens = completion;
  c.usage.cached_tokens = 2;
  return c;
}

// The data lines of an SSE stream, parsed ("[DONE]" kept as a string).
std::vector<Json> Frames(const std::string& sse) {
  std::vector<Json> frames;
  size_t at = 0;
  while ((at = sse.find("data: ", at)) != std::string::npos) {
    const size_t end = sse.find("\n\n", at);
    const std::string data = sse.substr(at + 6, end - at - 6);
    frames.push_back(data == "[DONE]" ? Json(data) : Json::parse(data));
    at = end;
  }
  return frames;
}

parse::Event Content(std::string text) {
  parse::Event e;
  e.text = std::move(text);
  return e;
}

TEST(CompletionsDecoder, ReadsThePromptAndTheOptions) {
  auto r = DecodeCompletions(
      R"({"model":"m","prompt":"Once","max_tokens":5,"stop":["\n"],"temperature":0,"seed":4,
          "stream":true,"stream_options":{"include_usage":true},"echo":true,"min_p":0.1,
          "logit_bias":{"42":-100}})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->api, Api::kCompletions);
  EXPECT_EQ(r->prompt_text, "Once");
  EXPECT_EQ(r->max_tokens, 5);
  EXPECT_EQ(r->stop, std::vector<std::string>{"\n"});
  EXPECT_EQ(r->temperature, 0.0);
  EXPECT_EQ(r->seed, 4u);
  EXPECT_TRUE(r->stream);
  EXPECT_TRUE(r->include_usage);
  EXPECT_TRUE(r->echo);
  EXPECT_EQ(r->min_p, 0.1);
  ASSERT_EQ(r->logit_bias.size(), 1u);
  EXPECT_EQ(r->logit_bias[0].first, 42u);
  EXPECT_EQ(r->logit_bias[0].second, -100.0f);
}

TEST(CompletionsDecoder, DefaultsToSixteenTokensAndTakesAOneStringArray) {
  auto r = DecodeCompletions(R"({"model":"m","prompt":["Once"]})");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->prompt_text, "Once");
  EXPECT_EQ(r->max_tokens, 16);
}

TEST(CompletionsDecoder, NamesWhatIsWrong) {
  const auto message = [](const char* body) {
    auto r = DecodeCompletions(body);
    return r.ok() ? std::string("accepted") : std::string(r.error().message());
  };
  EXPECT_EQ(message(R"({"model":"m"})"), "prompt is required");
  EXPECT_NE(message(R"({"model":"m","prompt":5})").find("prompt must be"), std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":["a","b"]})").find("2 prompts"), std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":"a","n":2})").find("n must be 1"), std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":"a","logprobs":3})").find("logprobs"),
            std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":"a","suffix":"z"})").find("suffix"),
            std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":"a","logit_bias":{"x":1}})").find("logit_bias.x"),
            std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":"a","logit_bias":{"1":101}})").find("-100 and 100"),
            std::string::npos);
  EXPECT_NE(message(R"({"model":"m","prompt":"a","presence_penalty":3})").find("presence_penalty"),
            std::string::npos);
}

TEST(CompletionsEncoder, StreamsTextThenTheFinishReasonUsageAndDone) {
  auto r = DecodeCompletions(
      R"({"model":"m","prompt":"P","stream":true,"stream_options":{"include_usage":true}})");
  ASSERT_TRUE(r.ok());
  auto encoder = MakeStreamEncoder(*r, Meta());
  std::string out;
  encoder->Begin(out);
  encoder->Event(Content("Hel"), out);
  encoder->Event(Content("lo\u00e9"), out);
  encoder->End(Done(parse::FinishReason::kLength, 3, 2), out);
  const std::vector<Json> frames = Frames(out);
  ASSERT_EQ(frames.size(), 5u) << out;
  EXPECT_EQ(frames[0]["object"], "text_completion");
  EXPECT_EQ(frames[0]["id"], "cmpl-1");
  EXPECT_EQ(frames[0]["choices"][0]["text"], "Hel");
  EXPECT_TRUE(frames[0]["choices"][0]["finish_reason"].is_null());
  EXPECT_EQ(frames[1]["choices"][0]["text"], "lo\u00e9");
  EXPECT_EQ(frames[2]["choices"][0]["finish_reason"], "length");
  EXPECT_TRUE(frames[3]["choices"].empty());
  EXPECT_EQ(frames[3]["usage"]["total_tokens"], 5);
  EXPECT_EQ(frames[3]["usage"]["prompt_tokens_details"]["cached_tokens"], 2);
  EXPECT_EQ(frames[4], "[DONE]");
}

TEST(CompletionsEncoder, EchoWritesThePromptFirst) {
  auto r = DecodeCompletions(R"({"model":"m","prompt":"P: ","stream":true,"echo":true})");
  ASSERT_TRUE(r.ok());
  auto encoder = MakeStreamEncoder(*r, Meta());
  std::string out;
  encoder->Begin(out);
  encoder->Event(Content("x"), out);
  encoder->End(Done(parse::FinishReason::kStop, 1, 1), out);
  const std::vector<Json> frames = Frames(out);
  EXPECT_EQ(frames[0]["choices"][0]["text"], "P: ");
  EXPECT_EQ(frames[1]["choices"][0]["text"], "x");
  EXPECT_EQ(frames[2]["choices"][0]["finish_reason"], "stop");

  r->stream = false;
  parse::ParseResult result;
  result.content = "x";
  const Json body =
      Json::parse(EncodeBody(*r, Meta(), result, Done(parse::FinishReason::kStop, 1, 1)));
  EXPECT_EQ(body["choices"][0]["text"], "P: x");
}

TEST(CompletionsEncoder, BodyHasTextFinishReasonAndUsage) {
  auto r = DecodeCompletions(R"({"model":"m","prompt":"P"})");
  ASSERT_TRUE(r.ok());
  parse::ParseResult result;
  result.content = "out";
  const Json body =
      Json::parse(EncodeBody(*r, Meta(), result, Done(parse::FinishReason::kStop, 4, 3)));
  EXPECT_EQ(body["object"], "text_completion");
  EXPECT_EQ(body["model"], "m");
  EXPECT_EQ(body["choices"][0]["text"], "out");
  EXPECT_EQ(body["choices"][0]["finish_reason"], "stop");
  EXPECT_TRUE(body["choices"][0]["logprobs"].is_null());
  EXPECT_EQ(body["usage"]["prompt_tokens"], 4);
  EXPECT_EQ(body["usage"]["completion_tokens"], 3);
  EXPECT_EQ(body["usage"]["total_tokens"], 7);
}

TEST(CompletionsEncoder, AFailureAfterTheFirstByteIsAnErrorFrameThenDone) {
  auto r = DecodeCompletions(R"({"model":"m","prompt":"P","stream":true})");
  ASSERT_TRUE(r.ok());
  auto encoder = MakeStreamEncoder(*r, Meta());
  std::string out;
  encoder->Begin(out);
  encoder->Fail(Error(ErrorCode::kInternal, "engine gone"), out);
  const std::vector<Json> frames = Frames(out);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0]["error"]["message"], "engine gone");
  EXPECT_EQ(frames[1], "[DONE]");
}

}  // namespace
}  // namespace crux::protocol
