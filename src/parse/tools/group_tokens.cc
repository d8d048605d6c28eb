// Rows of the special-token and JSON-list families (see families.h).
#include "parse/tools/families.h"

namespace crux::parse::tools {

void AddTokenFamilies(std::vector<ToolParserInfo>& /*table*/) {}

}  // namespace crux::parse::tools
