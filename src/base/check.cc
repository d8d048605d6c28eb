#include "crux/base/check.h"

#include <cstdio>
#include <cstdlib>

namespace crux::detail {

void CheckFailed(const char* file, int line, const char* expr) {
  std::fprintf(stderr, "crux: check failed at %s:%d: %s\n", file, line, expr);
  std::abort();
}

}  // namespace crux::detail
