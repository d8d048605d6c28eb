#include <nlohmann/json.hpp>

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

}  // namespace crux::pipeline
