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
namespace ct = chat_template;

// A dict built key by key, in order (the keys are new: no lookup).
class DictBuilder {
 public:
  DictBuilder() { dict_->entries.reserve(6); }
  DictBuilder& Add(const char* key, ct::Value value) {
    dict_->entries.emplace_back(ct::Value(key), std::move(value));
    return *this;
  }
  ct::Value Build() { return ct::Value::Dict(std::move(dict_)); }

 private:
  std::shared_ptr<ct::DictData> dict_ = std::make_shared<ct::DictData>();
};

// A JSON text as its value where it parses (tool arguments, schemas); else as a string.
ct::Value ParseOr(const std::string& text) {
  Json parsed = Json::parse(text, nullptr, false);
  return parsed.is_discarded() ? ct::Value(text) : ct::FromJson(parsed);
}

ct::Value TemplateMessage(const protocol::Message& m) {
  DictBuilder out;
  out.Add("role", ct::Value(std::string(protocol::RoleName(m.role))));
  if (!m.tool_call_id.empty()) out.Add("tool_call_id", m.tool_call_id);
  // An assistant turn that only calls tools has null content, as OpenAI clients send it.
  out.Add("content",
          m.content.empty() && !m.tool_calls.empty() ? ct::Value::None() : ct::Value(m.content));
  if (!m.reasoning.empty()) out.Add("reasoning_content", m.reasoning);
  if (!m.tool_calls.empty()) {
    std::vector<ct::Value> calls;
    calls.reserve(m.tool_calls.size());
    for (const protocol::MessageToolCall& c : m.tool_calls) {
      DictBuilder function;
      function.Add("name", c.name).Add("arguments", ParseOr(c.arguments));
      DictBuilder call;
      call.Add("id", c.id).Add("type", "function").Add("function", function.Build());
      calls.push_back(call.Build());
    }
    out.Add("tool_calls", ct::Value::List(std::move(calls)));
  }
  if (!m.name.empty()) out.Add("name", m.name);
  return out.Build();
}

// The template's variables, built straight from the request (a long conversation's text is
// copied once, into the values the template reads).
ct::Value TemplateContext(const protocol::ChatRequest& request) {
  std::vector<ct::Value> messages;
  messages.reserve(request.messages.size());
  for (const protocol::Message& m : request.messages)
    messages.push_back(TemplateMessage(m));
  DictBuilder context;
  context.Add("messages", ct::Value::List(std::move(messages)))
      .Add("add_generation_prompt", true)
      .Add("bos_token", "")
      .Add("eos_token", "");
  if (!request.tools.empty()) {
    std::vector<ct::Value> tools;
    for (const parse::ToolSpec& t : request.tools) {
      DictBuilder function;
      function.Add("name", t.name)
          .Add("description", t.description)
          .Add("parameters", ParseOr(t.parameters_json));
      DictBuilder tool;
      tool.Add("type", "function").Add("function", function.Build());
      tools.push_back(tool.Build());
    }
    context.Add("tools", ct::Value::List(std::move(tools)));
  }
  ct::Value built = context.Build();
  ct::DictData& dict = built.mutable_dict();
  if (request.enable_thinking) dict.Set(ct::Value("enable_thinking"), *request.enable_thinking);
  const Json kwargs = Json::parse(request.chat_template_kwargs_json, nullptr, false);
  if (kwargs.is_object()) {
    for (const auto& [key, value] : kwargs.items())
      dict.Set(ct::Value(key), ct::FromJson(value));
  }
  return built;
}

}  // namespace

Expected<std::string> RenderChatTemplate(const chat_template::Template& chat_template,
                                         const protocol::ChatRequest& request,
                                         const chat_template::RenderOptions& options) {
  auto prompt = chat_template.Render(TemplateContext(request), options);
  if (!prompt.ok()) {
    return Error(ErrorCode::kInvalidArgument, "chat template: " + prompt.error().message())
        .WithTag(prompt.error().tag());
  }
  return prompt;
}

}  // namespace crux::pipeline
