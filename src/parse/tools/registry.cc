#include "crux/parse/tools/registry.h"

#include "parse/tools/families.h"

namespace crux::parse {

const std::vector<ToolParserInfo>& ToolParsers() {
  static const std::vector<ToolParserInfo> table = {
      tools::HermesToolFormat(),      tools::QwenToolFormat(),
      tools::Qwen3XmlToolFormat(),    tools::NemotronToolFormat(),
      tools::Step3p5ToolFormat(),     tools::Glm47ToolFormat(),
      tools::PoolsideV1ToolFormat(),  tools::MinimaxToolFormat(),
      tools::MinimaxM3ToolFormat(),   tools::SeedOssToolFormat(),
      tools::Minicpm5ToolFormat(),    tools::Hy3ToolFormat(),
      tools::Ling3ToolFormat(),       tools::MistralToolFormat(),
      tools::DeepseekToolFormat(),    tools::KimiToolFormat(),
      tools::FunctionaryToolFormat(), tools::XlamToolFormat(),
      tools::GraniteToolFormat(),     tools::DeepseekV32ToolFormat(),
      tools::KimiK3ToolFormat(),      tools::AprielToolFormat(),
      tools::CommandR7bToolFormat(),  tools::FirefunctionV2ToolFormat(),
      tools::Gigachat3ToolFormat(),   tools::NemotronV2ToolFormat(),
      tools::SolarOpenToolFormat(),   tools::ApertusToolFormat(),
      tools::LlamaToolFormat(),       tools::Gemma4ToolFormat(),
      tools::HarmonyToolFormat(),     tools::PythonicToolFormat(),
      tools::Lfm2ToolFormat(),        tools::MuseGlimmerToolFormat(),
      tools::AutoToolFormat(),
  };
  return table;
}

Expected<std::unique_ptr<ToolParser>> CreateToolParser(std::string_view name,
                                                       const ToolParserOptions& options) {
  const ToolParserInfo* info = FindParserInfo(ToolParsers(), name);
  if (info == nullptr) return UnknownParserError("tool-call", name, ParserNames(ToolParsers()));
  return info->create(options);
}

}  // namespace crux::parse
