// Where the constrain tests find their real data, and loading it once: llama.cpp's
// vocabularies (scripts/fetch-llama-cpp.sh puts its tree in a cache outside the source) and
// JSONSchemaBench's maskbench split (../shared/data). Tests skip when either is absent.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crux/constrain/vocab.h"
#include "support/llama_cpp_dir.h"

namespace crux::constrain::test_data {

using test_support::LlamaCppDir;

// Llama 3's vocabulary (128,256 tokens), loaded once per test binary; null when absent.
inline std::shared_ptr<const Vocabulary> Llama3Vocabulary() {
  static const std::shared_ptr<const Vocabulary> vocabulary =
      []() -> std::shared_ptr<const Vocabulary> {
    auto loaded =
        Vocabulary::FromGgufFile((LlamaCppDir() / "models" / "ggml-vocab-llama-bpe.gguf").string());
    if (!loaded.ok()) return nullptr;
    return std::make_shared<const Vocabulary>(std::move(*loaded));
  }();
  return vocabulary;
}

inline constexpr const char* kNoLlamaCpp =
    "llama.cpp's models/ not found: run scripts/fetch-llama-cpp.sh or set CRUX_LLAMA_CPP_DIR";

inline std::filesystem::path MaskbenchDir() {
  return std::filesystem::path(CRUX_FIXTURE_DIR
                               "/../../../shared/data/jsonschemabench/maskbench/data");
}

// The maskbench files, sorted; empty when ../shared is absent.
inline std::vector<std::filesystem::path> MaskbenchFiles() {
  std::vector<std::filesystem::path> paths;
  if (!std::filesystem::is_directory(MaskbenchDir())) return paths;
  for (const auto& entry : std::filesystem::directory_iterator(MaskbenchDir())) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The JSON in `path` (discarded when it does not parse).
inline nlohmann::json ReadJson(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return nlohmann::json::parse(text.str(), nullptr, false);
}

}  // namespace crux::constrain::test_data
