// `crux template render`: renders a chat template over a context file as Hugging Face's
// apply_chat_template does (docs/chat-templates.md) and prints the prompt.
//
// Exit status: 0 rendered, 2 bad arguments, unreadable files, a context that is not a JSON
// object, or a template error (syntax, a failure while rendering, raise_exception), whose
// message names the template line and column.
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "crux/chat_template/json.h"
#include "crux/chat_template/messages.h"
#include "crux/chat_template/template.h"
#include "crux/commands.h"

namespace crux::app {
namespace {

using Json = nlohmann::ordered_json;

struct TemplateFlags {
  std::string template_file;
  std::string input_file;
  std::string kwargs;
  std::string from;
  bool add_generation_prompt = false;
};

// --from: the input is a request body of that protocol; its conversation is normalised into
// `messages` and `tools` (include/crux/chat_template/messages.h).
bool NormalizeInput(const std::string& from, Json& context, std::string& error) {
  using chat_template::InputFormat;
  InputFormat format = InputFormat::kOpenAiChat;
  if (from == "anthropic") {
    format = InputFormat::kAnthropic;
  } else if (from == "responses") {
    format = InputFormat::kResponses;
  } else if (from != "openai_chat") {
    error = "--from: unknown format '" + from + "'; available: openai_chat, anthropic, responses";
    return false;
  }
  auto conversation = chat_template::NormalizeConversation(format, context);
  if (!conversation.ok()) {
    error = "--input: " + conversation.error().message();
    return false;
  }
  Json normalised = {{"messages", conversation->messages}};
  if (!conversation->tools.empty()) normalised["tools"] = conversation->tools;
  context = std::move(normalised);
  return true;
}

int Fail(const std::string& message) {
  std::cerr << "crux template: " << message << "\n";
  return 2;
}

bool ReadText(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

int RunRender(const TemplateFlags& flags) {
  std::string source;
  std::string input;
  if (!ReadText(flags.template_file, source))
    return Fail("cannot read --template " + flags.template_file);
  if (!ReadText(flags.input_file, input)) return Fail("cannot read --input " + flags.input_file);
  Json context = Json::parse(input, nullptr, false);
  if (!context.is_object()) return Fail("--input " + flags.input_file + ": not a JSON object");
  std::string error;
  if (!flags.from.empty() && !NormalizeInput(flags.from, context, error)) return Fail(error);
  if (!flags.kwargs.empty()) {
    Json kwargs = Json::parse(flags.kwargs, nullptr, false);
    if (!kwargs.is_object()) return Fail("--kwargs: not a JSON object");
    for (const auto& [key, value] : kwargs.items())
      context[key] = value;
  }
  if (flags.add_generation_prompt) context["add_generation_prompt"] = true;
  auto parsed = chat_template::Template::Parse(source);
  if (!parsed.ok()) return Fail(flags.template_file + ": " + parsed.error().message());
  auto prompt = (*parsed)->Render(chat_template::FromJson(context));
  if (!prompt.ok()) return Fail(flags.template_file + ": " + prompt.error().message());
  std::cout << *prompt;
  std::cout.flush();
  return 0;
}

}  // namespace

void AddTemplateCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<TemplateFlags>();
  CLI::App* cmd = app.add_subcommand("template",
                                     "Chat templates (Jinja), rendered as Hugging Face "
                                     "transformers renders them with Python Jinja2");
  cmd->require_subcommand(1);
  CLI::App* render = cmd->add_subcommand(
      "render",
      "Render a chat template over a context and print the prompt. The context is a JSON object\n"
      "whose keys become the template's variables, as apply_chat_template passes them:\n"
      "messages, tools, add_generation_prompt, bos_token, eos_token, enable_thinking, ...");
  render->add_option("--template", flags->template_file, "the template (.jinja)")->required();
  render->add_option("--input", flags->input_file, "the context (a JSON object)")->required();
  render->add_option("--from", flags->from,
                     "the input is a request body of this API (openai_chat, anthropic, "
                     "responses): its conversation and tools become messages and tools");
  render->add_flag("--add-generation-prompt", flags->add_generation_prompt,
                   "set add_generation_prompt to true");
  render->add_option("--kwargs", flags->kwargs,
                     "a JSON object of further variables (chat_template_kwargs), over the input's");
  render->callback([flags, &run] { run = [flags] { return RunRender(*flags); }; });
}

}  // namespace crux::app
