// `crux schema check`: compiles a JSON Schema into the constraining grammar and, with an
// instance, runs the byte-level matcher over it. `crux schema bench`: the per-token cost of
// constrained decoding (xgrammar's methodology, docs/structured-output.md): at each step a
// timed FillMask, the longest allowed token that is a prefix of the rest of the instance
// (chosen outside the timers), a timed AcceptToken; at the end an end-of-generation token.
//
// Exit status: 0 success (check: accepted), 1 rejected by the matcher (check) or a grammar bug
// found by bench, 2 bad arguments, unreadable files, a schema that does not compile, or (bench)
// an instance the vocabulary has no tokens to spell.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "crux/commands.h"
#include "crux/constrain/automaton_cache.h"
#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "crux/constrain/vocab.h"

namespace crux::app {
namespace {

using Json = nlohmann::ordered_json;
using constrain::CompiledGrammar;
using constrain::GrammarOptions;
using constrain::Matcher;
using constrain::Vocabulary;
using Grammar = std::shared_ptr<const CompiledGrammar>;

struct SchemaFlags {
  std::string schema_file;
  std::string instance_file;
  std::string vocab_file;
  bool json = false;
  int repeat = 5;
};

int Fail(const std::string& message) {
  std::cerr << "crux schema: " << message << "\n";
  return 2;
}

Expected<std::string> ReadFile(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kIo, std::string("cannot read ") + flag + " " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Error(ErrorCode::kIo, std::string("cannot read ") + flag + " " + path);
  return text;
}

// CompileSchema, then the grammar; errors prefixed with the file name.
Expected<Grammar> CompileGrammar(const std::string& schema_text, const std::string& path,
                                 std::shared_ptr<const Vocabulary> vocabulary,
                                 const GrammarOptions& options) {
  auto ir = constrain::CompileSchema(schema_text);
  if (!ir.ok()) return Error(ir.error().code(), "--schema " + path + ": " + ir.error().message());
  auto grammar = CompiledGrammar::Compile(*ir, std::move(vocabulary), options);
  if (!grammar.ok()) {
    return Error(grammar.error().code(), "--schema " + path + ": " + grammar.error().message());
  }
  return *grammar;
}

Json NotEnforcedJson(const CompiledGrammar& grammar) {
  Json list = Json::array();
  for (const constrain::NotEnforced& n : grammar.not_enforced())
    list.push_back(Json{{"keyword", n.keyword}, {"pointer", n.json_pointer}});
  return list;
}

// ---- check ----

// The offset of the first byte the matcher refuses; instance.size() when it takes them all
// (then the document is incomplete).
size_t RefusedAt(const Grammar& grammar, std::string_view instance) {
  Matcher matcher(grammar);
  for (size_t i = 0; i < instance.size(); ++i) {
    if (!matcher.AcceptBytes(instance.substr(i, 1))) return i;
  }
  return instance.size();
}

void ReportRejection(const Grammar& grammar, const std::string& schema_text,
                     std::string_view instance) {
  const size_t at = RefusedAt(grammar, instance);
  if (at < instance.size()) {
    std::cerr << "crux schema: the matcher refuses byte " << at << " of the instance\n";
  } else {
    std::cerr << "crux schema: the instance ends (byte " << at
              << ") before the document is complete\n";
  }
  auto ir = constrain::CompileSchema(schema_text);
  if (!ir.ok()) return;
  for (const constrain::Violation& v : constrain::Validate(*ir, instance).violations) {
    std::cerr << "  " << (v.json_pointer.empty() ? "(root)" : v.json_pointer) << ": " << v.keyword
              << ": " << v.message << "\n";
  }
}

int RunCheck(const SchemaFlags& flags) {
  auto schema_text = ReadFile(flags.schema_file, "--schema");
  if (!schema_text.ok()) return Fail(schema_text.error().message());
  GrammarOptions options;
  options.flexible_whitespace = true;
  options.max_whitespace = constrain::kUnboundedWhitespace;
  options.any_property_order = true;
  auto grammar = CompileGrammar(*schema_text, flags.schema_file, nullptr, options);
  if (!grammar.ok()) return Fail(grammar.error().message());
  if (flags.instance_file.empty()) {
    std::cout << Json{{"compiled", true}, {"not_enforced", NotEnforcedJson(**grammar)}}.dump()
              << "\n";
    return 0;
  }
  auto instance = ReadFile(flags.instance_file, "--instance");
  if (!instance.ok()) return Fail(instance.error().message());
  // The file's bytes as they are: the grammar takes whitespace around the value (a trailing
  // newline included), as a JSON text may have it.
  Matcher matcher(*grammar);
  const bool accepted = matcher.AcceptBytes(*instance) && matcher.CanEnd();
  std::cout << Json{{"accepted", accepted}, {"not_enforced", NotEnforcedJson(**grammar)}}.dump()
            << "\n";
  if (!accepted) ReportRejection(*grammar, *schema_text, *instance);
  return accepted ? 0 : 1;
}

// ---- bench ----

// Tokens sorted by their bytes, for "which tokens are a prefix of this text" (used outside
// the timers: O(max token length × log V) per step).
class TokenIndex {
 public:
  explicit TokenIndex(const Vocabulary& vocab) : vocab_(vocab) {
    for (uint32_t id = 0; id < vocab.size(); ++id) {
      if (vocab.is_special(id)) continue;
      ids_.push_back(id);
      max_bytes_ = std::max(max_bytes_, vocab.bytes(id).size());
    }
    std::sort(ids_.begin(), ids_.end(),
              [&](uint32_t a, uint32_t b) { return vocab.bytes(a) < vocab.bytes(b); });
  }

  // The longest token allowed by `mask` whose bytes start `rest`; false when there is none.
  bool LongestAllowedPrefix(std::string_view rest, const std::vector<uint32_t>& mask,
                            uint32_t& token) const {
    for (size_t len = std::min(rest.size(), max_bytes_); len > 0; --len) {
      const std::string_view prefix = rest.substr(0, len);
      auto [lo, hi] = std::equal_range(ids_.begin(), ids_.end(), prefix, Less{&vocab_});
      for (auto it = lo; it != hi; ++it) {
        if (Allowed(mask, *it)) {
          token = *it;
          return true;
        }
      }
    }
    return false;
  }

  // True when some token, allowed or not, starts `rest`.
  bool AnyPrefix(std::string_view rest) const {
    for (size_t len = std::min(rest.size(), max_bytes_); len > 0; --len) {
      if (std::binary_search(ids_.begin(), ids_.end(), rest.substr(0, len), Less{&vocab_})) {
        return true;
      }
    }
    return false;
  }

  static bool Allowed(const std::vector<uint32_t>& mask, uint32_t id) {
    return (mask[id / 32] >> (id % 32)) & 1u;
  }

 private:
  struct Less {
    const Vocabulary* vocab;
    bool operator()(uint32_t id, std::string_view text) const { return vocab->bytes(id) < text; }
    bool operator()(std::string_view text, uint32_t id) const { return text < vocab->bytes(id); }
  };

  const Vocabulary& vocab_;
  std::vector<uint32_t> ids_;
  size_t max_bytes_ = 0;
};

struct BenchSamples {
  std::vector<double> compile_ms;
  std::vector<double> mask_us;
  std::vector<double> accept_us;
  size_t steps = 0;       // per repeat: tokens of the instance plus the end-of-generation token
  size_t full_masks = 0;  // steps whose mask allowed every token (FillMask returned true)
};

double MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

// One walk over the instance with a fresh matcher. Returns an error naming the step and the
// byte offset when the grammar allows no token that continues the instance.
Expected<size_t> Walk(const Grammar& grammar, const TokenIndex& index, std::string_view instance,
                      std::vector<uint32_t>& mask, BenchSamples& samples) {
  Matcher matcher(grammar);
  const Vocabulary& vocab = *grammar->vocabulary();
  size_t offset = 0;
  for (size_t step = 0;; ++step) {
    auto start = std::chrono::steady_clock::now();
    if (matcher.FillMask(mask)) ++samples.full_masks;
    samples.mask_us.push_back(MicrosSince(start));
    uint32_t token = 0;
    if (offset == instance.size()) {
      auto eog = std::find_if(vocab.end_of_generation().begin(), vocab.end_of_generation().end(),
                              [&](uint32_t id) { return TokenIndex::Allowed(mask, id); });
      if (eog == vocab.end_of_generation().end()) {
        return Error(ErrorCode::kInternal, "step " + std::to_string(step) + ", offset " +
                                               std::to_string(offset) +
                                               ": no end-of-generation token is allowed");
      }
      token = *eog;
    } else if (!index.LongestAllowedPrefix(instance.substr(offset), mask, token)) {
      if (!index.AnyPrefix(instance.substr(offset))) {
        return Error(ErrorCode::kUnsupported, "offset " + std::to_string(offset) +
                                                  ": no token of the vocabulary starts the rest "
                                                  "of the instance");
      }
      return Error(ErrorCode::kInternal,
                   "step " + std::to_string(step) + ", offset " + std::to_string(offset) +
                       ": no allowed token is a prefix of the rest of the instance");
    }
    start = std::chrono::steady_clock::now();
    const bool accepted = matcher.AcceptToken(token);
    samples.accept_us.push_back(MicrosSince(start));
    if (!accepted) {
      return Error(ErrorCode::kInternal, "step " + std::to_string(step) + ", offset " +
                                             std::to_string(offset) + ": token " +
                                             std::to_string(token) +
                                             " is in the mask but AcceptToken refuses it");
    }
    if (offset == instance.size()) {
      if (!matcher.IsTerminated()) {
        return Error(ErrorCode::kInternal, "the end-of-generation token does not terminate");
      }
      return step + 1;
    }
    offset += vocab.bytes(token).size();
  }
}

// Nearest rank: the smallest sample with at least p% of the samples at or below it.
double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
  return samples[std::max<size_t>(rank, 1) - 1];
}

void PrintBench(const BenchSamples& s, const SchemaFlags& flags, size_t instance_bytes,
                size_t vocab_size) {
  const double compile_ms = Percentile(s.compile_ms, 50);
  Json out{{"compile_ms", compile_ms},
           {"steps", s.steps},
           {"mask_p50_us", Percentile(s.mask_us, 50)},
           {"mask_p95_us", Percentile(s.mask_us, 95)},
           {"mask_p99_us", Percentile(s.mask_us, 99)},
           {"mask_max_us", Percentile(s.mask_us, 100)},
           {"accept_p50_us", Percentile(s.accept_us, 50)},
           {"accept_p99_us", Percentile(s.accept_us, 99)},
           {"full_mask_steps", s.full_masks / static_cast<size_t>(flags.repeat)},
           {"instance_bytes", instance_bytes},
           {"vocab_size", vocab_size},
           {"repeat", flags.repeat}};
  if (flags.json) {
    std::cout << out.dump() << "\n";
    return;
  }
  std::printf("compile        %.3f ms (median of %d)\n", compile_ms, flags.repeat);
  std::printf("steps          %zu (%zu instance bytes, vocabulary of %zu tokens)\n", s.steps,
              instance_bytes, vocab_size);
  std::printf("mask   us      p50 %.2f  p95 %.2f  p99 %.2f  max %.2f\n",
              out["mask_p50_us"].get<double>(), out["mask_p95_us"].get<double>(),
              out["mask_p99_us"].get<double>(), out["mask_max_us"].get<double>());
  std::printf("accept us      p50 %.2f  p99 %.2f\n", out["accept_p50_us"].get<double>(),
              out["accept_p99_us"].get<double>());
}

// The instance without the whitespace after it: the walk ends with the document.
std::string_view TrimEnd(std::string_view text) {
  while (!text.empty() &&
         (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

int RunBench(const SchemaFlags& flags) {
  if (flags.repeat < 1) return Fail("--repeat must be at least 1");
  auto schema_text = ReadFile(flags.schema_file, "--schema");
  if (!schema_text.ok()) return Fail(schema_text.error().message());
  auto instance_text = ReadFile(flags.instance_file, "--instance");
  if (!instance_text.ok()) return Fail(instance_text.error().message());
  auto loaded = Vocabulary::FromGgufFile(flags.vocab_file);
  if (!loaded.ok()) return Fail("--vocab " + flags.vocab_file + ": " + loaded.error().message());
  auto vocab = std::make_shared<const Vocabulary>(std::move(*loaded));
  const TokenIndex index(*vocab);
  Matcher::PrepareThread(*vocab);  // as a server's engine thread does before its first mask
  const std::string_view instance = TrimEnd(*instance_text);
  std::vector<uint32_t> mask(vocab->mask_words());
  BenchSamples samples;
  for (int r = 0; r < flags.repeat; ++r) {
    // Each repeat a schema seen for the first time: its automata, and the token sets of their
    // states that a compile makes ahead, are built again.
    constrain::ClearAutomatonCache();
    const auto start = std::chrono::steady_clock::now();
    auto grammar = CompileGrammar(*schema_text, flags.schema_file, vocab, GrammarOptions{});
    samples.compile_ms.push_back(MicrosSince(start) / 1000.0);
    if (!grammar.ok()) return Fail(grammar.error().message());
    auto steps = Walk(*grammar, index, instance, mask, samples);
    if (!steps.ok() && steps.error().code() == ErrorCode::kUnsupported) {
      return Fail("--instance " + flags.instance_file + ": " + steps.error().message());
    }
    if (!steps.ok()) {
      std::cerr << "crux schema bench: grammar bug: " << steps.error().message() << "\n";
      return 1;
    }
    samples.steps = *steps;
  }
  PrintBench(samples, flags, instance.size(), vocab->size());
  return 0;
}

}  // namespace

void AddSchemaCommand(CLI::App& app, std::function<int()>& run) {
  auto flags = std::make_shared<SchemaFlags>();
  CLI::App* cmd =
      app.add_subcommand("schema",
                         "Compile a JSON Schema into the constraining grammar and check an\n"
                         "instance against it (check), or measure the per-token cost of\n"
                         "constrained decoding on a model's vocabulary (bench).");
  cmd->require_subcommand(1);

  CLI::App* check = cmd->add_subcommand(
      "check", "Compile --schema; with --instance, run the byte-level matcher over it.");
  check->footer(
      "Compile --schema (exit 2 with the reason when it is invalid or unsupported) and print\n"
      "{\"compiled\":true,\"not_enforced\":[{\"keyword\",\"pointer\"},...]}. With\n"
      "--instance, run the byte-level matcher (flexible whitespace, any property order) over\n"
      "the file's bytes as they are (whitespace around the value, a final newline included, is\n"
      "allowed) and print {\"accepted\":true|false,\"not_enforced\":[...]}; exit 0 accepted,\n"
      "1 rejected, with the byte offset the matcher refused and the validator's violations on\n"
      "stderr.");
  check->add_option("--schema", flags->schema_file, "JSON Schema file")->required();
  check->add_option("--instance", flags->instance_file, "JSON instance file to check");
  check->callback([flags, &run] { run = [flags] { return RunCheck(*flags); }; });

  CLI::App* bench = cmd->add_subcommand(
      "bench", "Time FillMask and AcceptToken over --instance on the vocabulary of --vocab.");
  bench->footer(
      "Compile --schema against the vocabulary of a GGUF file (timed, cold: the automaton\n"
      "cache is emptied before each repeat), then walk --instance:\n"
      "per step a timed FillMask, the longest allowed token that is a prefix of the rest\n"
      "(chosen untimed), a timed AcceptToken; at the end an end-of-generation token, which\n"
      "must be allowed and terminate. Whitespace after the instance is dropped. Prints compile\n"
      "time (median), steps (tokens + the end token) and mask p50/p95/p99/max and accept\n"
      "p50/p99 in microseconds (nearest rank over every step of every repeat). Exit 1 when\n"
      "no allowed token continues the instance (a grammar bug), naming the step and offset;\n"
      "exit 2 when no token of the vocabulary can spell the rest of it.");
  bench->add_option("--vocab", flags->vocab_file, "GGUF file with the tokenizer")->required();
  bench->add_option("--schema", flags->schema_file, "JSON Schema file")->required();
  bench->add_option("--instance", flags->instance_file, "JSON instance valid for the schema")
      ->required();
  bench->add_flag("--json", flags->json,
                  "print one JSON object: compile_ms, steps, mask_p50_us, mask_p95_us, "
                  "mask_p99_us, mask_max_us, accept_p50_us, accept_p99_us, then extra keys");
  bench->add_option("--repeat", flags->repeat, "walks, each with a fresh compile (default 5)");
  bench->callback([flags, &run] { run = [flags] { return RunBench(*flags); }; });
}

}  // namespace crux::app
