// `crux smoke-model`: writes the tiny random-weight model the tests and the quick start run
// (crux/engine/smoke_model.h). Exit status: 0 written, 2 bad arguments or an error (named).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "crux/commands.h"
#include "crux/engine/smoke_model.h"  // plain options and report (no llama.h)

namespace crux::app {
namespace {

// The writer's options, filled by the flags, and the template file they name.
struct SmokeFlags {
  engine::SmokeModelOptions options;
  std::string template_path;
};

#ifdef CRUX_HAVE_LLAMA
int Fail(const std::string& message) {
  std::cerr << "crux smoke-model: " << message << "\n";
  return 2;
}

int RunSmokeModel(const SmokeFlags& flags) {
  std::error_code ec;
  const std::string& path = flags.template_path;
  std::ifstream in(path, std::ios::binary);
  if (!std::filesystem::is_regular_file(path, ec) || !in) {
    return Fail("cannot read --template " + path);
  }
  engine::SmokeModelOptions options = flags.options;
  options.template_text.assign(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) return Fail("cannot read --template " + path);
  if (options.template_text.empty()) return Fail("--template " + path + " is empty");
  auto report = engine::WriteSmokeModel(options);
  if (!report.ok()) return Fail(report.error().message());
  std::cout << "wrote " << options.out_path << ": " << report->tokens << " tokens ("
            << report->added_tokens << " added), " << report->parameters << " parameters, "
            << report->bytes << " bytes\n";
  return 0;
}
#else
int RunSmokeModel(const SmokeFlags& /*flags*/) {
  std::cerr << "crux smoke-model: this crux was built without llama.cpp; build it with "
               "scripts/build-llama-cpp.sh and configure crux with -DCMAKE_PREFIX_PATH=<the "
               "prefix it prints>\n";
  return 2;
}
#endif

}  // namespace

void AddSmokeModelCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<SmokeFlags>();
  engine::SmokeModelOptions& o = flags->options;
  CLI::App* cmd = app.add_subcommand(
      "smoke-model",
      "Write a tiny random-weight model (qwen3 architecture) with a real vocabulary and chat "
      "template, for tests and trials: its words are noise, its markers real tokens");
  cmd->add_option("--vocab", o.vocab_path, "A vocabulary GGUF (llama.cpp's ggml-vocab-*.gguf)")
      ->required();
  cmd->add_option("--template", flags->template_path, "The chat template file to embed")
      ->required();
  cmd->add_option("--out", o.out_path, "The model file to write")->required();
  cmd->add_option("--seed", o.seed, "Seed of the random weights")->capture_default_str();
  cmd->add_option("--layers", o.layers, "Transformer blocks")->capture_default_str();
  cmd->add_option("--embedding", o.embedding, "Embedding width")->capture_default_str();
  cmd->add_option("--heads", o.heads, "Attention heads")->capture_default_str();
  cmd->add_option("--kv-heads", o.kv_heads, "Key/value heads")->capture_default_str();
  cmd->add_option("--feed-forward", o.feed_forward, "Feed-forward width")->capture_default_str();
  cmd->add_option("--context-length", o.context_length, "Trained context length")
      ->capture_default_str();
  cmd->callback([flags, &run] { run = [flags] { return RunSmokeModel(*flags); }; });
}

}  // namespace crux::app
