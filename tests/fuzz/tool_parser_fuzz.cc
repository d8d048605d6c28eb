// Random bytes in random chunkings through every tool-call parser of the registry. The input
// names its parser: the first line is a name or alias from crux::parse::ToolParsers(), then
// an options byte (bit 7: a typed tool list), a chunking seed byte and the model output. A
// name the registry does not know picks a row by its hash, so mutated names still reach every
// family, while a seed keeps its parser when families are added or reordered.
// Checks: no crash, no sanitizer report, the streamed result equals the complete parse, and
// every call's arguments are a JSON object. Seeds: make_corpus.py (one per fixture case).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "crux/parse/registry.h"
#include "crux/parse/tool_spec.h"
#include "crux/parse/tools/registry.h"
#include "crux/text/json_scan.h"
#include "fuzz_support.h"

namespace crux::fuzz {
namespace {

const std::vector<parse::ToolSpec>& FuzzTools() {
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

bool IsJsonObject(const std::string& text) {
  text::JsonScanner scanner;
  size_t consumed = 0;
  if (scanner.Feed(text, consumed) != text::JsonScanner::Status::kDone) return false;
  for (size_t i = consumed; i < text.size(); ++i) {
    if (text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r') return false;
  }
  return scanner.first_byte() == '{';
}

int FuzzOne(const uint8_t* data, size_t size) {
  std::string_view name;
  FuzzInput input;
  if (!SplitName(data, size, name, input)) return 0;
  const parse::ToolParserInfo& info = PickParser(parse::ToolParsers(), name);
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

}  // namespace
}  // namespace crux::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return crux::fuzz::FuzzOne(data, size);
}
