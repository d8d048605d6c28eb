// The reference the chat-template tests compare against: Python Jinja2 configured as Hugging
// Face configures it (tests/chat_template/render_reference.py), run once per batch as a child
// process, and the templates of llama.cpp's tree.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "unit/constrain/test_data.h"

namespace crux::chat_template::test_reference {

using Json = nlohmann::ordered_json;

inline std::filesystem::path TestsDir() {
  return std::filesystem::path(CRUX_FIXTURE_DIR).parent_path();
}

inline std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// llama.cpp's models/templates/*.jinja, sorted; empty when the tree is absent.
inline std::vector<std::filesystem::path> LlamaCppTemplates() {
  std::vector<std::filesystem::path> paths;
  const auto dir = constrain::test_data::LlamaCppDir() / "models" / "templates";
  if (!std::filesystem::is_directory(dir)) return paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".jinja") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Whether python3 with Jinja2 can run here.
inline bool HasJinja2() {
  static const bool available = std::system("python3 -c 'import jinja2' >/dev/null 2>&1") == 0;
  return available;
}

// Runs `command` with `input` on stdin; its stdout, or nullopt when it fails.
inline std::optional<std::string> RunWithInput(const std::string& command,
                                               const std::string& input) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string stem = "crux_chat_template_" + std::to_string(::getpid());
  const auto in_path = dir / (stem + ".in.json");
  const auto out_path = dir / (stem + ".out.json");
  std::ofstream(in_path, std::ios::binary) << input;
  const std::string line = command + " < '" + in_path.string() + "' > '" + out_path.string() + "'";
  const int status = std::system(line.c_str());
  std::string output = ReadText(out_path);
  std::filesystem::remove(in_path);
  std::filesystem::remove(out_path);
  if (status != 0) return std::nullopt;
  return output;
}

// The reference's answer to a batch request (see render_reference.py); null on failure.
inline Json Reference(const Json& request) {
  const std::string harness = (TestsDir() / "chat_template" / "render_reference.py").string();
  auto output = RunWithInput("python3 '" + harness + "'", request.dump());
  if (!output) return nullptr;
  return Json::parse(*output, nullptr, false);
}

}  // namespace crux::chat_template::test_reference
