// Prompts rendered with a chat template (crux serve --chat-template): the decoded request of
// each protocol becomes the template context Hugging Face passes (tool calls with object
// arguments, tool results, reasoning, tools, add_generation_prompt, chat_template_kwargs), and
// raise_exception in the template fails the request.
#include <gtest/gtest.h>

#include "crux/chat_template/template.h"
#include "crux/pipeline/pipeline.h"
#include "crux/protocol/codec.h"

namespace crux::pipeline {
namespace {

const char* kTemplate =
    "{%- for m in messages %}"
    "<{{ m.role }}>{% if m.reasoning_content %}({{ m.reasoning_content }}){% endif %}"
    "{{ m.content if m.content is not none else '-' }}"
    "{% for c in m.tool_calls or [] %}[{{ c.function.name }} {{ c.function.arguments | tojson "
    "}}]{% endfor %}"
    "{% if m.role == 'tool' %}#{{ m.tool_call_id }}{% endif %}"
    "{%- endfor %}"
    "{% if tools %}|tools={{ tools | map(attribute='function.name') | join(',') }}{% endif %}"
    "{% if add_generation_prompt %}<assistant>{% endif %}{{ bos_token }}{{ flavour }}"
    "{% if enable_thinking is defined and not enable_thinking %}<nothink>{% endif %}";

std::shared_ptr<const chat_template::Template> Parse(const char* source) {
  auto parsed = chat_template::Template::Parse(source);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message();
  return *parsed;
}

TEST(RenderChatTemplate, OpenAiRequest) {
  auto request = protocol::DecodeChatCompletions(R"({"model": "m",
    "messages": [{"role": "user", "content": "hi"},
                 {"role": "assistant", "content": null, "tool_calls": [{"id": "c1",
                  "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}}]},
                 {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    "chat_template_kwargs": {"enable_thinking": false, "flavour": "!"}})");
  ASSERT_TRUE(request.ok()) << request.error().message();
  auto prompt = RenderChatTemplate(*Parse(kTemplate), *request);
  ASSERT_TRUE(prompt.ok()) << prompt.error().message();
  EXPECT_EQ(*prompt, "<user>hi<assistant>-[f {\"x\": 1}]<tool>ok#c1|tools=f<assistant>!<nothink>");
}

TEST(RenderChatTemplate, AnthropicRequest) {
  auto request = protocol::DecodeAnthropicMessages(R"({"model": "m", "max_tokens": 5,
    "system": "sys", "messages": [{"role": "user", "content": "hi"},
      {"role": "assistant", "content": [{"type": "thinking", "thinking": "hmm", "signature": "s"},
                                        {"type": "text", "text": "yo"}]},
      {"role": "user", "content": "again"}]})");
  ASSERT_TRUE(request.ok()) << request.error().message();
  auto prompt = RenderChatTemplate(*Parse(kTemplate), *request);
  ASSERT_TRUE(prompt.ok()) << prompt.error().message();
  EXPECT_EQ(*prompt, "<system>sys<user>hi<assistant>(hmm)yo<user>again<assistant>");
}

TEST(RenderChatTemplate, RaiseExceptionFailsTheRequest) {
  auto request = protocol::DecodeChatCompletions(
      R"({"model": "m", "messages": [{"role": "assistant", "content": "first"}]})");
  ASSERT_TRUE(request.ok());
  auto bad = Parse(
      "{% if messages[0].role != 'user' %}{{ raise_exception('start with a user turn') }}{% endif "
      "%}");
  auto prompt = RenderChatTemplate(*bad, *request);
  ASSERT_FALSE(prompt.ok());
  EXPECT_EQ(prompt.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(prompt.error().tag(), "raise_exception");
  EXPECT_NE(prompt.error().message().find("start with a user turn"), std::string::npos);
}

}  // namespace
}  // namespace crux::pipeline
