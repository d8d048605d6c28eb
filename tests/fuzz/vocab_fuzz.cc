// Random bytes as a vocabulary file: Vocabulary::FromGguf (and, for input that starts with
// `{`, FromTokenizerJson) must return a vocabulary or an error, never crash, hang or allocate
// past the input's size times a constant; a vocabulary that loads must keep its invariants.
// Seeds (corpus/vocab_fuzz/, written by make_corpus.py): tiny GGUF files of both tokenizer
// models and a tokenizer.json.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "crux/constrain/vocab.h"

namespace {

void CheckInvariants(const crux::constrain::Vocabulary& vocabulary) {
  using crux::constrain::kMaxTokenBytes;
  for (uint32_t id = 0; id < vocabulary.size(); ++id)
    if (vocabulary.bytes(id).size() > kMaxTokenBytes) std::abort();
  const auto eog = vocabulary.end_of_generation();
  for (size_t i = 0; i < eog.size(); ++i) {
    if (eog[i] >= vocabulary.size()) std::abort();
    if (i > 0 && eog[i - 1] >= eog[i]) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto gguf = crux::constrain::Vocabulary::FromGguf(bytes);
  if (gguf.ok()) {
    CheckInvariants(*gguf);
    if (crux::constrain::Vocabulary::FromGguf(bytes)->identity() != gguf->identity()) std::abort();
  }
  if (!bytes.empty() && bytes.front() == '{') {
    auto json = crux::constrain::Vocabulary::FromTokenizerJson(bytes);
    if (json.ok()) CheckInvariants(*json);
  }
  return 0;
}
