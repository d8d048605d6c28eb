#include "crux/parse/tools/registry.h"

namespace crux::parse {

const std::vector<ToolParserInfo>& ToolParsers() {
  static const std::vector<ToolParserInfo> table = {};
  return table;
}

Expected<std::unique_ptr<ToolParser>> CreateToolParser(std::string_view name,
                                                       const ToolParserOptions& options) {
  const ToolParserInfo* info = FindParserInfo(ToolParsers(), name);
  if (info == nullptr) return UnknownParserError("tool-call", name, ParserNames(ToolParsers()));
  return info->create(options);
}

std::optional<std::string_view> DetectToolParserFromOutput(std::string_view) {
  return std::nullopt;
}

std::optional<std::string_view> DetectToolParserFromTemplate(std::string_view) {
  return std::nullopt;
}

}  // namespace crux::parse
