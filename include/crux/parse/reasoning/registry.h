// The reasoning parser registry: every family, its names and aliases.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "crux/base/error.h"
#include "crux/parse/registry.h"

namespace crux::parse {

// The table, in documentation order.
const std::vector<ReasoningParserInfo>& ReasoningParsers();

// Creates the parser registered under `name` (or an alias). Unknown name: kNotFound with
// "unknown reasoning parser 'x'; available: …".
Expected<std::unique_ptr<ReasoningParser>> CreateReasoningParser(
    std::string_view name, const ReasoningOptions& options = {});

}  // namespace crux::parse
