// The tool-call parser registry (ToolParserManager): every family, its names and aliases,
// and auto-detection.
#pragma once

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/registry.h"

namespace crux::parse {

// The table, in documentation order.
const std::vector<ToolParserInfo>& ToolParsers();

// Creates the parser registered under `name` (or an alias). "auto" detects the family from
// the output's markers as they stream. Unknown name: kNotFound listing the available names.
Expected<std::unique_ptr<ToolParser>> CreateToolParser(std::string_view name,
                                                       const ToolParserOptions& options = {});

// The family whose markers appear in `text` (model output), or nullopt.
std::optional<std::string_view> DetectToolParserFromOutput(std::string_view text);

// The family a chat template's source is written for, or nullopt.
std::optional<std::string_view> DetectToolParserFromTemplate(std::string_view template_source);

}  // namespace crux::parse
