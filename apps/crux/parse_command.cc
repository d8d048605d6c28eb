// `crux parse`: reads raw model output (or, with --chunks, a JSON array of deltas) on stdin and
// prints one JSON object with reasoning, content and tool calls.
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "crux/commands.h"
#include "crux/parse/chain.h"
#include "crux/parse/output_parser.h"
#include "crux/parse/reasoning/registry.h"
#include "crux/parse/result.h"
#include "crux/parse/tools/registry.h"
#include "crux/protocol/tools.h"
#include "crux/text/json_dump.h"
#include "crux/text/json_text.h"

namespace crux::app {
namespace {

using Json = nlohmann::ordered_json;

struct ParseFlags {
  std::string reasoning_parser;
  std::string tool_parser;
  std::string tools_file;
  bool chunks = false;
  bool start_in_reasoning = false;
  bool no_start_in_reasoning = false;
  bool no_tool_call_promotion = false;
  bool list = false;
};

int Fail(const std::string& message) {
  std::cerr << "crux parse: " << message << "\n";
  return 2;
}

Json EventToJson(const parse::Event& e) {
  Json j;
  j["type"] = parse::EventKindName(e.kind);
  switch (e.kind) {
    case parse::EventKind::kReasoning:
    case parse::EventKind::kContent:
      j["text"] = e.text;
      break;
    case parse::EventKind::kToolCallBegin:
      j["index"] = e.index;
      j["id"] = e.id;
      j["name"] = e.name;
      if (!e.declared) j["undeclared"] = true;
      break;
    case parse::EventKind::kToolCallArgs:
      j["index"] = e.index;
      j["text"] = e.text;
      break;
    case parse::EventKind::kToolCallEnd:
    case parse::EventKind::kToolCallCancel:
      j["index"] = e.index;
      break;
  }
  return j;
}

void AppendOptionalString(std::string& out, const std::optional<std::string>& text) {
  if (text) {
    text::AppendJsonStringLikeDump(out, *text);
  } else {
    out += "null";
  }
}

// The result as one JSON object (with `events` when given). Arguments that are one JSON
// value are spliced in compact, as the model wrote them: they are never parsed into a tree,
// so arguments of any depth or width print (and numbers keep every digit). Other argument
// text prints as a JSON string.
std::string ResultText(const parse::ParseResult& r, const Json* events) {
  std::string out = R"({"reasoning":)";
  AppendOptionalString(out, r.reasoning);
  out += R"(,"content":)";
  AppendOptionalString(out, r.content);
  out += R"(,"tool_calls":[)";
  for (size_t i = 0; i < r.tool_calls.size(); ++i) {
    const parse::ToolCall& call = r.tool_calls[i];
    if (i > 0) out += ',';
    out += R"({"id":)";
    text::AppendJsonStringLikeDump(out, call.id);
    out += R"(,"name":)";
    text::AppendJsonStringLikeDump(out, call.name);
    out += R"(,"arguments":)";
    if (!text::AppendCompactJson(out, call.arguments)) {
      text::AppendJsonStringLikeDump(out, call.arguments);
    }
    if (!call.declared) out += R"(,"undeclared":true)";
    out += '}';
  }
  out += ']';
  if (events != nullptr) {
    out += R"(,"events":)";
    text::AppendJsonDump(out, *events);
  }
  out += '}';
  return out;
}

Expected<std::vector<std::string>> ReadChunks(const std::string& input) {
  Json doc = Json::parse(input, nullptr, false);
  if (doc.is_discarded()) {
    return Error(ErrorCode::kParse, "--chunks input is not valid JSON");
  }
  if (!doc.is_array()) {
    return Error(ErrorCode::kInvalidArgument, "--chunks input must be a JSON array of strings");
  }
  std::vector<std::string> chunks;
  for (size_t i = 0; i < doc.size(); ++i) {
    if (!doc[i].is_string()) {
      return Error(ErrorCode::kInvalidArgument,
                   "--chunks input element " + std::to_string(i) + " is not a string");
    }
    chunks.push_back(doc[i].get<std::string>());
  }
  return chunks;
}

// The parsers the flags ask for: --reasoning-parser, and --tool-call-parser (auto when only
// --tools is given) typed by the --tools file.
Expected<parse::ParserChainOptions> ChainOptions(const ParseFlags& flags) {
  parse::ParserChainOptions chain;
  chain.reasoning_parser = flags.reasoning_parser;
  if (flags.start_in_reasoning) chain.reasoning.start_in_reasoning = true;
  if (flags.no_start_in_reasoning) chain.reasoning.start_in_reasoning = false;
  chain.tool_call_promotion = !flags.no_tool_call_promotion;
  if (flags.tool_parser.empty() && flags.tools_file.empty()) return chain;
  if (!flags.tools_file.empty()) {
    std::ifstream in(flags.tools_file, std::ios::binary);
    if (!in) {
      return Error(ErrorCode::kInvalidArgument, "cannot read --tools file " + flags.tools_file);
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto specs = protocol::DecodeToolSpecs(text);
    if (!specs.ok()) {
      return Error(specs.error().code(),
                   "--tools " + flags.tools_file + ": " + specs.error().message());
    }
    chain.tools.tools = std::move(*specs);
  }
  chain.tool_parser = flags.tool_parser.empty() ? "auto" : flags.tool_parser;
  return chain;
}

// Adds the events in `sink` to `builder` and, as one JSON array, to `events`; empties `sink`.
void Record(parse::EventSink& sink, parse::ResultBuilder& builder, Json& events) {
  Json produced = Json::array();
  for (const parse::Event& e : sink.events())
    produced.push_back(EventToJson(e));
  builder.AddAll(sink.events());
  events.push_back(std::move(produced));
  sink.Clear();
}

// Feeds each chunk as one delta; the result with the events each delta produced.
std::string ParseChunks(parse::OutputParser& parser, const std::vector<std::string>& chunks) {
  parse::EventSink sink;
  parse::ResultBuilder builder;
  Json events = Json::array();
  for (const std::string& chunk : chunks) {
    parser.Feed(chunk, sink);
    Record(sink, builder, events);
  }
  parser.Finish(sink);
  Record(sink, builder, events);
  return ResultText(builder.Take(), &events);
}

// One line per registered parser: name, aliases (comma-separated, `-` for none), model
// families and markers, separated by tabs.
template <typename Info>
void PrintRows(const std::vector<Info>& table, std::string_view (*markers)(const Info&)) {
  for (const Info& info : table) {
    std::string aliases;
    for (std::string_view alias : info.aliases) {
      if (!aliases.empty()) aliases += ",";
      aliases += alias;
    }
    std::cout << info.name << '\t' << (aliases.empty() ? "-" : aliases) << '\t' << info.models
              << '\t' << markers(info) << '\n';
  }
}

int ListParsers() {
  std::cout << "# reasoning parsers (--reasoning-parser NAME): name, aliases, models, markers\n";
  PrintRows<parse::ReasoningParserInfo>(
      parse::ReasoningParsers(),
      [](const parse::ReasoningParserInfo& info) { return info.markers; });
  std::cout << "# tool-call parsers (--tool-call-parser NAME): name, aliases, models, format\n";
  PrintRows<parse::ToolParserInfo>(parse::ToolParsers(),
                                   [](const parse::ToolParserInfo& info) { return info.format; });
  return 0;
}

int RunParse(const ParseFlags& flags) {
  if (flags.list) return ListParsers();
  auto chain = ChainOptions(flags);
  if (!chain.ok()) return Fail(chain.error().message());
  auto created = parse::CreateOutputParser(*chain);
  if (!created.ok()) return Fail(created.error().message());
  parse::OutputParser& parser = **created;

  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  if (std::cin.bad()) return Fail("cannot read standard input");

  std::string out;
  if (flags.chunks) {
    auto chunks = ReadChunks(input);
    if (!chunks.ok()) return Fail(chunks.error().message());
    out = ParseChunks(parser, *chunks);
  } else {
    parse::EventSink sink;
    parse::ResultBuilder builder;
    parser.Feed(input, sink);
    parser.Finish(sink);
    builder.AddAll(sink.events());
    out = ResultText(builder.Take(), nullptr);
  }
  std::cout << out << "\n";
  return 0;
}

}  // namespace

void AddParseCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<ParseFlags>();
  CLI::App* cmd = app.add_subcommand(
      "parse",
      "Split raw model output on stdin into reasoning, content and tool calls; print JSON.\n"
      "With --chunks, stdin is a JSON array of strings fed one by one as streaming deltas, and\n"
      "the output also has \"events\": the events each delta produced (one array per delta,\n"
      "plus a last one for the end of the stream).");
  cmd->add_option("--reasoning-parser", flags->reasoning_parser,
                  "Reasoning parser name or alias (see docs/reasoning-parsers.md); a channel "
                  "format (harmony, gpt_oss, muse_glimmer) also extracts its tool calls");
  cmd->add_option("--tool-call-parser", flags->tool_parser,
                  "Tool-call parser name or alias (see docs/tool-parsers.md); a channel format "
                  "(harmony, muse_glimmer) also extracts reasoning, in place of "
                  "--reasoning-parser");
  cmd->add_option("--tools", flags->tools_file,
                  "JSON file with an array of tool definitions (OpenAI or Anthropic shape); types "
                  "XML-style parameters and marks calls to undeclared tools (\"undeclared\": "
                  "true). Without --tool-call-parser, the parser is auto");
  cmd->add_flag("--chunks", flags->chunks, "stdin is a JSON array of streamed deltas");
  auto* open = cmd->add_flag("--start-in-reasoning", flags->start_in_reasoning,
                             "the prompt opened the reasoning block: output starts inside it");
  cmd->add_flag("--no-start-in-reasoning", flags->no_start_in_reasoning,
                "output starts outside reasoning (overrides the parser's default)")
      ->excludes(open);
  cmd->add_flag("--no-tool-call-promotion", flags->no_tool_call_promotion,
                "leave tool calls written inside reasoning in the reasoning (default: a closed "
                "call block there goes to the tool parser, for families that list one)");
  cmd->add_flag("--list", flags->list,
                "print every reasoning and tool-call parser (name, aliases, models, markers; "
                "tab-separated) and exit");
  cmd->callback([flags, &run] { run = [flags] { return RunParse(*flags); }; });
}

}  // namespace crux::app
