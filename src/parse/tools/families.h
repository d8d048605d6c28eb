// The tool-call families, in three groups, each defined in its own files. registry.cc
// concatenates the groups' rows into the one table (documentation order).
#pragma once

#include <vector>

#include "crux/parse/registry.h"

namespace crux::parse::tools {

// <tool_call>-style tags and XML parameters: hermes, qwen, qwen3_xml, nemotron, step3p5,
// glm47, poolside_v1, minimax, seed_oss, … (group_tags.cc)
void AddTagFamilies(std::vector<ToolParserInfo>& table);

// Special-token and JSON-list families: mistral, deepseek, kimi, granite, functionary, xlam,
// and the newer ones read off real chat templates. (group_tokens.cc)
void AddTokenFamilies(std::vector<ToolParserInfo>& table);

// llama, gemma4, harmony, pythonic lists (LFM2), and auto/generic. (group_other.cc)
void AddOtherFamilies(std::vector<ToolParserInfo>& table);

}  // namespace crux::parse::tools
