#include "crux/engine/engine.h"

#include <array>

namespace crux::engine {

std::string_view StopReasonName(StopReason reason) {
  static constexpr std::array<std::string_view, 5> kNames = {"end_of_generation", "max_tokens",
                                                             "stop_string", "cancelled", "error"};
  return kNames[static_cast<size_t>(reason)];
}

std::shared_ptr<const constrain::Vocabulary> Engine::Vocabulary(std::string_view) const {
  return nullptr;
}

Expected<std::vector<TokenPiece>> Engine::Tokenize(std::string_view, std::string_view, bool,
                                                   bool) const {
  return Error(ErrorCode::kUnsupported, "this engine has no tokenizer");
}

void Engine::AppendMetrics(std::string&) const {}

Expected<std::string> Engine::Detokenize(std::string_view, const std::vector<int32_t>&) const {
  return Error(ErrorCode::kUnsupported, "this engine has no tokenizer");
}

}  // namespace crux::engine
