// Where llama.cpp's tree is (its models/ folder holds the real vocabularies and templates the
// tests and benchmarks read): $CRUX_LLAMA_CPP_DIR, else the cache directory
// scripts/fetch-llama-cpp.sh fills.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace crux::test_support {

inline std::filesystem::path LlamaCppDir() {
  if (const char* dir = std::getenv("CRUX_LLAMA_CPP_DIR"); dir && *dir) return dir;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    return std::filesystem::path(cache) / "crux" / "llama.cpp";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/nonexistent") / ".cache" / "crux" / "llama.cpp";
}

}  // namespace crux::test_support
