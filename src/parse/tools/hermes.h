// hermes / nous tool calls (see hermes.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "crux/parse/parser.h"

namespace crux::parse::tools {

std::unique_ptr<ToolParser> MakeHermesParser(const ToolParserOptions& options);

}  // namespace crux::parse::tools
