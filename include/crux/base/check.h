// Invariant checks. A failed check is a programmer error: it prints the location and aborts.
#pragma once

namespace crux::detail {
[[noreturn]] void CheckFailed(const char* file, int line, const char* expr);
}  // namespace crux::detail

#define CRUX_CHECK(cond)                                                 \
  do {                                                                   \
    if (!(cond)) ::crux::detail::CheckFailed(__FILE__, __LINE__, #cond); \
  } while (false)

#ifdef NDEBUG
#define CRUX_DCHECK(cond) \
  do {                    \
  } while (false && (cond))
#else
#define CRUX_DCHECK(cond) CRUX_CHECK(cond)
#endif
