// Explicit registries of parser families: one table per kind, {name, aliases, factory}.
// The tables produce the CLI choices and the "unknown parser" error; nothing self-registers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/parser.h"

namespace crux::parse {

struct ReasoningParserInfo {
  std::string_view name;
  std::vector<std::string_view> aliases;
  std::string_view models;   // model families it is known to work with
  std::string_view markers;  // human-readable marker summary
  // The markers that open the family's reasoning block. A rendered prompt ending with one
  // (the chat template opened the block) starts the output inside reasoning
  // (ReasoningOptions::start_in_reasoning). Empty: the family never starts inside.
  std::vector<std::string_view> start_markers;
  std::unique_ptr<ReasoningParser> (*create)(const ReasoningOptions&);
};

struct ToolParserInfo {
  std::string_view name;
  std::vector<std::string_view> aliases;
  std::string_view models;  // model families it is known to work with
  std::string_view format;  // human-readable wire format summary
  std::unique_ptr<ToolParser> (*create)(const ToolParserOptions&);
  // Writes `calls` (arguments: JSON objects) the way the family's models write them — the
  // text the parser reads back into the same calls. Used by round-trip tests and benchmarks.
  std::string (*render)(const std::vector<ToolCall>& calls);
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
