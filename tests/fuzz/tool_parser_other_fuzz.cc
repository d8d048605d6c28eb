// Fuzzes the tool-call parsers of one family group (see tool_fuzz_common.h).
#include "tool_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return crux::fuzz::FuzzToolGroup(crux::parse::tools::AddOtherFamilies, data, size);
}
