// Message normalisation: a request's conversation, in the shape its protocol sends it, mapped
// to the shape chat templates read (Hugging Face's / OpenAI's messages): `role` and `content`
// (a string), assistant `tool_calls` with `function.arguments` as an object (templates run
// `arguments | tojson` or walk its items), `tool` messages with `tool_call_id` (and `name` when
// the call that asked for them is known), `reasoning_content` on assistant turns, and tools as
// `{"type": "function", "function": {name, description, parameters}}`.
//
// OpenAI Chat Completions: content parts become their text joined by "\n" (other parts are
// dropped), argument strings are parsed, `developer` becomes `system`, `reasoning` becomes
// `reasoning_content`. Anthropic Messages: `system` becomes the first message; `tool_use`
// blocks become tool calls, `tool_result` blocks tool messages, `thinking` blocks
// `reasoning_content`. OpenAI Responses: `instructions` becomes the first message;
// `function_call` items join the assistant turn before them, `function_call_output` items become
// tool messages, `reasoning` items the next assistant turn's `reasoning_content`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "crux/base/error.h"

namespace crux::chat_template {

enum class InputFormat : uint8_t { kOpenAiChat, kAnthropic, kResponses };

struct Conversation {
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();  // empty: none offered
};

// Normalises the conversation of `request` (a request body of that format). Errors name the
// offending field ("messages[2].content[0].type").
Expected<Conversation> NormalizeConversation(InputFormat format,
                                             const nlohmann::ordered_json& request);

}  // namespace crux::chat_template
