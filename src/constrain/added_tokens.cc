#include "crux/constrain/added_tokens.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace crux::constrain {
namespace {

constexpr TokenKind kC = TokenKind::kControl;
constexpr TokenKind kU = TokenKind::kUserDefined;

constexpr std::array<AddedToken, 26> kQwen3 = {{
    {151643, "<|endoftext|>", kC},
    {151644, "<|im_start|>", kC},
    {151645, "<|im_end|>", kC},
    {151646, "<|object_ref_start|>", kC},
    {151647, "<|object_ref_end|>", kC},
    {151648, "<|box_start|>", kC},
    {151649, "<|box_end|>", kC},
    {151650, "<|quad_start|>", kC},
    {151651, "<|quad_end|>", kC},
    {151652, "<|vision_start|>", kC},
    {151653, "<|vision_end|>", kC},
    {151654, "<|vision_pad|>", kC},
    {151655, "<|image_pad|>", kC},
    {151656, "<|video_pad|>", kC},
    {151657, "<tool_call>", kU},
    {151658, "</tool_call>", kU},
    {151659, "<|fim_prefix|>", kC},
    {151660, "<|fim_middle|>", kC},
    {151661, "<|fim_suffix|>", kC},
    {151662, "<|fim_pad|>", kC},
    {151663, "<|repo_name|>", kC},
    {151664, "<|file_sep|>", kC},
    {151665, "<tool_response>", kU},
    {151666, "</tool_response>", kU},
    {151667, "<think>", kU},
    {151668, "</think>", kU},
}};

// Added tokens that end a turn: those of Vocabulary's end-of-generation names that occur in
// these tables.
bool EndsTurn(std::string_view text) {
  return text == "<|im_end|>" || text == "<|endoftext|>";
}

}  // namespace

std::span<const AddedToken> Qwen3AddedTokens() {
  return kQwen3;
}

Vocabulary WithAddedTokens(const Vocabulary& base, std::span<const AddedToken> added) {
  std::vector<std::string> bytes;
  std::vector<TokenKind> kinds;
  bytes.reserve(base.size());
  kinds.reserve(base.size());
  for (uint32_t id = 0; id < base.size(); ++id) {
    bytes.emplace_back(base.bytes(id));
    kinds.push_back(base.kind(id));
  }
  std::vector<uint32_t> eog;
  for (const AddedToken& token : added) {
    if (token.id >= bytes.size()) continue;
    bytes[token.id] = std::string(token.text);
    kinds[token.id] = token.kind;
    if (EndsTurn(token.text)) eog.push_back(token.id);
  }
  // The base's end-of-generation ids stay so unless an added token took their place.
  for (uint32_t id : base.end_of_generation()) {
    const bool replaced = std::any_of(added.begin(), added.end(),
                                      [id](const AddedToken& token) { return token.id == id; });
    if (!replaced) eog.push_back(id);
  }
  std::sort(eog.begin(), eog.end());
  eog.erase(std::unique(eog.begin(), eog.end()), eog.end());
  return Vocabulary::FromTokens(std::move(bytes), std::move(kinds), std::move(eog));
}

}  // namespace crux::constrain
