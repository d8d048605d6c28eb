#include "crux/protocol/request.h"

#include <array>

namespace crux::protocol {

std::string_view ApiName(Api api) {
  static constexpr std::array<std::string_view, 4> kNames = {"chat.completions", "messages",
                                                             "responses", "completions"};
  return kNames[static_cast<size_t>(api)];
}

std::string_view RoleName(Role role) {
  static constexpr std::array<std::string_view, 4> kNames = {"system", "user", "assistant", "tool"};
  return kNames[static_cast<size_t>(role)];
}

}  // namespace crux::protocol
