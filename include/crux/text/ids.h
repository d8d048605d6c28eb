// Identifiers for tool calls and responses: a prefix plus random alphanumerics.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace crux::text {

// Deterministic for a given seed (tests fix it); seed 0 draws one from the OS.
// Not thread-safe: one generator per stream.
class IdGenerator {
 public:
  explicit IdGenerator(uint64_t seed = 0);

  // `prefix` followed by `length` characters from [A-Za-z0-9].
  std::string Next(std::string_view prefix, int length);

  // "call_" + 24 alphanumerics: the OpenAI-style tool-call id.
  std::string NextCallId() { return Next("call_", 24); }

  // `length` lowercase hex digits.
  std::string NextHex(int length);

  void Reseed(uint64_t seed);

 private:
  uint64_t NextRandom();
  uint64_t state_;
};

}  // namespace crux::text
