#include "crux/text/ids.h"

#include <random>

namespace crux::text {
namespace {

uint64_t SeedFromOs() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device() ^ 0x9E3779B97F4A7C15ULL;
}

}  // namespace

IdGenerator::IdGenerator(uint64_t seed) : state_(seed == 0 ? SeedFromOs() : seed) {}

void IdGenerator::Reseed(uint64_t seed) {
  state_ = seed == 0 ? SeedFromOs() : seed;
}

uint64_t IdGenerator::NextRandom() {  // splitmix64
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::string IdGenerator::Next(std::string_view prefix, int length) {
  static constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string id(prefix);
  id.reserve(prefix.size() + static_cast<size_t>(length));
  for (int i = 0; i < length; ++i)
    id.push_back(kAlphabet[NextRandom() % kAlphabet.size()]);
  return id;
}

std::string IdGenerator::NextHex(int length) {
  static constexpr std::string_view kHex = "0123456789abcdef";
  std::string id;
  id.reserve(static_cast<size_t>(length));
  for (int i = 0; i < length; ++i)
    id.push_back(kHex[NextRandom() & 15]);
  return id;
}

}  // namespace crux::text
