// Shared helpers for fuzz targets: chunking an input and checking the every-split property.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/parser.h"
#include "crux/parse/registry.h"

namespace crux::fuzz {

// Reads fuzz input: a selector byte, a chunking seed byte, then the text.
struct FuzzInput {
  uint8_t selector = 0;
  uint8_t seed = 0;
  std::string_view text;
};
bool SplitInput(const uint8_t* data, size_t size, FuzzInput& out);

// The row of `table` registered under `name` (or an alias); otherwise one chosen by the
// name's hash, so mutated names still reach every family while a seed keeps its parser when
// families are added or reordered.
template <typename Info>
const Info& PickParser(const std::vector<Info>& table, std::string_view name) {
  if (const Info* info = parse::FindParserInfo(table, name)) return *info;
  uint32_t hash = 2166136261u;  // FNV-1a
  for (char c : name)
    hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return table[hash % table.size()];
}

// Splits a seed `NAME\n` + the rest; false when there is no newline.
bool SplitName(const uint8_t* data, size_t size, std::string_view& name, FuzzInput& input);

// Cuts `text` into chunks of 1..max bytes driven by `seed` (deterministic).
std::vector<std::string_view> Chunk(std::string_view text, uint8_t seed);

// Feeds `chunks` through `parser` (Reset first) and accumulates the result.
parse::ParseResult Run(parse::StreamParser& parser, const std::vector<std::string_view>& chunks);

// Aborts (a crash libFuzzer reports) when the streamed result differs from the complete one,
// or when a tool call's arguments are not a JSON object.
void CheckSame(const parse::ParseResult& streamed, const parse::ParseResult& complete);

}  // namespace crux::fuzz
