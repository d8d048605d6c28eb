// The matcher under random input: the first line is a JSON Schema (generic JSON when it does
// not compile), the rest is fed to the matcher one byte at a time. At each step the mask over
// a small vocabulary (every single byte, a few multi-byte pieces, an end token) must equal the
// brute force (each token accepted, then rolled back), and a byte the mask refuses must be refused
// by AcceptBytes. Rollback of a step must restore the mask. Nothing may crash, hang or leak.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/vocab.h"

namespace {

using crux::constrain::CompiledGrammar;
using crux::constrain::Matcher;
using crux::constrain::TokenKind;
using crux::constrain::Vocabulary;

std::shared_ptr<const Vocabulary> FuzzVocabulary() {
  static const auto vocab = [] {
    std::vector<std::string> tokens;
    for (int c = 0; c < 256; ++c)
      tokens.push_back(std::string(1, static_cast<char>(c)));
    for (const char* piece : {"{\"", "\":", "\",\"", "\"}", "true", "null", "  ", "\\u00", "\\n",
                              "12", "e+", "\xc3\xa9", "\":\"", "\"]"}) {
      tokens.push_back(piece);
    }
    std::vector<TokenKind> kinds(tokens.size(), TokenKind::kNormal);
    tokens.push_back("<eos>");
    kinds.push_back(TokenKind::kControl);
    const auto eos = static_cast<uint32_t>(tokens.size() - 1);
    return std::make_shared<const Vocabulary>(Vocabulary::FromTokens(tokens, kinds, {eos}));
  }();
  return vocab;
}

bool Bit(const std::vector<uint32_t>& mask, uint32_t token) {
  return (mask[token / 32] >> (token % 32) & 1) != 0;
}

void CheckMask(Matcher& matcher, const Vocabulary& vocab, std::vector<uint32_t>& mask) {
  matcher.FillMask(mask);
  for (uint32_t token = 0; token < vocab.size(); ++token) {
    const bool accepted = matcher.AcceptToken(token);
    if (Bit(mask, token) != accepted) __builtin_trap();
    if (accepted && !matcher.Rollback(1)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view schema = input.substr(0, newline);
  const std::string_view bytes = newline == std::string_view::npos ? "" : input.substr(newline + 1);
  auto vocab = FuzzVocabulary();
  auto ir = crux::constrain::CompileSchema(schema);
  auto grammar = CompiledGrammar::Compile(ir.ok() ? *ir : crux::constrain::AnyJsonSchema(), vocab);
  if (!grammar.ok()) return 0;
  Matcher matcher(*grammar);
  std::vector<uint32_t> mask(vocab->mask_words());
  std::vector<uint32_t> before(vocab->mask_words());
  for (size_t i = 0; i < bytes.size() && i < 256; ++i) {
    if (i % 8 == 0) CheckMask(matcher, *vocab, mask);
    matcher.FillMask(before);
    const auto byte = static_cast<uint8_t>(bytes[i]);
    const bool allowed = Bit(before, byte);
    if (matcher.AcceptBytes(bytes.substr(i, 1)) != allowed) __builtin_trap();
    if (!allowed) continue;
    if ((i & 3) == 3) {
      // Undo and redo: the mask must come back exactly.
      if (!matcher.Rollback(1)) __builtin_trap();
      matcher.FillMask(mask);
      if (mask != before) __builtin_trap();
      if (!matcher.AcceptBytes(bytes.substr(i, 1))) __builtin_trap();
    }
  }
  (void)matcher.ForcedBytes();
  (void)matcher.CanEnd();
  return 0;
}
