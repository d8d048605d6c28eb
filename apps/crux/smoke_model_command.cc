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
#ifdef CRUX_HAVE_LLAMA
#include "crux/engine/smoke_model.h"
#endif

namespace crux::app {
namespace {

struct SmokeFlags {
  std::string vocab;
  std::string chat_template;
  std::string out;
  uint64_t seed = 1;
  int layers = 2;
  int embedding = 64;
  int heads = 4;
  int kv_heads = 2;
  int feed_forward = 128;
  int context_length = 40960;
};

#ifdef CRUX_HAVE_LLAMA
int Fail(const std::string& message) {
  std::cerr << "crux smoke-model: " << message << "\n";
  return 2;
}

int RunSmokeModel(const SmokeFlags& flags) {
  std::error_code ec;
  std::ifstream in(flags.chat_template, std::ios::binary);
  if (!std::filesystem::is_regular_file(flags.chat_template, ec) || !in) {
    return Fail("cannot read --template " + flags.chat_template);
  }
  engine::SmokeModelOptions options;
  options.template_text.assign(std::istreambuf_iterator<char>(in), {});
  if (in.bad()) return Fail("cannot read --template " + flags.chat_template);
  if (options.template_text.empty()) return Fail("--template " + flags.chat_template + " is empty");
  options.vocab_path = flags.vocab;
  options.out_path = flags.out;
  options.seed = flags.seed;
  options.layers = flags.layers;
  options.embedding = flags.embedding;
  options.heads = flags.heads;
  options.kv_heads = flags.kv_heads;
  options.feed_forward = flags.feed_forward;
  options.context_length = flags.context_length;
  auto report = engine::WriteSmokeModel(options);
  if (!report.ok()) return Fail(report.error().message());
  std::cout << "wrote " << flags.out << ": " << report->tokens << " tokens ("
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
  CLI::App* cmd = app.add_subcommand(
      "smoke-model",
      "Write a tiny random-weight model (qwen3 architecture) with a real vocabulary and chat "
      "template, for tests and trials: its words are noise, its markers real tokens");
  cmd->add_option("--vocab", flags->vocab, "A vocabulary GGUF (llama.cpp's ggml-vocab-*.gguf)")
      ->required();
  cmd->add_option("--template", flags->chat_template, "The chat template file to embed")
      ->required();
  cmd->add_option("--out", flags->out, "The model file to write")->required();
  cmd->add_option("--seed", flags->seed, "Seed of the random weights")->capture_default_str();
  cmd->add_option("--layers", flags->layers, "Transformer blocks")->capture_default_str();
  cmd->add_option("--embedding", flags->embedding, "Embedding width")->capture_default_str();
  cmd->add_option("--heads", flags->heads, "Attention heads")->capture_default_str();
  cmd->add_option("--kv-heads", flags->kv_heads, "Key/value heads")->capture_default_str();
  cmd->add_option("--feed-forward", flags->feed_forward, "Feed-forward width")
      ->capture_default_str();
  cmd->add_option("--context-length", flags->context_length, "Trained context length")
      ->capture_default_str();
  cmd->callback([flags, &run] { run = [flags] { return RunSmokeModel(*flags); }; });
}

}  // namespace crux::app
