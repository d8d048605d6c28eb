// Body of the tool-parser fuzz targets: one target per family group (see families.h).
// Random bytes in random chunkings through a parser of the group (selected by the first byte),
// with a small typed tool list: no crash, no sanitizer report, the streamed result equals the
// complete parse, and every call's arguments are a JSON object.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "crux/parse/registry.h"
#include "crux/parse/tool_spec.h"
#include "crux/text/json_scan.h"
#include "fuzz_support.h"
#include "parse/tools/families.h"

namespace crux::fuzz {

inline const std::vector<parse::ToolSpec>& FuzzTools() {
  static const std::vector<parse::ToolSpec> tools = [] {
    auto weather = parse::MakeToolSpec("get_weather", "", R"({"type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                       "metric": {"type": "boolean"}, "ratio": {"type": "number"},
                       "tags": {"type": "array"}, "opts": {"type": "object"}}})");
    auto f = parse::MakeToolSpec("f", "", R"({"type": "object",
        "properties": {"x": {"type": "string"}, "n": {"type": "integer"}}})");
    if (!weather.ok() || !f.ok()) return std::vector<parse::ToolSpec>{};
    return std::vector<parse::ToolSpec>{*weather, *f};
  }();
  return tools;
}

inline bool IsJsonObject(const std::string& text) {
  text::JsonScanner scanner;
  size_t consumed = 0;
  if (scanner.Feed(text, consumed) != text::JsonScanner::Status::kDone) return false;
  for (size_t i = consumed; i < text.size(); ++i) {
    if (text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r') return false;
  }
  return scanner.first_byte() == '{';
}

inline int FuzzToolGroup(void (*add_group)(std::vector<parse::ToolParserInfo>&),
                         const uint8_t* data, size_t size) {
  static const std::vector<parse::ToolParserInfo> rows = [add_group] {
    std::vector<parse::ToolParserInfo> r;
    add_group(r);
    return r;
  }();
  FuzzInput input;
  if (rows.empty() || !SplitInput(data, size, input)) return 0;
  const parse::ToolParserInfo& info = rows[input.selector % rows.size()];
  parse::ToolParserOptions options;
  if (input.selector & 0x80) options.tools = FuzzTools();
  options.id_seed = 7;
  auto parser = info.create(options);
  const auto complete = Run(*parser, {input.text});
  const auto streamed = Run(*parser, Chunk(input.text, input.seed));
  CheckSame(streamed, complete);
  for (const auto& call : complete.tool_calls) {
    if (!IsJsonObject(call.arguments)) {
      std::fprintf(stderr, "%s: arguments are not a JSON object: %s\n",
                   std::string(info.name).c_str(), call.arguments.c_str());
      std::abort();
    }
  }
  return 0;
}

}  // namespace crux::fuzz
