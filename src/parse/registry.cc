#include "crux/parse/registry.h"

#include <algorithm>

namespace crux::parse {

std::vector<std::string> SortedUnique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Error UnknownParserError(std::string_view kind, std::string_view name,
                         const std::vector<std::string>& available) {
  std::string message = "unknown ";
  message += kind;
  message += " parser '";
  message += name;
  message += "'; available: ";
  for (size_t i = 0; i < available.size(); ++i) {
    if (i > 0) message += ", ";
    message += available[i];
  }
  return Error(ErrorCode::kNotFound, std::move(message));
}

}  // namespace crux::parse
