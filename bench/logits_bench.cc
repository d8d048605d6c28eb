// Per-step cost of the logits processor chain on Qwen3's vocabulary (151,936 tokens), by phase:
// plain text (bias + penalties + a retired thinking processor), reasoning under a budget, and
// a JSON-schema answer after reasoning; each step is the mask (FillMask), its application to a
// logits vector, and Accept; a constrained tool call (hermes JSON, qwen3_xml key-value, pythonic
// Python keyword, gemma4 literal and minimax_m3 namespaced arguments, tool_choice required). Also
// the cost of a rollback, and the compile time of a tool-call grammar for 10, 100 and 1,000
// BFCL-like tools. Prints p50/p99/max.
//
//   crux_logits_bench            (llama.cpp's models/ tree from the fetch script's cache)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "crux/logits/json_schema.h"
#include "crux/logits/processor.h"
#include "crux/logits/thinking.h"
#include "crux/logits/tool_calls.h"
#include "crux/parse/registry.h"
#include "crux/parse/tools/registry.h"
#include "unit/logits/qwen3_vocab.h"

namespace {

using crux::logits::ProcessorChain;
using Clock = std::chrono::steady_clock;

constexpr const char* kSchema = R"({"type": "object", "properties": {
  "city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["celsius", "fahrenheit"]},
  "days": {"type": "integer", "minimum": 1, "maximum": 14},
  "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 4}},
  "required": ["city", "unit", "days"], "additionalProperties": false})";

struct Figures {
  std::vector<double> us;
  void Print(const char* name) {
    if (us.empty()) return;
    std::sort(us.begin(), us.end());
    std::printf("%-28s steps %6zu  p50 %8.2f us  p99 %8.2f us  max %8.2f us\n", name, us.size(),
                us[us.size() / 2], us[us.size() * 99 / 100], us.back());
  }
};

// A random allowed token (uniform), the end of generation taken when allowed.
uint32_t Pick(const std::vector<uint32_t>& mask, bool restricted, size_t vocabulary, bool may_end,
              std::mt19937_64& random) {
  if (!restricted) return static_cast<uint32_t>(random() % 150000);
  if (!may_end) {
    uint32_t token;
    do {
      token = static_cast<uint32_t>(random() % 150000);
    } while (!crux::logits::TestBit(mask, token));
    return token;
  }
  if (crux::logits::TestBit(mask, crux::logits::test::kImEnd)) return crux::logits::test::kImEnd;
  size_t count = 0;
  for (const uint32_t word : mask)
    count += static_cast<size_t>(__builtin_popcount(word));
  size_t k = count == 0 ? 0 : random() % count;
  for (uint32_t id = 0; id < vocabulary; ++id) {
    if (crux::logits::TestBit(mask, id) && k-- == 0) return id;
  }
  return crux::logits::test::kImEnd;
}

std::unique_ptr<crux::logits::ThinkingProcessor> Thinking(
    const std::shared_ptr<const crux::constrain::Vocabulary>& vocabulary, int budget,
    std::unique_ptr<crux::logits::LogitsProcessor> inner) {
  return std::move(*crux::logits::ThinkingProcessor::Create({.start = {crux::logits::test::kThink},
                                                             .end = {crux::logits::test::kThinkEnd},
                                                             .budget = budget,
                                                             .vocabulary = vocabulary},
                                                            std::move(inner)));
}

struct Phase {
  Figures mask;    // FillMask + Accept: an engine that samples under a bitmask
  Figures logits;  // ApplyLogits (every processor on a logits vector) + Accept
  void Print(const std::string& name) {
    mask.Print((name + ", mask").c_str());
    logits.Print((name + ", logits").c_str());
  }
};

double Us(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

// Runs `steps` steps of `chain`, timing the mask path, then the logits path on a clone.
void Run(ProcessorChain& chain, size_t vocabulary, int steps, bool may_end, Phase& phase,
         std::mt19937_64& random) {
  std::vector<uint32_t> mask((vocabulary + 31) / 32);
  std::vector<float> logits(vocabulary, 0.5f);
  for (int step = 0; step < steps; ++step) {
    ProcessorChain twin = chain;
    const auto begin = Clock::now();
    const bool restricted = chain.FillMask(mask);
    const auto masked = Clock::now();
    const uint32_t token = Pick(mask, restricted, vocabulary, may_end, random);
    const auto picked = Clock::now();
    if (!chain.Accept(token) || token == crux::logits::test::kImEnd) return;
    const auto accepted = Clock::now();
    twin.ApplyLogits(logits);
    twin.Accept(token);
    const auto applied = Clock::now();
    phase.mask.us.push_back(Us(masked - begin) + Us(accepted - picked));
    phase.logits.us.push_back(Us(applied - accepted));
  }
}

// A BFCL-like tool: a few typed parameters (strings, enums, integers with bounds, booleans,
// an array, sometimes a nested object), a description, some required.
crux::parse::ToolSpec BfclTool(size_t index) {
  std::string schema = R"({"type": "object", "properties": {)";
  const size_t params = 3 + index % 4;
  std::string required;
  for (size_t p = 0; p < params; ++p) {
    const std::string name = "param_" + std::to_string(p);
    if (p > 0) schema += ", ";
    schema += "\"" + name + "\": ";
    switch ((index + p) % 5) {
      case 0:
        schema += R"({"type": "string", "description": "A value to look up."})";
        break;
      case 1:
        schema += R"({"type": "string", "enum": ["asc", "desc", "none"]})";
        break;
      case 2:
        schema += R"({"type": "integer", "minimum": 0, "maximum": 1000})";
        break;
      case 3:
        schema += R"({"type": "array", "items": {"type": "string"}, "maxItems": 8})";
        break;
      default:
        schema += R"({"type": "object", "properties": {"lat": {"type": "number"},
                     "lon": {"type": "number"}}, "required": ["lat", "lon"]})";
        break;
    }
    if (p % 2 == 0) required += std::string(required.empty() ? "" : ", ") + "\"" + name + "\"";
  }
  schema += "}, \"required\": [" + required + "]}";
  return *crux::parse::MakeToolSpec("tool_" + std::to_string(index) + "_search",
                                    "Finds things of kind " + std::to_string(index) + ".", schema);
}

const crux::parse::CallGrammar& FamilyGrammar(std::string_view name) {
  return *crux::parse::FindParserInfo(crux::parse::ToolParsers(), name)->grammar;
}

// Compile time of the tool-call grammar for `count` tools, and the time from the call's first
// byte to the mask of its first argument byte (the called tool's argument grammar is compiled
// when the model has named it; the call is fed byte by byte, about 60 steps).
void CompileFigures(const std::shared_ptr<const crux::constrain::Vocabulary>& vocabulary,
                    size_t count) {
  std::vector<crux::parse::ToolSpec> tools;
  for (size_t i = 0; i < count; ++i)
    tools.push_back(BfclTool(i));
  Figures compile;
  Figures first_arguments;
  std::vector<uint32_t> mask(vocabulary->mask_words());
  const std::string call =
      "<tool_call>\n{\"name\": \"tool_" + std::to_string(count / 2) + "_search\", \"arguments\": ";
  for (int repeat = 0; repeat < 21; ++repeat) {
    const auto begin = Clock::now();
    auto grammar =
        crux::logits::ToolCallGrammar::Compile(FamilyGrammar("hermes"), tools, vocabulary);
    compile.us.push_back(Us(Clock::now() - begin));
    if (!grammar) {
      std::fprintf(stderr, "%s\n", grammar.error().message().c_str());
      return;
    }
    crux::logits::ToolCallProcessor processor(*grammar);
    const auto step = Clock::now();
    for (const char ch : call) {
      for (uint32_t id = 0; id < crux::logits::test::kEndOfText; ++id) {
        if (vocabulary->bytes(id) == std::string_view(&ch, 1)) {
          processor.Accept(id);
          break;
        }
      }
    }
    if (!processor.in_block() || processor.text() != call) {
      std::fprintf(stderr, "the call did not start: %s\n", processor.text().c_str());
      return;
    }
    processor.FillMask(mask);
    first_arguments.us.push_back(Us(Clock::now() - step));
  }
  compile.Print(("compile, " + std::to_string(count) + " tools").c_str());
  first_arguments.Print(("call start to arguments, " + std::to_string(count)).c_str());
}

}  // namespace

int main() {
  auto vocabulary = crux::logits::test::Qwen3Vocabulary();
  if (vocabulary == nullptr) {
    std::fprintf(stderr, "%s\n", crux::constrain::test_data::kNoLlamaCpp);
    return 1;
  }
  const size_t size = vocabulary->size();
  std::mt19937_64 random(1);
  auto base = [&] {
    ProcessorChain chain;
    chain.Add(std::make_unique<crux::logits::LogitBiasProcessor>(
        std::unordered_map<uint32_t, float>{{198, -1.0f}, {220, 2.0f}}));
    chain.Add(std::make_unique<crux::logits::PenaltiesProcessor>(
        crux::logits::PenaltyOptions{.repetition = 1.1f, .presence = 0.2f}));
    return chain;
  };
  Phase text, thinking, schema;
  Figures rollback;
  for (int run = 0; run < 20; ++run) {
    ProcessorChain chain = base();
    chain.Add(Thinking(vocabulary, 0, nullptr));
    chain.Accept(crux::logits::test::kThinkEnd);
    Run(chain, size, 200, false, text, random);
  }
  for (int run = 0; run < 20; ++run) {
    ProcessorChain chain = base();
    chain.Add(Thinking(vocabulary, 1000, nullptr));
    Run(chain, size, 200, false, thinking, random);
  }
  crux::constrain::GrammarCache cache;
  for (int run = 0; run < 200; ++run) {
    auto inner = crux::logits::JsonSchemaProcessor::Create(kSchema, vocabulary, {}, &cache);
    if (!inner) {
      std::fprintf(stderr, "%s\n", inner.error().message().c_str());
      return 1;
    }
    ProcessorChain chain = base();
    chain.Add(Thinking(vocabulary, 4, std::move(*inner)));
    for (int i = 0; i < 4; ++i)
      chain.Accept(static_cast<uint32_t>(1000 + i));
    chain.Accept(crux::logits::test::kThinkEnd);
    Run(chain, size, 200, true, schema, random);
    // Rollback of the last 1-4 tokens, and forward again.
    for (size_t back = 1; back <= 4 && chain.at(2).accepted() > 5 + back; ++back) {
      const auto begin = Clock::now();
      chain.Rollback(back);
      rollback.us.push_back(
          std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
    }
  }
  std::vector<crux::parse::ToolSpec> tools;
  for (size_t i = 0; i < 8; ++i)
    tools.push_back(BfclTool(i));
  Phase hermes, qwen3_xml, pythonic, gemma4, minimax_m3;
  for (const auto& [family, phase] : {std::pair<const char*, Phase*>{"hermes", &hermes},
                                      std::pair<const char*, Phase*>{"qwen3_xml", &qwen3_xml},
                                      std::pair<const char*, Phase*>{"pythonic", &pythonic},
                                      std::pair<const char*, Phase*>{"gemma4", &gemma4},
                                      std::pair<const char*, Phase*>{"minimax_m3", &minimax_m3}}) {
    auto grammar = crux::logits::ToolCallGrammar::Compile(FamilyGrammar(family), tools, vocabulary);
    if (!grammar) {
      std::fprintf(stderr, "%s\n", grammar.error().message().c_str());
      return 1;
    }
    for (int run = 0; run < 100; ++run) {
      ProcessorChain chain = base();
      chain.Add(std::make_unique<crux::logits::ToolCallProcessor>(*grammar));
      Run(chain, size, 300, true, *phase, random);
    }
  }
  std::printf(
      "Qwen3 vocabulary: %zu tokens; per step: mask = FillMask + Accept, logits = "
      "ApplyLogits + Accept\n",
      size);
  text.Print("text (bias, penalties)");
  thinking.Print("thinking (budget 1000)");
  schema.Print("schema after reasoning");
  hermes.Print("tool call (hermes)");
  qwen3_xml.Print("tool call (qwen3_xml)");
  pythonic.Print("tool call (pythonic)");
  gemma4.Print("tool call (gemma4)");
  minimax_m3.Print("tool call (minimax_m3)");
  rollback.Print("rollback 1-4 tokens");
  for (const size_t count : {10, 100, 1000})
    CompileFigures(vocabulary, count);
  return 0;
}
