// Rows of the tag families (see families.h).
#include "parse/tools/families.h"
#include "parse/tools/hermes.h"

namespace crux::parse::tools {

void AddTagFamilies(std::vector<ToolParserInfo>& table) {
  table.push_back({"hermes", {"nous"}, "Hermes 2 Pro / Hermes 3, Qwen2.5, models trained on the Hermes format",
                   "<tool_call>{\"name\": …, \"arguments\": {…}}</tool_call>", MakeHermesParser,
                   RenderHermes});
}

}  // namespace crux::parse::tools
