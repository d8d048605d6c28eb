#include "engine/upstream/wire.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/upstream/balancer.h"

namespace crux::engine::upstream {
namespace {

using Json = nlohmann::json;

GenerateRequest Constrained() {
  GenerateRequest request;
  request.prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";
  request.max_tokens = 64;
  request.sampling.top_k = 0;
  request.sampling.seed = 7;
  request.stop = {"END"};
  auto r = std::make_shared<OutputRequirements>();
  r->grammar = "root ::= \"{}\"";
  r->reasoning_start = "<think>";
  r->reasoning_end = "</think>";
  r->thinking_budget = 32;
  r->markers = {"<think>", "</think>", "<tool_call>"};
  r->repetition_penalty = 1.1;
  r->logit_bias = {{42, -5.0f}};
  request.requirements = r;
  return request;
}

TEST(UpstreamWireTest, LlamaServerGetsGrammarBudgetAndPreservedTokens) {
  const Json body = Json::parse(CompletionBody(Constrained(), UpstreamKind::kLlamaServer, "m"));
  EXPECT_EQ(body["model"], "m");
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["top_k"], 0);
  EXPECT_EQ(body["seed"], 7);
  EXPECT_EQ(body["grammar"], "root ::= \"{}\"");
  EXPECT_EQ(body["reasoning_budget_tokens"], 32);
  EXPECT_EQ(body["reasoning_budget_start_tag"], "<think>");
  EXPECT_EQ(body["reasoning_budget_end_tag"], "</think>");
  EXPECT_EQ(body["reasoning_budget_message"], "");  // what makes it force the end tag
  EXPECT_FALSE(body.contains("generation_prompt"));
  GenerateRequest opened = Constrained();
  auto r = std::make_shared<OutputRequirements>(*opened.requirements);
  r->reasoning_opened = true;  // the prompt ends with <think>: the budget counts from the start
  opened.requirements = r;
  const Json counting = Json::parse(CompletionBody(opened, UpstreamKind::kLlamaServer, "m"));
  EXPECT_EQ(counting["generation_prompt"], "<think>");
  EXPECT_EQ(body["preserved_tokens"].size(), 3u);
  EXPECT_DOUBLE_EQ(body["repeat_penalty"].get<double>(), 1.1);
  EXPECT_EQ(body["logit_bias"], Json::parse("[[42, -5.0]]"));
  EXPECT_FALSE(body.contains("stop"));  // crux applies stop strings itself
}

TEST(UpstreamWireTest, VllmAndSglangGetTheirOwnFields) {
  const Json vllm = Json::parse(CompletionBody(Constrained(), UpstreamKind::kVllm, "m"));
  EXPECT_EQ(vllm["structured_outputs"]["grammar"], "root ::= \"{}\"");
  EXPECT_EQ(vllm["thinking_token_budget"], 32);
  EXPECT_EQ(vllm["skip_special_tokens"], false);
  EXPECT_EQ(vllm["top_k"], -1);
  EXPECT_EQ(vllm["logit_bias"]["42"], -5.0);
  EXPECT_FALSE(vllm.contains("grammar"));
  const Json sglang = Json::parse(CompletionBody(Constrained(), UpstreamKind::kSglang, "m"));
  EXPECT_EQ(sglang["ebnf"], "root ::= \"{}\"");
  EXPECT_FALSE(sglang.contains("thinking_token_budget"));
  const Json plain =
      Json::parse(CompletionBody(Constrained(), UpstreamKind::kOpenAiCompletions, ""));
  EXPECT_FALSE(plain.contains("model"));
  EXPECT_FALSE(plain.contains("grammar"));
  EXPECT_FALSE(plain.contains("structured_outputs"));
  EXPECT_FALSE(plain.contains("ebnf"));
  EXPECT_FALSE(SupportOf(UpstreamKind::kOpenAiCompletions).grammar);
  EXPECT_TRUE(SupportOf(UpstreamKind::kSglang).grammar);
  EXPECT_FALSE(SupportOf(UpstreamKind::kSglang).thinking_budget);
}

TEST(UpstreamWireTest, ReadsTextFinishReasonAndUsage) {
  auto text = ReadChunk(R"({"choices":[{"text":"h\u00e9","index":0,"finish_reason":null}]})");
  ASSERT_TRUE(text.ok()) << text.error().message();
  EXPECT_EQ(text->text, "h\xc3\xa9");
  EXPECT_FALSE(text->finish_reason.has_value());
  EXPECT_FALSE(text->has_usage);
  auto last =
      ReadChunk(R"({"choices":[{"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":12,)"
                R"("completion_tokens":5,"prompt_tokens_details":{"cached_tokens":8}}})");
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->finish_reason, "length");
  EXPECT_TRUE(last->has_usage);
  EXPECT_EQ(last->prompt_tokens, 12);
  EXPECT_EQ(last->completion_tokens, 5);
  EXPECT_EQ(last->cached_tokens, 8);
  auto usage_only =
      ReadChunk(R"({"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}})");
  ASSERT_TRUE(usage_only.ok());
  EXPECT_TRUE(usage_only->text.empty());
  EXPECT_EQ(usage_only->completion_tokens, 1);
}

TEST(UpstreamWireTest, ErrorsAreNamed) {
  auto error = ReadChunk(R"({"error":{"message":"the grammar is invalid","code":400}})");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().code(), ErrorCode::kUnavailable);
  EXPECT_EQ(error.error().message(), "the grammar is invalid");
  auto empty = ReadChunk(R"({"error":{"message":""}})");  // found by upstream_stream_fuzz
  ASSERT_FALSE(empty.ok());
  EXPECT_FALSE(empty.error().message().empty());
  auto junk = ReadChunk("{\"choices\": [");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().code(), ErrorCode::kParse);
  EXPECT_EQ(ErrorMessageOf(R"({"error":"busy"})"), "busy");
  EXPECT_EQ(ErrorMessageOf("plain text"), "plain text");
  EXPECT_EQ(ErrorMessageOf(R"({"detail":[{"msg":"x"}]})"), R"([{"msg":"x"}])");
  EXPECT_LT(ErrorMessageOf(std::string(5000, 'x')).size(), 700u);
}

Target MakeTarget(const std::string& url) {
  return Target{url, *text::ParseHttpUrl(url), ""};
}

TEST(UpstreamBalancerTest, LeastInFlightAmongTheHealthyTiesInTurn) {
  Balancer balancer({MakeTarget("http://a:1"), MakeTarget("http://b:1"), MakeTarget("http://c:1")});
  EXPECT_FALSE(balancer.Pick({}).has_value());  // nothing probed yet
  for (size_t i = 0; i < 3; ++i)
    EXPECT_TRUE(balancer.MarkUp(i));
  EXPECT_FALSE(balancer.MarkUp(0));
  std::vector<size_t> picked;
  for (int i = 0; i < 6; ++i)
    picked.push_back(*balancer.Pick({}));
  EXPECT_EQ(picked, (std::vector<size_t>{0, 1, 2, 0, 1, 2}));
  balancer.Release(1);
  balancer.Release(1);
  EXPECT_EQ(*balancer.Pick({}), 1u);  // the one with fewest in flight
  EXPECT_TRUE(balancer.MarkDown(1, "refused", true));
  EXPECT_FALSE(balancer.MarkDown(1, "refused", true));
  std::vector<bool> tried = {true, false, false};
  EXPECT_EQ(*balancer.Pick(tried), 2u);
  tried[2] = true;
  EXPECT_FALSE(balancer.Pick(tried).has_value());
  const auto status = balancer.Status();
  EXPECT_FALSE(status[1].healthy);
  EXPECT_EQ(status[1].failures, 2u);
  EXPECT_EQ(status[1].last_error, "refused");
  EXPECT_EQ(balancer.Failures(), "http://b:1: refused");
}

}  // namespace
}  // namespace crux::engine::upstream
