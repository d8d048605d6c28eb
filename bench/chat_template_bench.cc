// Chat templates: parse time per template and render time per conversation, over llama.cpp's
// templates (scripts/fetch-llama-cpp.sh) and the test conversations
// (tests/chat_template/conversations.json). Each parse and each render is timed
// alone, --runs times; the table gives the median and p99 of those samples per template, and
// the last line pools every render of every template.
//
// Renders are whole (RenderOptions::reuse_loops off). With --conversation-kb N the conversations
// are replaced by one long one: question and answer turns of about 1 KB each up to N KB, ending
// with a user turn (the shape of an agent resending its history; bench/engine/compare.mjs sends
// the same one to `crux serve`), and two more columns time it as a follow-up: rendered by a
// template that has just rendered the request before it (all but the last 10 KB of turns), so
// that the iterations of the earlier turns are replayed. --only NAME keeps the templates whose
// file name contains NAME.
//
// Usage: crux_chat_template_bench [--templates DIR] [--conversations FILE] [--runs N]
//                                 [--conversation-kb N] [--only NAME]
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_inputs.h"
#include "crux/chat_template/json.h"
#include "crux/chat_template/template.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
namespace ct = crux::chat_template;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path DefaultTemplates() {
  return crux::bench::LlamaCppDir() / "models" / "templates";
}

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const size_t i =
      std::min(samples.size() - 1, static_cast<size_t>(p * (samples.size() - 1) + 0.5));
  return samples[i];
}

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

struct Flags {
  fs::path templates = DefaultTemplates();
  fs::path conversations = CRUX_SOURCE_DIR "/tests/chat_template/conversations.json";
  int runs = 200;
  int conversation_kb = 0;
  std::string only;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--templates") flags.templates = argv[i + 1];
    if (flag == "--conversations") flags.conversations = argv[i + 1];
    if (flag == "--runs") flags.runs = std::max(1, std::atoi(argv[i + 1]));
    if (flag == "--conversation-kb") flags.conversation_kb = std::max(0, std::atoi(argv[i + 1]));
    if (flag == "--only") flags.only = argv[i + 1];
  }
  return flags;
}

nlohmann::ordered_json LongConversation(int kb, bool previous = false) {
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  const auto turns = previous ? crux::bench::PreviousRequest(static_cast<size_t>(kb))
                              : crux::bench::LongConversation(static_cast<size_t>(kb));
  for (const auto& m : turns)
    messages.push_back({{"role", m.role}, {"content", m.content}});
  return {{"messages", std::move(messages)},
          {"add_generation_prompt", true},
          {"bos_token", ""},
          {"eos_token", ""}};
}

struct Samples {
  std::vector<double> parse;
  std::vector<double> render;
  std::vector<double> follow_up;

  void Add(const Samples& other) {
    parse.insert(parse.end(), other.parse.begin(), other.parse.end());
    render.insert(render.end(), other.render.begin(), other.render.end());
    follow_up.insert(follow_up.end(), other.follow_up.begin(), other.follow_up.end());
  }
  std::string Row(bool with_follow_up) const {
    char row[256];
    std::snprintf(row, sizeof(row), "%.1f | %.1f | %.1f | %.1f |", Percentile(parse, 0.5),
                  Percentile(parse, 0.99), Percentile(render, 0.5), Percentile(render, 0.99));
    std::string out = row;
    if (with_follow_up) {
      std::snprintf(row, sizeof(row), " %.1f | %.1f |", Percentile(follow_up, 0.5),
                    Percentile(follow_up, 0.99));
      out += row;
    }
    return out;
  }
};

// Parses `source` and renders each context whole, `runs` times; with a `previous` context, also
// times each render of the first context by a fresh template that has just rendered `previous`.
Samples Measure(const std::string& source, const std::vector<ct::Value>& contexts,
                const ct::Value& previous, int runs) {
  Samples samples;
  std::shared_ptr<const ct::Template> parsed;
  for (int run = 0; run < runs; ++run) {
    const auto start = Clock::now();
    auto t = ct::Template::Parse(source);
    samples.parse.push_back(MicrosSince(start));
    if (t.ok()) parsed = *t;
  }
  ct::RenderOptions whole;
  whole.reuse_loops = false;
  for (int run = 0; parsed && run < runs; ++run) {
    for (const ct::Value& context : contexts) {
      const auto start = Clock::now();
      auto text = parsed->Render(context, whole);
      samples.render.push_back(MicrosSince(start));
    }
  }
  for (int run = 0; parsed && !previous.is_undefined() && run < runs; ++run) {
    auto fresh = ct::Template::Parse(source);
    if (!fresh.ok() || !(*fresh)->Render(previous).ok()) break;
    const auto start = Clock::now();
    auto text = (*fresh)->Render(contexts.front());
    samples.follow_up.push_back(MicrosSince(start));
  }
  return samples;
}

}  // namespace

int main(int argc, char** argv) {
  // As `crux serve` does: large blocks stay in the heap, so that a long conversation's strings
  // do not cost a page fault per 4 KB on every render.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  const Flags flags = ParseFlags(argc, argv);
  std::vector<fs::path> paths;
  if (fs::is_directory(flags.templates)) {
    for (const auto& entry : fs::directory_iterator(flags.templates)) {
      const bool wanted = flags.only.empty() ||
                          entry.path().filename().string().find(flags.only) != std::string::npos;
      if (entry.path().extension() == ".jinja" && wanted) paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  if (paths.empty()) {
    std::fprintf(stderr, "no templates in %s (run scripts/fetch-llama-cpp.sh)\n",
                 flags.templates.c_str());
    return 2;
  }
  std::vector<ct::Value> contexts;
  ct::Value previous;  // --conversation-kb: the request before the long one
  if (flags.conversation_kb > 0) {
    contexts.push_back(ct::FromJson(LongConversation(flags.conversation_kb)));
    previous = ct::FromJson(LongConversation(flags.conversation_kb, true));
  } else {
    const auto fixture = nlohmann::ordered_json::parse(ReadText(flags.conversations));
    for (const auto& c : fixture["conversations"])
      contexts.push_back(ct::FromJson(c["context"]));
  }
  const bool follow_up = flags.conversation_kb > 0;
  std::printf(
      "| template | bytes | parse p50 us | parse p99 us | render p50 us | render p99 us |%s\n",
      follow_up ? " follow-up p50 us | follow-up p99 us |" : "");
  std::printf("|---|---|---|---|---|---|%s\n", follow_up ? "---|---|" : "");
  Samples all;
  for (const auto& path : paths) {
    const Samples samples = Measure(ReadText(path), contexts, previous, flags.runs);
    all.Add(samples);
    std::printf("| %s | %zu | %s\n", path.filename().c_str(), fs::file_size(path),
                samples.Row(follow_up).c_str());
  }
  std::printf("| all %zu templates x %zu conversations | | %s\n", paths.size(), contexts.size(),
              all.Row(follow_up).c_str());
  return 0;
}
