// Explicit registries of parser families: one table per kind, {name, aliases, factory}.
// The tables produce the CLI choices and the "unknown parser" error; nothing self-registers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/call_grammar.h"
#include "crux/parse/parser.h"

namespace crux::parse {

// A reasoning block between markers, as data: `start` … `end`. Every family whose reasoning
// is delimited this way is one registry row run by one parser (src/parse/reasoning/think.cc):
// text inside a block is reasoning, text outside is content; a nested start marker and an end
// marker right after a close are dropped; any other end marker outside reasoning is lone and
// stays in content (ReasoningParser::lone_end_markers()).
struct ThinkSyntax {
  std::vector<std::string_view> start = {};  // open a block (the first is the canonical spelling)
  std::vector<std::string_view> end = {};    // close it
  // The chat template opens the block (unless thinking is off): the output starts inside
  // reasoning unless ReasoningOptions::start_in_reasoning says otherwise.
  bool starts_inside = false;
  // Markers that open the answer (`<answer>`, `<|START_RESPONSE|>`): inside reasoning they end
  // it; they are removed wherever they appear.
  std::vector<std::string_view> answer_start = {};
  // Markers that open a tool-call block (`<tool_call>`): inside reasoning they end it, and they
  // are content, for the tool parser, wherever they appear.
  std::vector<std::string_view> tool_start = {};
  // Framing markers removed wherever they appear (GLM's box tags, answer closers).
  std::vector<std::string_view> deleted = {};
  // Text written to content before the output, which is then not split at all (MiniMax's
  // "append think": clients that keep the raw interleaved thinking get `<think>` + output).
  std::string_view content_prefix = {};
};

class ThinkFormat;  // a ThinkSyntax with its markers compiled (src/parse/reasoning/think.h)

struct ReasoningParserInfo {
  std::string_view name;
  std::vector<std::string_view> aliases = {};
  std::string_view models;  // model families it is known to work with
  // The family's block markers as data; null for the families with a parser of their own
  // (`create`). For a declared family, `markers` and `start_markers` are derived from it
  // unless the row sets them.
  const ThinkFormat* think = nullptr;
  std::string_view markers = {};  // human-readable marker summary
  // The markers that open the family's reasoning block. A rendered prompt ending with one
  // (the chat template opened the block) starts the output inside reasoning
  // (ReasoningOptions::start_in_reasoning). Empty: the family never starts inside.
  std::vector<std::string_view> start_markers = {};
  // The markers that close it (the first is the canonical spelling): where a thinking budget
  // forces the end of reasoning, it writes the first.
  std::vector<std::string_view> end_markers = {};
  std::unique_ptr<ReasoningParser> (*create)(const ReasoningOptions&) = nullptr;
  // Channel formats (Harmony, Muse Glimmer): the tool parser row (`channel` set) that reads
  // this format whole — reasoning, content and tool calls — and runs instead of this parser
  // in a parser chain (see crux/parse/chain.h). Empty for every other family.
  std::string_view channel_parser = {};
};

// A tool-call block by its markers: `open` … `close` (e.g. `<tool_call>` … `</tool_call>`).
struct ToolCallBlock {
  std::string_view open;
  std::string_view close;
};

// A chat-template needle pair for DetectToolParserFromTemplate: both strings (the second may
// be empty) occur in the template. Rows are tried by ascending rank, most specific first.
struct TemplateNeedles {
  int rank = 0;
  std::string_view first;
  std::string_view second = {};
};

// The declaration of one tool-call format, defined once in the format's own file
// (src/parse/tools/<family>.cc). Everything crux says about the format comes from it: the CLI
// choices, the parser, the renderer and the documentation's format line (from `grammar`), and
// auto-detection (`detect_markers`, `template_needles`).
struct ToolParserInfo {
  std::string_view name;
  std::vector<std::string_view> aliases = {};
  std::string_view models;  // model families it is known to work with
  std::string_view format;  // human-readable summary of every form the parser accepts
  std::unique_ptr<ToolParser> (*create)(const ToolParserOptions&);
  // The canonical form of a call block: literal markers and argument slots (nullptr: no form
  // of its own, as for `auto`). See crux/parse/call_grammar.h.
  const CallGrammar* grammar = nullptr;
  // Start markers that identify the format in model output (auto-detection). A marker that
  // several formats declare is decided by the bytes after it (src/parse/tools/detect.cc).
  std::vector<std::string_view> detect_markers = {};
  // Strings only this format's chat templates contain (DetectToolParserFromTemplate).
  std::vector<TemplateNeedles> template_needles = {};
  // A channel format: the framing carries reasoning and content as well as calls, and this
  // parser emits all three, so no reasoning parser runs before it (see crux/parse/chain.h).
  bool channel = false;
  // Blocks the family's models also write inside reasoning; a closed one found there is
  // promoted to the answer, where this parser extracts it (see OutputParser). Empty: none.
  std::vector<ToolCallBlock> promoted_blocks = {};
};

// Sorts and removes duplicates.
std::vector<std::string> SortedUnique(std::vector<std::string> names);

// Finds `name` (or an alias) in a table; nullptr when absent.
template <typename Info>
const Info* FindParserInfo(const std::vector<Info>& table, std::string_view name) {
  for (const Info& info : table) {
    if (info.name == name) return &info;
    for (std::string_view alias : info.aliases) {
      if (alias == name) return &info;
    }
  }
  return nullptr;
}

// Every name and alias of a table, sorted: the CLI choice list.
template <typename Info>
std::vector<std::string> ParserNames(const std::vector<Info>& table) {
  std::vector<std::string> names;
  for (const Info& info : table) {
    names.emplace_back(info.name);
    for (std::string_view alias : info.aliases)
      names.emplace_back(alias);
  }
  return SortedUnique(std::move(names));
}

// "unknown <kind> parser 'x'; available: a, b, c"
Error UnknownParserError(std::string_view kind, std::string_view name,
                         const std::vector<std::string>& available);

}  // namespace crux::parse
