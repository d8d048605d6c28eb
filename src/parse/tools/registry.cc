// The tool-call formats, in documentation order. Each format is declared once, in its own file
// (src/parse/tools/<family>.cc, beside the parser it creates); this list is the only other place
// that names it. Nothing self-registers.
#include "crux/parse/tools/registry.h"

namespace crux::parse {
namespace tools {

const ToolParserInfo& HermesToolFormat();
const ToolParserInfo& QwenToolFormat();
const ToolParserInfo& Qwen3XmlToolFormat();
const ToolParserInfo& NemotronToolFormat();
const ToolParserInfo& Step3p5ToolFormat();
const ToolParserInfo& Step3ToolFormat();
const ToolParserInfo& Glm47ToolFormat();
const ToolParserInfo& HyperclovaxToolFormat();
const ToolParserInfo& IquestCoderV2ToolFormat();
const ToolParserInfo& K2HorizonToolFormat();
const ToolParserInfo& PoolsideV1ToolFormat();
const ToolParserInfo& MinimaxToolFormat();
const ToolParserInfo& DotsToolFormat();
const ToolParserInfo& MinimaxM3ToolFormat();
const ToolParserInfo& SeedOssToolFormat();
const ToolParserInfo& Minicpm5ToolFormat();
const ToolParserInfo& Hy3ToolFormat();
const ToolParserInfo& HyV4ToolFormat();
const ToolParserInfo& Ling3ToolFormat();
const ToolParserInfo& Internlm2ToolFormat();
const ToolParserInfo& LongcatToolFormat();
const ToolParserInfo& MistralToolFormat();
const ToolParserInfo& DeepseekToolFormat();
const ToolParserInfo& KimiToolFormat();
const ToolParserInfo& FunctionaryToolFormat();
const ToolParserInfo& XlamToolFormat();
const ToolParserInfo& GraniteToolFormat();
const ToolParserInfo& Granite20bFcToolFormat();
const ToolParserInfo& TngToolFormat();
const ToolParserInfo& DeepseekV32ToolFormat();
const ToolParserInfo& Gigachat35ToolFormat();
const ToolParserInfo& KimiK3ToolFormat();
const ToolParserInfo& AprielToolFormat();
const ToolParserInfo& OpenpanguToolFormat();
const ToolParserInfo& CommandR7bToolFormat();
const ToolParserInfo& FirefunctionV2ToolFormat();
const ToolParserInfo& Gigachat3ToolFormat();
const ToolParserInfo& NemotronV2ToolFormat();
const ToolParserInfo& SolarOpenToolFormat();
const ToolParserInfo& SolarOpen2ToolFormat();
const ToolParserInfo& Plamo3ToolFormat();
const ToolParserInfo& InklingToolFormat();
const ToolParserInfo& ApertusToolFormat();
const ToolParserInfo& LlamaToolFormat();
const ToolParserInfo& Gemma4ToolFormat();
const ToolParserInfo& FunctionGemmaToolFormat();
const ToolParserInfo& HarmonyToolFormat();
const ToolParserInfo& PythonicToolFormat();
const ToolParserInfo& Lfm2ToolFormat();
const ToolParserInfo& Olmo3ToolFormat();
const ToolParserInfo& MuseGlimmerToolFormat();
const ToolParserInfo& RwkvToolFormat();
const ToolParserInfo& CwmToolFormat();
const ToolParserInfo& AutoToolFormat();

}  // namespace tools

const std::vector<ToolParserInfo>& ToolParsers() {
  static const std::vector<ToolParserInfo> table = {
      tools::HermesToolFormat(),        tools::QwenToolFormat(),
      tools::Qwen3XmlToolFormat(),      tools::NemotronToolFormat(),
      tools::Step3p5ToolFormat(),       tools::Step3ToolFormat(),
      tools::Glm47ToolFormat(),         tools::HyperclovaxToolFormat(),
      tools::IquestCoderV2ToolFormat(), tools::K2HorizonToolFormat(),
      tools::PoolsideV1ToolFormat(),    tools::MinimaxToolFormat(),
      tools::DotsToolFormat(),          tools::MinimaxM3ToolFormat(),
      tools::SeedOssToolFormat(),       tools::Minicpm5ToolFormat(),
      tools::Hy3ToolFormat(),           tools::HyV4ToolFormat(),
      tools::Ling3ToolFormat(),         tools::Internlm2ToolFormat(),
      tools::LongcatToolFormat(),       tools::MistralToolFormat(),
      tools::DeepseekToolFormat(),      tools::KimiToolFormat(),
      tools::FunctionaryToolFormat(),   tools::XlamToolFormat(),
      tools::GraniteToolFormat(),       tools::DeepseekV32ToolFormat(),
      tools::Gigachat35ToolFormat(),    tools::KimiK3ToolFormat(),
      tools::AprielToolFormat(),        tools::Granite20bFcToolFormat(),
      tools::TngToolFormat(),           tools::OpenpanguToolFormat(),
      tools::CommandR7bToolFormat(),    tools::FirefunctionV2ToolFormat(),
      tools::Gigachat3ToolFormat(),     tools::NemotronV2ToolFormat(),
      tools::SolarOpenToolFormat(),     tools::SolarOpen2ToolFormat(),
      tools::ApertusToolFormat(),       tools::LlamaToolFormat(),
      tools::Gemma4ToolFormat(),        tools::HarmonyToolFormat(),
      tools::PythonicToolFormat(),      tools::Lfm2ToolFormat(),
      tools::MuseGlimmerToolFormat(),   tools::Plamo3ToolFormat(),
      tools::InklingToolFormat(),       tools::FunctionGemmaToolFormat(),
      tools::Olmo3ToolFormat(),         tools::RwkvToolFormat(),
      tools::CwmToolFormat(),           tools::AutoToolFormat(),
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
