// Random bytes in random chunkings through every reasoning parser: no crash, no sanitizer
// report, and the streamed result equals the complete parse.
#include <cstddef>
#include <cstdint>

#include "crux/parse/reasoning/registry.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  crux::fuzz::FuzzInput input;
  if (!crux::fuzz::SplitInput(data, size, input)) return 0;
  const auto& table = crux::parse::ReasoningParsers();
  const auto& info = table[input.selector % table.size()];
  crux::parse::ReasoningOptions options;
  if (input.selector & 0x80) options.start_in_reasoning = true;
  options.id_seed = 7;  // channel formats emit tool calls: ids must not differ between runs
  auto parser = info.create(options);
  const auto complete = crux::fuzz::Run(*parser, {input.text});
  const auto streamed = crux::fuzz::Run(*parser, crux::fuzz::Chunk(input.text, input.seed));
  crux::fuzz::CheckSame(streamed, complete);
  return 0;
}
