// The tool-call formats: one declaration per format, each defined in its own file
// (src/parse/tools/<family>.cc, beside the parser it creates). ToolParsers() lists them in
// this order, which is the documentation's.
#pragma once

#include "crux/parse/registry.h"

namespace crux::parse::tools {

const ToolParserInfo& HermesToolFormat();          // hermes
const ToolParserInfo& QwenToolFormat();            // qwen
const ToolParserInfo& Qwen3XmlToolFormat();        // qwen3_xml
const ToolParserInfo& NemotronToolFormat();        // nemotron
const ToolParserInfo& Step3p5ToolFormat();         // step3p5
const ToolParserInfo& Glm47ToolFormat();           // glm47
const ToolParserInfo& PoolsideV1ToolFormat();      // poolside_v1
const ToolParserInfo& MinimaxToolFormat();         // minimax
const ToolParserInfo& MinimaxM3ToolFormat();       // minimax_m3
const ToolParserInfo& SeedOssToolFormat();         // seed_oss
const ToolParserInfo& Minicpm5ToolFormat();        // minicpm5
const ToolParserInfo& Hy3ToolFormat();             // hy3
const ToolParserInfo& Ling3ToolFormat();           // ling3
const ToolParserInfo& MistralToolFormat();         // mistral
const ToolParserInfo& DeepseekToolFormat();        // deepseek
const ToolParserInfo& KimiToolFormat();            // kimi
const ToolParserInfo& FunctionaryToolFormat();     // functionary
const ToolParserInfo& XlamToolFormat();            // xlam
const ToolParserInfo& GraniteToolFormat();         // granite
const ToolParserInfo& DeepseekV32ToolFormat();     // deepseek_v32
const ToolParserInfo& KimiK3ToolFormat();          // kimi_k3
const ToolParserInfo& AprielToolFormat();          // apriel
const ToolParserInfo& CommandR7bToolFormat();      // command_r7b
const ToolParserInfo& FirefunctionV2ToolFormat();  // firefunction_v2
const ToolParserInfo& Gigachat3ToolFormat();       // gigachat3
const ToolParserInfo& NemotronV2ToolFormat();      // nemotron_v2
const ToolParserInfo& SolarOpenToolFormat();       // solar_open
const ToolParserInfo& ApertusToolFormat();         // apertus
const ToolParserInfo& LlamaToolFormat();           // llama
const ToolParserInfo& Gemma4ToolFormat();          // gemma4
const ToolParserInfo& HarmonyToolFormat();         // harmony
const ToolParserInfo& PythonicToolFormat();        // pythonic
const ToolParserInfo& Lfm2ToolFormat();            // lfm2
const ToolParserInfo& MuseGlimmerToolFormat();     // muse_glimmer
const ToolParserInfo& AutoToolFormat();            // auto

}  // namespace crux::parse::tools
