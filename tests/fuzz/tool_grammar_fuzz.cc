// Constrained tool calls under random input: the first byte picks a tool-call family, the first
// line after it is a tool's parameter schema, the rest is fed one byte at a time (bytes the
// mask refuses are skipped). At each step the mask over a small vocabulary (every single byte,
// marker pieces, an end token) must equal the brute force (each token accepted by a copy of the
// processor), and a rollback must restore the mask. Nothing may crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/constrain/vocab.h"
#include "crux/logits/tool_calls.h"
#include "crux/parse/registry.h"
#include "crux/parse/tools/registry.h"

namespace {

using crux::constrain::TokenKind;
using crux::constrain::Vocabulary;

std::shared_ptr<const Vocabulary> FuzzVocabulary() {
  static const auto vocab = [] {
    std::vector<std::string> tokens;
    for (int c = 1; c < 256; ++c)
      tokens.push_back(std::string(1, static_cast<char>(c)));
    std::vector<TokenKind> kinds(tokens.size(), TokenKind::kNormal);
    for (const char* piece :
         {"<tool_call>", "}\n",    "\n</",     "\": ",  "{\"",      "parameter",     "\">",
          "}}",          "name",   "\n<",      "></",   "\xc3\xa9", " \n",           "\"}",
          "\\/",         "\\ud8",  "\"\\",     "True",  "None",     "=\"",           "\")",
          "[f(",         "<|\"|>", "<escape>", "call:", "|>,",      "]<]minimax[>[", "[>[</"}) {
      tokens.push_back(piece);
      kinds.push_back(TokenKind::kNormal);
    }
    tokens.push_back("<tool_call>");
    kinds.push_back(TokenKind::kUserDefined);
    tokens.push_back("<|\"|>");  // Gemma 4's quote, one special token as in its vocabulary
    kinds.push_back(TokenKind::kUserDefined);
    tokens.push_back("]<]minimax[>[");  // MiniMax-M3's namespace, as one special token
    kinds.push_back(TokenKind::kUserDefined);
    tokens.push_back("<eos>");
    kinds.push_back(TokenKind::kControl);
    const auto eos = static_cast<uint32_t>(tokens.size() - 1);
    return std::make_shared<const Vocabulary>(Vocabulary::FromTokens(tokens, kinds, {eos}));
  }();
  return vocab;
}

const std::vector<const crux::parse::ToolParserInfo*>& Families() {
  static const auto families = [] {
    std::vector<const crux::parse::ToolParserInfo*> out;
    // JSON and key-value families first, then Python keywords, then custom syntaxes with a
    // declared key-value form. The seeds in corpus/ are named for the family their first byte
    // picks in this order (53 families: byte % 53).
    using Args = crux::parse::CallGrammar::Args;
    for (const Args kind : {Args::kJsonObject, Args::kPythonKeywords, Args::kCustom}) {
      for (const crux::parse::ToolParserInfo& info : crux::parse::ToolParsers()) {
        if (info.grammar == nullptr) continue;
        const Args args = info.grammar->args;
        const bool custom = args == Args::kCustom;
        if (custom && info.grammar->argument.empty()) continue;
        const Args group = args == Args::kKeyValue ? Args::kJsonObject : args;
        if (group == kind) out.push_back(&info);
      }
    }
    return out;
  }();
  return families;
}

bool Bit(const std::vector<uint32_t>& mask, uint32_t token) {
  return (mask[token / 32] >> (token % 32) & 1) != 0;
}

void CheckMask(crux::logits::ToolCallProcessor& processor, const Vocabulary& vocab,
               std::vector<uint32_t>& mask) {
  processor.FillMask(mask);
  for (uint32_t token = 0; token < vocab.size(); ++token) {
    crux::logits::ToolCallProcessor copy(processor);
    if (Bit(mask, token) != copy.Accept(token)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const auto& families = Families();
  const crux::parse::ToolParserInfo& family = *families[data[0] % families.size()];
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  const size_t newline = input.find('\n');
  const std::string_view schema = input.substr(0, newline);
  const std::string_view bytes = newline == std::string_view::npos ? "" : input.substr(newline + 1);
  auto vocab = FuzzVocabulary();
  crux::logits::ToolCallOptions options;
  options.mode = data[0] & 0x80 ? crux::logits::ToolChoiceMode::kAuto
                                : crux::logits::ToolChoiceMode::kRequired;
  for (std::string_view marker : family.detect_markers)
    options.start_markers.emplace_back(marker);
  options.parallel = (data[0] & 0x40) != 0;
  std::vector<crux::parse::ToolSpec> tools;
  auto spec = crux::parse::MakeToolSpec("f", "", std::string(schema));
  if (!spec.ok()) return 0;
  tools.push_back(*spec);
  tools.push_back(*crux::parse::MakeToolSpec("f_2", "", R"({"type":"object"})"));
  auto grammar = crux::logits::ToolCallGrammar::Compile(*family.grammar, tools, vocab, options);
  if (!grammar.ok()) return 0;
  crux::logits::ToolCallProcessor processor(*grammar);
  std::vector<uint32_t> mask(vocab->mask_words());
  std::vector<uint32_t> before(vocab->mask_words());
  for (size_t i = 0; i < bytes.size() && i < 192; ++i) {
    if (i % 16 == 0) CheckMask(processor, *vocab, mask);
    processor.FillMask(before);
    const auto byte = static_cast<uint8_t>(bytes[i]);
    if (byte == 0) continue;
    const uint32_t token = byte - 1u;  // the single-byte token
    const bool allowed = Bit(before, token);
    if (processor.Accept(token) != allowed) __builtin_trap();
    if (!allowed) continue;
    if ((i & 3) == 3) {
      if (!processor.Rollback(1)) __builtin_trap();
      processor.FillMask(mask);
      if (mask != before) __builtin_trap();
      if (!processor.Accept(token)) __builtin_trap();
    }
  }
  return 0;
}
