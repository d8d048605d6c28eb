// Random bytes as a chat template: Template::Parse must return a template or an error, and a
// parsed template rendered over a conversation (messages with tool calls and results, tools,
// reasoning, generation prompt) must return text or an error: never crash, hang or grow past
// the render limits. Seeds (corpus/chat_template_fuzz/): small templates of each construct.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "crux/chat_template/json.h"
#include "crux/chat_template/template.h"

namespace {

const crux::chat_template::Value& Context() {
  static const crux::chat_template::Value context =
      crux::chat_template::FromJson(nlohmann::ordered_json::parse(R"({
    "messages": [
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "reasoning_content": "Call the tool.",
       "tool_calls": [{"id": "c1", "type": "function",
                       "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "{\"t\": 21}"},
      {"role": "assistant", "content": "21 degrees."}
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
    "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>",
    "enable_thinking": false
  })"));
  return context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  auto parsed = crux::chat_template::Template::Parse(source);
  if (!parsed.ok()) {
    if (parsed.error().message().rfind("line ", 0) != 0) std::abort();  // errors name a line
    return 0;
  }
  crux::chat_template::RenderOptions options;
  options.limits.max_steps = 200'000;
  options.limits.max_output_bytes = 1 << 20;
  options.now_seconds = [] { return int64_t{0}; };
  auto rendered = (*parsed)->Render(Context(), options);
  if (rendered.ok() && rendered->size() > options.limits.max_output_bytes) std::abort();
  return 0;
}
