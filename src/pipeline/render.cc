#include <nlohmann/json.hpp>

#include "crux/chat_template/json.h"
#include "crux/pipeline/pipeline.h"
#include "crux/text/json_dump.h"

namespace crux::pipeline {

std::string RenderPrompt(const protocol::ChatRequest& request) {
  using Json = nlohmann::ordered_json;
  std::string out;
  bool system_done = false;
  auto tools_block = [&](std::string& s) {
    if (request.tools.empty()) return;
    s += "\n\n# Tools\n";
    for (const parse::ToolSpec& t : request.tools) {
      Json j{{"name", t.name},
             {"description", t.description},
             {"parameters", Json::parse(t.parameters_json, nullptr, false)}};
      text::AppendJsonDump(s, j);  // iterative: a tool schema of any depth
      s += "\n";
    }
  };
  for (size_t i = 0; i < request.messages.size(); ++i) {
    const protocol::Message& m = request.messages[i];
    out += "<|im_start|>";
    out += protocol::RoleName(m.role);
    out += "\n";
    if (!m.reasoning.empty()) out += "<think>\n" + m.reasoning + "\n</think>\n\n";
    out += m.content;
    for (const protocol::MessageToolCall& c : m.tool_calls) {
      out += "\n<tool_call>\n{\"name\": " + Json(c.name).dump() +
             ", \"arguments\": " + c.arguments + "}\n</tool_call>";
    }
    // The tools go into the leading system turn; a system message later in the conversation
    // (Anthropic's mid-conversation system messages) stays where it was given.
    if (m.role == protocol::Role::kSystem && i == 0) {
      tools_block(out);
      system_done = true;
    }
    out += "<|im_end|>\n";
  }
  if (!system_done && !request.tools.empty()) {
    std::string system = "<|im_start|>system\n";
    tools_block(system);
    out = system + "<|im_end|>\n" + out;
  }
  out += "<|im_start|>assistant\n";
  return out;
}

namespace {

using Json = nlohmann::ordered_json;

// A JSON text that is an object or array as that value; anything else as a string.
Json ParseOr(const std::string& text) {
  Json parsed = Json::parse(text, nullptr, false);
  return parsed.is_discarded() ? Json(text) : parsed;
}

Json TemplateMessage(const protocol::Message& m) {
  Json out = {{"role", protocol::RoleName(m.role)}};
  if (!m.tool_call_id.empty()) out["tool_call_id"] = m.tool_call_id;
  // An assistant turn that only calls tools has null content, as OpenAI clients send it.
  out["content"] = m.content.empty() && !m.tool_calls.empty() ? Json() : Json(m.content);
  if (!m.reasoning.empty()) out["reasoning_content"] = m.reasoning;
  if (!m.tool_calls.empty()) {
    Json calls = Json::array();
    for (const protocol::MessageToolCall& c : m.tool_calls) {
      calls.push_back({{"id", c.id},
                       {"type", "function"},
                       {"function", {{"name", c.name}, {"arguments", ParseOr(c.arguments)}}}});
    }
    out["tool_calls"] = std::move(calls);
  }
  if (!m.name.empty()) out["name"] = m.name;
  return out;
}

Json TemplateContext(const protocol::ChatRequest& request) {
  Json context = {{"messages", Json::array()},
                  {"add_generation_prompt", true},
                  {"bos_token", ""},
                  {"eos_token", ""}};
  for (const protocol::Message& m : request.messages) {
    context["messages"].push_back(TemplateMessage(m));
  }
  if (!request.tools.empty()) {
    Json tools = Json::array();
    for (const parse::ToolSpec& t : request.tools) {
      tools.push_back({{"type", "function"},
                       {"function",
                        {{"name", t.name},
                         {"description", t.description},
                         {"parameters", ParseOr(t.parameters_json)}}}});
    }
    context["tools"] = std::move(tools);
  }
  if (request.enable_thinking) context["enable_thinking"] = *request.enable_thinking;
  const Json kwargs = Json::parse(request.chat_template_kwargs_json, nullptr, false);
  if (kwargs.is_object()) {
    for (const auto& [key, value] : kwargs.items())
      context[key] = value;
  }
  return context;
}

}  // namespace

Expected<std::string> RenderChatTemplate(const chat_template::Template& chat_template,
                                         const protocol::ChatRequest& request) {
  auto prompt = chat_template.Render(chat_template::FromJson(TemplateContext(request)));
  if (!prompt.ok()) {
    return Error(ErrorCode::kInvalidArgument, "chat template: " + prompt.error().message())
        .WithTag(prompt.error().tag());
  }
  return prompt;
}

}  // namespace crux::pipeline
