#include "crux/parse/tools/registry.h"

#include "parse/tools/families.h"

namespace crux::parse {

const std::vector<ToolParserInfo>& ToolParsers() {
  static const std::vector<ToolParserInfo> table = [] {
    std::vector<ToolParserInfo> t;
    tools::AddTagFamilies(t);
    tools::AddTokenFamilies(t);
    tools::AddOtherFamilies(t);
    return t;
  }();
  return table;
}

Expected<std::unique_ptr<ToolParser>> CreateToolParser(std::string_view name,
                                                       const ToolParserOptions& options) {
  const ToolParserInfo* info = FindParserInfo(ToolParsers(), name);
  if (info == nullptr) return UnknownParserError("tool-call", name, ParserNames(ToolParsers()));
  return info->create(options);
}

}  // namespace crux::parse
