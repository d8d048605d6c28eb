// Message normalisation: the same conversation sent as OpenAI Chat Completions, Anthropic
// Messages and OpenAI Responses becomes the same template messages and tools.
#include "crux/chat_template/messages.h"

#include <gtest/gtest.h>

namespace crux::chat_template {
namespace {

using Json = nlohmann::ordered_json;

// What all three requests below must become.
const Json kMessages = Json::parse(R"([
  {"role": "system", "content": "Be brief."},
  {"role": "user", "content": "Weather in Paris?"},
  {"role": "assistant", "content": null, "reasoning_content": "Call the tool.",
   "tool_calls": [{"id": "c1", "type": "function",
                   "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "21 C", "name": "get_weather"},
  {"role": "assistant", "content": "It is 21 C."}
])");

const Json kTools = Json::parse(R"([{"type": "function", "function": {"name": "get_weather",
  "description": "Weather", "parameters": {"type": "object"}}}])");

TEST(NormalizeConversation, OpenAiChat) {
  const Json request = Json::parse(R"({
    "messages": [
      {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "reasoning": "Call the tool.",
       "tool_calls": [{"id": "c1", "type": "function",
                       "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "21 C"},
      {"role": "assistant", "content": "It is 21 C."}
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
               "parameters": {"type": "object"}}}]})");
  auto c = NormalizeConversation(InputFormat::kOpenAiChat, request);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->messages, kMessages) << c->messages.dump(1);
  EXPECT_EQ(c->tools, kTools);
}

TEST(NormalizeConversation, Anthropic) {
  const Json request = Json::parse(R"({
    "system": [{"type": "text", "text": "Be brief."}],
    "messages": [
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "Call the tool.", "signature": "x"},
        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                    "content": [{"type": "text", "text": "21 C"}]}]},
      {"role": "assistant", "content": [{"type": "text", "text": "It is 21 C."}]}
    ],
    "tools": [{"name": "get_weather", "description": "Weather", "input_schema": {"type": "object"}}]})");
  auto c = NormalizeConversation(InputFormat::kAnthropic, request);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->messages, kMessages) << c->messages.dump(1);
  EXPECT_EQ(c->tools, kTools);
}

TEST(NormalizeConversation, Responses) {
  const Json request = Json::parse(R"({
    "instructions": "Be brief.",
    "input": [
      {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
      {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Call the tool."}]},
      {"type": "function_call", "call_id": "c1", "name": "get_weather",
       "arguments": "{\"city\": \"Paris\"}"},
      {"type": "function_call_output", "call_id": "c1", "output": "21 C"},
      {"type": "message", "role": "assistant",
       "content": [{"type": "output_text", "text": "It is 21 C."}]}
    ],
    "tools": [{"type": "function", "name": "get_weather", "description": "Weather",
               "parameters": {"type": "object"}}]})");
  auto c = NormalizeConversation(InputFormat::kResponses, request);
  ASSERT_TRUE(c.ok()) << c.error().message();
  EXPECT_EQ(c->messages, kMessages) << c->messages.dump(1);
  EXPECT_EQ(c->tools, kTools);
}

TEST(NormalizeConversation, SeveralCallsJoinOneAssistantTurn) {
  const Json request = Json::parse(R"({"input": [
    {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
    {"type": "function_call", "call_id": "b", "name": "g", "arguments": "not json"}]})");
  auto c = NormalizeConversation(InputFormat::kResponses, request);
  ASSERT_TRUE(c.ok()) << c.error().message();
  ASSERT_EQ(c->messages.size(), 1u);
  ASSERT_EQ(c->messages[0]["tool_calls"].size(), 2u);
  EXPECT_EQ(c->messages[0]["tool_calls"][0]["function"]["arguments"], Json::object());
  EXPECT_EQ(c->messages[0]["tool_calls"][1]["function"]["arguments"], "not json");
}

TEST(NormalizeConversation, ErrorsNameTheField) {
  auto bad = NormalizeConversation(
      InputFormat::kOpenAiChat, Json::parse(R"({"messages": [{"role": "user"}, {"content": 1}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message().rfind("messages[1]", 0), 0u) << bad.error().message();
  auto blocks = NormalizeConversation(
      InputFormat::kAnthropic, Json::parse(R"({"messages": [{"role": "user", "content": [7]}]})"));
  ASSERT_FALSE(blocks.ok());
  EXPECT_EQ(blocks.error().message().rfind("messages[0].content[0]", 0), 0u);
  EXPECT_FALSE(NormalizeConversation(InputFormat::kResponses, Json::parse(R"({"input": 3})")).ok());
}

}  // namespace
}  // namespace crux::chat_template
