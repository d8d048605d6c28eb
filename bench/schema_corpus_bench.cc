// The grammar over a whole corpus of real schemas with one vocabulary: share compiled,
// soundness counts, compile time and mask time pooled over every step of every walk.
//
//   crux_schema_corpus_bench VOCAB.gguf CORPUS_DIR [--max-schemas N] [--only SUBSTRING]
//                            [--precompute-us N]
//
// CORPUS_DIR holds JSONSchemaBench maskbench files ({"schema", "tests": [{"valid","data"}]}).
// For each schema: compile (timed, the vocabulary index already built): cold, the automaton
// cache emptied first, then warm, again with its automata cached; then for its first
// valid instance of at most 8 KB walk the compact text greedily (the longest token in the mask that
// is a prefix of the rest), timing every FillMask; the instance must end terminated. Invalid
// instances are fed as bytes and must be refused unless the grammar lists a keyword as not
// enforced.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "crux/constrain/automaton_cache.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/vocab.h"

namespace {

using crux::Expected;
using crux::constrain::CompiledGrammar;
using crux::constrain::Matcher;
using crux::constrain::Vocabulary;
using Clock = std::chrono::steady_clock;

double Micros(Clock::time_point since) {
  return std::chrono::duration<double, std::micro>(Clock::now() - since).count();
}

// This thread's CPU time in µs: unlike the wall clock, not inflated when other processes
// share the cores.
double ThreadCpuMicros() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

double Percentile(std::vector<double>& samples, double p) {
  if (samples.empty()) return 0;
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
  const size_t index = std::max<size_t>(rank, 1) - 1;
  std::nth_element(samples.begin(), samples.begin() + static_cast<ptrdiff_t>(index), samples.end());
  return samples[index];
}

struct Totals {
  size_t files = 0, compiled = 0, walks = 0, walks_ok = 0, valid_rejected = 0;
  size_t invalid = 0, invalid_rejected = 0, invalid_not_enforced = 0, invalid_accepted = 0;
  std::vector<double> compile_us, compile_cpu_us, warm_compile_us, mask_us;
};

// Tokens by first byte, longest first: the greedy walk's candidates.
std::vector<std::vector<uint32_t>> ByFirstByte(const Vocabulary& vocab) {
  std::vector<std::vector<uint32_t>> out(256);
  for (uint32_t id = 0; id < vocab.size(); ++id) {
    if (!vocab.is_special(id)) out[static_cast<uint8_t>(vocab.bytes(id)[0])].push_back(id);
  }
  for (auto& list : out) {
    std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return vocab.bytes(a).size() > vocab.bytes(b).size();
    });
  }
  return out;
}

// The slowest steps seen, for CRUX_BENCH_SLOWEST=1: (µs, schema file, offset in the text).
std::vector<std::tuple<double, std::string, size_t>> slowest;
// CRUX_BENCH_STEPS=FILE: every step over CRUX_BENCH_STEP_US (default 50) written there as
// µs, schema file, offset and the text around it, one tab-separated line each.
FILE* steps_out = nullptr;
double steps_over_us = 50;
// CRUX_BENCH_REPEAT_SLOW=N: each step over CRUX_BENCH_STEP_US is filled N more times (not
// timed), so that a profile of the run is a profile of the slow steps.
int repeat_slow = 0;
double repeat_below_us = 1e9;  // CRUX_BENCH_REPEAT_BELOW_US: only steps faster than this
std::string current_file;
// Every cold compile: (wall µs, CPU µs, schema file), ranked under CRUX_BENCH_SLOWEST=1.
std::vector<std::tuple<double, double, std::string>> compiles;

bool WalkInstance(const std::shared_ptr<const CompiledGrammar>& grammar, const Vocabulary& vocab,
                  const std::vector<std::vector<uint32_t>>& by_first, const std::string& text,
                  std::vector<uint32_t>& mask, std::vector<double>& mask_us) {
  Matcher matcher(grammar);
  size_t at = 0;
  for (;;) {
    const auto start = Clock::now();
    matcher.FillMask(mask);
    mask_us.push_back(Micros(start));
    if (mask_us.back() > 1000) slowest.emplace_back(mask_us.back(), current_file, at);
    if (repeat_slow > 0 && mask_us.back() > steps_over_us && mask_us.back() < repeat_below_us) {
      for (int r = 0; r < repeat_slow; ++r)
        matcher.FillMask(mask);
    }
    double warm_us = 0;
    if (steps_out != nullptr && mask_us.back() > steps_over_us) {
      const auto again = Clock::now();
      matcher.FillMask(mask);
      warm_us = Micros(again);
    }
    if (steps_out != nullptr && mask_us.back() > steps_over_us) {
      std::string around =
          text.substr(at >= 24 ? at - 24 : 0, at >= 24 ? 24 : at) + "|" + text.substr(at, 16);
      for (char& c : around) {
        if (c == '\t' || c == '\n') c = ' ';
      }
      std::fprintf(steps_out, "%.1f\t%s\t%zu\t%s\t%.1f\n", mask_us.back(), current_file.c_str(), at,
                   around.c_str(), warm_us);
    }
    auto allowed = [&](uint32_t t) { return (mask[t / 32] >> (t % 32) & 1) != 0; };
    if (at == text.size()) {
      const uint32_t end = vocab.end_of_generation().empty() ? 0 : vocab.end_of_generation()[0];
      return allowed(end) && matcher.AcceptToken(end) && matcher.IsTerminated();
    }
    uint32_t chosen = UINT32_MAX;
    for (uint32_t t : by_first[static_cast<uint8_t>(text[at])]) {
      const std::string_view bytes = vocab.bytes(t);
      if (allowed(t) && text.compare(at, bytes.size(), bytes) == 0) {
        chosen = t;
        break;
      }
    }
    if (chosen == UINT32_MAX || !matcher.AcceptToken(chosen)) return false;
    at += vocab.bytes(chosen).size();
  }
}

crux::constrain::GrammarOptions grammar_options;  // --precompute-us sets its budget

Expected<std::shared_ptr<const CompiledGrammar>> Compile(
    const std::string& schema, const std::shared_ptr<const Vocabulary>& vocab) {
  auto ir = crux::constrain::CompileSchema(schema);
  if (!ir.ok()) return ir.error();
  return CompiledGrammar::Compile(*ir, vocab, grammar_options);
}

void RunFile(const std::filesystem::path& path, const std::shared_ptr<const Vocabulary>& vocab,
             const std::vector<std::vector<uint32_t>>& by_first, std::vector<uint32_t>& mask,
             Totals& totals) {
  std::ifstream file(path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  const auto doc = nlohmann::json::parse(buffer.str(), nullptr, false);
  if (doc.is_discarded() || !doc.contains("schema")) return;
  ++totals.files;
  current_file = path.filename().string();
  crux::constrain::ClearAutomatonCache();  // cold: nothing from the schemas before
  const auto start = Clock::now();
  const double cpu_start = ThreadCpuMicros();
  auto grammar = Compile(doc["schema"].dump(), vocab);
  if (!grammar.ok()) return;
  totals.compile_us.push_back(Micros(start));
  totals.compile_cpu_us.push_back(ThreadCpuMicros() - cpu_start);
  compiles.emplace_back(totals.compile_us.back(), totals.compile_cpu_us.back(), current_file);
  const auto warm_start = Clock::now();  // warm: every automaton from the cold compile
  (void)Compile(doc["schema"].dump(), vocab);
  totals.warm_compile_us.push_back(Micros(warm_start));
  ++totals.compiled;
  bool walked = false;
  for (const auto& test : doc.value("tests", nlohmann::json::array())) {
    const std::string text = test["data"].dump();
    if (test.value("valid", false)) {
      if (walked || text.size() > 8192) continue;
      walked = true;
      ++totals.walks;
      if (WalkInstance(*grammar, *vocab, by_first, text, mask, totals.mask_us)) {
        ++totals.walks_ok;
      } else {
        ++totals.valid_rejected;
        std::fprintf(stderr, "valid instance not walked: %s\n", path.filename().c_str());
      }
      continue;
    }
    ++totals.invalid;
    Matcher matcher(*grammar);
    if (!(matcher.AcceptBytes(text) && matcher.CanEnd())) {
      ++totals.invalid_rejected;
    } else if (!(*grammar)->not_enforced().empty()) {
      ++totals.invalid_not_enforced;
    } else {
      ++totals.invalid_accepted;
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s VOCAB.gguf CORPUS_DIR [--max-schemas N] [--only SUBSTRING] "
                 "[--precompute-us N]\n",
                 argv[0]);
    return 2;
  }
  size_t max_schemas = SIZE_MAX;
  std::string only;  // keep the files whose name contains it
  for (int i = 3; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--max-schemas")
      max_schemas = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::string(argv[i]) == "--only") only = argv[i + 1];
    if (std::string(argv[i]) == "--precompute-us") {
      grammar_options.precompute_us = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 10));
    }
  }
  if (const char* steps = std::getenv("CRUX_BENCH_STEPS")) steps_out = std::fopen(steps, "w");
  if (const char* over = std::getenv("CRUX_BENCH_STEP_US")) steps_over_us = std::atof(over);
  if (const char* repeat = std::getenv("CRUX_BENCH_REPEAT_SLOW")) repeat_slow = std::atoi(repeat);
  if (const char* below = std::getenv("CRUX_BENCH_REPEAT_BELOW_US"))
    repeat_below_us = std::atof(below);
  auto loaded = Vocabulary::FromGgufFile(argv[1]);
  if (!loaded.ok()) {
    std::fprintf(stderr, "%s\n", loaded.error().message().c_str());
    return 2;
  }
  auto vocab = std::make_shared<const Vocabulary>(std::move(*loaded));
  const auto index_start = Clock::now();
  (void)CompiledGrammar::Compile(crux::constrain::AnyJsonSchema(), vocab);  // builds the index
  const double index_ms = Micros(index_start) / 1000;
  Matcher::PrepareThread(*vocab);  // as a server's engine thread does before its first mask
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(argv[2])) {
    if (entry.path().extension() == ".json" &&
        entry.path().filename().string().find(only) != std::string::npos) {
      paths.push_back(entry.path());
    }
  }
  std::sort(paths.begin(), paths.end());
  if (paths.size() > max_schemas) paths.resize(max_schemas);
  const auto by_first = ByFirstByte(*vocab);
  std::vector<uint32_t> mask(vocab->mask_words());
  Totals totals;
  for (const auto& path : paths)
    RunFile(path, vocab, by_first, mask, totals);
  std::printf("vocabulary           %zu tokens, index built once in %.1f ms\n", vocab->size(),
              index_ms);
  std::printf("schemas              %zu compiled of %zu (%.2f%%)\n", totals.compiled, totals.files,
              100.0 * static_cast<double>(totals.compiled) /
                  static_cast<double>(std::max<size_t>(totals.files, 1)));
  std::printf("valid instances      %zu walked to the end of %zu (%zu refused)\n", totals.walks_ok,
              totals.walks, totals.valid_rejected);
  std::printf(
      "invalid instances    %zu refused, %zu accepted (keyword not enforced), %zu accepted "
      "wrongly, of %zu\n",
      totals.invalid_rejected, totals.invalid_not_enforced, totals.invalid_accepted,
      totals.invalid);
  std::printf("compile ms cold      p50 %.3f  p99 %.3f  max %.3f  (automaton cache emptied)\n",
              Percentile(totals.compile_us, 50) / 1000, Percentile(totals.compile_us, 99) / 1000,
              Percentile(totals.compile_us, 100) / 1000);
  std::printf("compile cpu ms cold  p50 %.3f  p99 %.3f  max %.3f  (this thread's CPU time)\n",
              Percentile(totals.compile_cpu_us, 50) / 1000,
              Percentile(totals.compile_cpu_us, 99) / 1000,
              Percentile(totals.compile_cpu_us, 100) / 1000);
  std::printf("compile ms warm      p50 %.3f  p99 %.3f  max %.3f  (its automata cached)\n",
              Percentile(totals.warm_compile_us, 50) / 1000,
              Percentile(totals.warm_compile_us, 99) / 1000,
              Percentile(totals.warm_compile_us, 100) / 1000);
  std::printf("mask us (%zu steps)  p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f\n",
              totals.mask_us.size(), Percentile(totals.mask_us, 50), Percentile(totals.mask_us, 99),
              Percentile(totals.mask_us, 99.9), Percentile(totals.mask_us, 100));
  const auto over = [&](double us) {
    return std::count_if(totals.mask_us.begin(), totals.mask_us.end(),
                         [&](double t) { return t > us; });
  };
  std::printf("mask steps over      50 us: %td  1 ms: %td  (1%% of the steps: %zu)\n", over(50),
              over(1000), totals.mask_us.size() / 100);
  if (std::getenv("CRUX_BENCH_SLOWEST") != nullptr) {
    std::sort(slowest.rbegin(), slowest.rend());
    std::map<std::string, size_t> by_file;
    for (const auto& entry : slowest)
      ++by_file[std::get<1>(entry)];
    std::vector<std::pair<size_t, std::string>> ranked;
    for (const auto& [file, count] : by_file)
      ranked.push_back({count, file});
    std::sort(ranked.rbegin(), ranked.rend());
    for (size_t i = 0; i < ranked.size() && i < 15; ++i) {
      std::printf("over 1 ms %6zu steps  %s\n", ranked[i].first, ranked[i].second.c_str());
    }
    for (size_t i = 0; i < slowest.size() && i < 40; ++i) {
      std::printf("slow %10.1f us  %s at byte %zu\n", std::get<0>(slowest[i]),
                  std::get<1>(slowest[i]).c_str(), std::get<2>(slowest[i]));
    }
    std::printf("steps over 1 ms: %zu\n", slowest.size());
    std::sort(compiles.rbegin(), compiles.rend());
    for (size_t i = 0; i < compiles.size() && i < 15; ++i) {
      std::printf("slow compile %8.1f ms (cpu %.1f ms)  %s\n", std::get<0>(compiles[i]) / 1000,
                  std::get<1>(compiles[i]) / 1000, std::get<2>(compiles[i]).c_str());
    }
  }
  return totals.valid_rejected == 0 && totals.invalid_accepted == 0 ? 0 : 1;
}
