// Random bytes as a chat template: Template::Parse must return a template or an error, and a
// parsed template rendered over a conversation (messages with tool calls and results, tools,
// reasoning, generation prompt) must return text or an error: never crash, hang or grow past
// the render limits. Then the template renders a longer conversation, and the same one with a
// new turn, an earlier message changed and the generation prompt off: replaying the first
// render's loop iterations (RenderOptions::reuse_loops) must give what a whole render gives.
// Seeds (corpus/chat_template_fuzz/): small templates of each construct.
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

// The conversation above with `turns` more question and answer turns; `changed`: the third
// message edited and no generation prompt.
crux::chat_template::Value Longer(int turns, bool changed) {
  auto context = nlohmann::ordered_json::parse(R"({"messages": [], "tools": [],
    "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"})");
  context["messages"].push_back({{"role", "system"}, {"content", "Be brief."}});
  for (int i = 0; i < turns; ++i) {
    context["messages"].push_back({{"role", "user"}, {"content", "q" + std::to_string(i)}});
    context["messages"].push_back(
        {{"role", "assistant"}, {"content", "<think>r</think>a" + std::to_string(i)}});
  }
  if (changed) {
    context["messages"][2]["content"] = "changed";
    context["add_generation_prompt"] = false;
  }
  return crux::chat_template::FromJson(context);
}

// Renders the longer conversations with and without replay; aborts where they differ.
void CheckReplay(const crux::chat_template::Template& t,
                 crux::chat_template::RenderOptions options) {
  static const crux::chat_template::Value before = Longer(6, false);
  static const crux::chat_template::Value after = Longer(8, false);
  static const crux::chat_template::Value changed = Longer(8, true);
  options.reuse_loops = true;
  (void)t.Render(before, options);
  for (const auto* context : {&after, &changed}) {
    options.reuse_loops = true;
    auto replayed = t.Render(*context, options);
    options.reuse_loops = false;
    auto whole = t.Render(*context, options);
    // A replayed iteration takes one step: a render may stay within the step limit only so.
    if (!whole.ok() && whole.error().code() == crux::ErrorCode::kLimit) continue;
    if (replayed.ok() != whole.ok()) std::abort();
    if (whole.ok() ? *replayed != *whole : replayed.error().message() != whole.error().message()) {
      std::abort();
    }
  }
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
  options.limits.max_output_bytes = 1 << 18;
  options.now_seconds = [] { return int64_t{0}; };
  auto rendered = (*parsed)->Render(Context(), options);
  if (rendered.ok() && rendered->size() > options.limits.max_output_bytes) std::abort();
  CheckReplay(**parsed, options);
  return 0;
}
