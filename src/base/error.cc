#include "crux/base/error.h"

#include <array>

namespace crux {

std::string_view ErrorCodeName(ErrorCode code) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "invalid_argument", "not_found",      "parse_error", "io_error",
      "unsupported",      "limit_exceeded", "cancelled",   "unauthenticated",
      "unavailable",      "internal",       "timeout"};
  return kNames[static_cast<size_t>(code)];
}

Error Error::WithContext(std::string_view context) const {
  std::string message(context);
  message += ": ";
  message += message_;
  return Error(code_, std::move(message)).WithTag(tag_);
}

}  // namespace crux
