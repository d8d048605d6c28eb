#include "crux/engine/engine.h"

#include <array>

namespace crux::engine {

std::string_view StopReasonName(StopReason reason) {
  static constexpr std::array<std::string_view, 5> kNames = {"end_of_generation", "max_tokens",
                                                             "stop_string", "cancelled", "error"};
  return kNames[static_cast<size_t>(reason)];
}

}  // namespace crux::engine
