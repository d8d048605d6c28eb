// Random bytes in random chunkings through every reasoning parser of the registry. The input
// names its parser: the first line is a name or alias from crux::parse::ReasoningParsers()
// (a name the registry does not know picks a row by its hash, so mutated names still reach
// every family while a seed keeps its parser when families are added), then an options byte
// (bit 7: the prompt opened the reasoning block), a chunking seed byte and the model output.
// Checks: no crash, no sanitizer report, the streamed result equals the complete parse.
// Seeds: make_corpus.py (one per fixture case).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "crux/parse/reasoning/registry.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view name;
  crux::fuzz::FuzzInput input;
  if (!crux::fuzz::SplitName(data, size, name, input)) return 0;
  const auto& info = crux::fuzz::PickParser(crux::parse::ReasoningParsers(), name);
  crux::parse::ReasoningOptions options;
  if (input.selector & 0x80) options.start_in_reasoning = true;
  options.id_seed = 7;  // channel formats emit tool calls: ids must not differ between runs
  auto parser = std::move(*crux::parse::CreateReasoningParser(info.name, options));
  const auto complete = crux::fuzz::Run(*parser, {input.text});
  const auto streamed = crux::fuzz::Run(*parser, crux::fuzz::Chunk(input.text, input.seed));
  crux::fuzz::CheckSame(streamed, complete);
  return 0;
}
