// The grammar over JSONSchemaBench's maskbench split (from ../shared): every valid instance of
// a compiled schema is accepted, compact and pretty-printed; every invalid one is rejected
// unless the grammar lists a keyword as not enforced. With Llama 3's vocabulary (llama.cpp's
// tree, scripts/fetch-llama-cpp.sh), a sample of schemas is also walked token by token, greedily
// and under random segmentations, checking that every token of the instance is in the mask, and
// at random under the mask, checking that no state is a dead end.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/schema_ir.h"
#include "crux/constrain/vocab.h"
#include "test_data.h"

namespace crux::constrain {
namespace {

namespace fs = std::filesystem;

GrammarOptions CheckOptions() {
  GrammarOptions options;
  options.max_whitespace = kUnboundedWhitespace;
  return options;
}

bool Accepts(const std::shared_ptr<const CompiledGrammar>& grammar, const std::string& text) {
  Matcher matcher(grammar);
  return matcher.AcceptBytes(text) && matcher.CanEnd();
}

struct Tally {
  size_t files = 0;
  size_t compiled = 0;
  size_t valid = 0;
  size_t valid_accepted = 0;
  size_t invalid = 0;
  size_t invalid_rejected = 0;
  size_t invalid_not_enforced = 0;
  std::vector<std::string> wrong;
  std::vector<std::string> not_compiled;
};

void CheckFile(const fs::path& path, Tally& tally) {
  const auto doc = test_data::ReadJson(path);
  if (doc.is_discarded() || !doc.contains("schema")) return;
  ++tally.files;
  auto ir = CompileSchema(doc["schema"].dump());
  if (!ir.ok()) {
    tally.not_compiled.push_back(path.filename().string() + ": " + ir.error().message());
    return;
  }
  auto grammar = CompiledGrammar::Compile(*ir, nullptr, CheckOptions());
  if (!grammar.ok()) {
    tally.not_compiled.push_back(path.filename().string() + ": " + grammar.error().message());
    return;
  }
  ++tally.compiled;
  const bool all_enforced = (*grammar)->not_enforced().empty();
  size_t index = 0;
  for (const auto& test : doc.value("tests", nlohmann::json::array())) {
    const bool expected = test.value("valid", false);
    const std::string compact = test["data"].dump();
    const bool accepted = Accepts(*grammar, compact);
    if (expected) {
      ++tally.valid;
      const bool pretty = Accepts(*grammar, test["data"].dump(2));
      if (accepted && pretty) {
        ++tally.valid_accepted;
      } else {
        tally.wrong.push_back(path.filename().string() + " test " + std::to_string(index) +
                              (accepted ? " (pretty)" : "") +
                              " rejected: " + compact.substr(0, 200));
      }
    } else {
      ++tally.invalid;
      if (!accepted) {
        ++tally.invalid_rejected;
      } else if (!all_enforced) {
        ++tally.invalid_not_enforced;
      } else {
        tally.wrong.push_back(path.filename().string() + " test " + std::to_string(index) +
                              " accepted: " + compact.substr(0, 200));
      }
    }
    ++index;
  }
}

TEST(GrammarCorpus, MaskbenchInstances) {
  const std::vector<fs::path> paths = test_data::MaskbenchFiles();
  if (paths.empty()) GTEST_SKIP() << "no corpus at " << test_data::MaskbenchDir();
  Tally tally;
  for (const fs::path& path : paths)
    CheckFile(path, tally);
  ASSERT_GT(tally.files, 0u);
  const double share = static_cast<double>(tally.compiled) / static_cast<double>(tally.files);
  EXPECT_GE(share, 0.98) << tally.compiled << " of " << tally.files << " compiled";
  std::string first;
  for (size_t i = 0; i < std::min<size_t>(tally.wrong.size(), 10); ++i)
    first += "\n  " + tally.wrong[i];
  EXPECT_TRUE(tally.wrong.empty()) << tally.wrong.size() << " wrong results:" << first;
  if (std::getenv("CRUX_CORPUS_STATS") != nullptr) {
    std::printf(
        "files %zu compiled %zu | valid %zu accepted %zu | invalid %zu rejected %zu "
        "accepted-not-enforced %zu | wrong %zu\n",
        tally.files, tally.compiled, tally.valid, tally.valid_accepted, tally.invalid,
        tally.invalid_rejected, tally.invalid_not_enforced, tally.wrong.size());
    for (const std::string& failure : tally.not_compiled)
      std::printf("  %s\n", failure.c_str());
    for (const std::string& failure : tally.wrong)
      std::printf("  wrong: %s\n", failure.c_str());
  }
}

// Walks `text` token by token: each step picks, among the tokens that are a prefix of the rest,
// the longest (greedy) or a random one, and requires it to be in the mask.
std::string WalkTokens(const std::shared_ptr<const CompiledGrammar>& grammar,
                       const Vocabulary& vocabulary,
                       const std::vector<std::vector<uint32_t>>& by_first_byte,
                       const std::string& text, std::mt19937* random) {
  Matcher matcher(grammar);
  std::vector<uint32_t> mask(vocabulary.mask_words());
  size_t at = 0;
  while (at < text.size()) {
    std::vector<uint32_t> fitting;
    for (uint32_t token : by_first_byte[static_cast<uint8_t>(text[at])]) {
      if (text.compare(at, vocabulary.bytes(token).size(), vocabulary.bytes(token)) == 0) {
        fitting.push_back(token);
      }
    }
    if (fitting.empty()) return "no token fits at " + std::to_string(at);
    uint32_t token = fitting[0];
    if (random != nullptr) {
      token = fitting[(*random)() % fitting.size()];
    } else {
      for (uint32_t t : fitting) {
        if (vocabulary.bytes(t).size() > vocabulary.bytes(token).size()) token = t;
      }
    }
    matcher.FillMask(mask);
    if ((mask[token / 32] >> (token % 32) & 1) == 0) {
      return "token '" + std::string(vocabulary.bytes(token)) + "' not in the mask at " +
             std::to_string(at);
    }
    if (!matcher.AcceptToken(token)) return "token refused at " + std::to_string(at);
    at += vocabulary.bytes(token).size();
  }
  matcher.FillMask(mask);
  const uint32_t end = vocabulary.end_of_generation()[0];
  if ((mask[end / 32] >> (end % 32) & 1) == 0) return "end of generation not allowed";
  if (!matcher.AcceptToken(end) || !matcher.IsTerminated()) return "did not terminate";
  return "";
}

TEST(GrammarCorpus, MaskbenchTokenWalksOnLlama3) {
  const std::vector<fs::path> paths = test_data::MaskbenchFiles();
  if (paths.empty()) GTEST_SKIP() << "no corpus at " << test_data::MaskbenchDir();
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  std::vector<std::vector<uint32_t>> by_first_byte(256);
  for (uint32_t id = 0; id < vocabulary->size(); ++id) {
    if (!vocabulary->is_special(id))
      by_first_byte[static_cast<uint8_t>(vocabulary->bytes(id)[0])].push_back(id);
  }
  std::mt19937 random(7);
  size_t walks = 0;
  std::vector<std::string> wrong;
  const size_t stride = std::max<size_t>(1, paths.size() / 60);
  for (size_t i = 0; i < paths.size(); i += stride) {
    const auto doc = test_data::ReadJson(paths[i]);
    if (doc.is_discarded() || !doc.contains("schema")) continue;
    auto ir = CompileSchema(doc["schema"].dump());
    if (!ir.ok()) continue;
    GrammarOptions options;
    auto grammar = CompiledGrammar::Compile(*ir, vocabulary, options);
    if (!grammar.ok()) continue;
    for (const auto& test : doc.value("tests", nlohmann::json::array())) {
      if (!test.value("valid", false)) continue;
      const std::string text = test["data"].dump();
      if (text.size() > 2000) continue;
      for (std::mt19937* r : {static_cast<std::mt19937*>(nullptr), &random}) {
        const std::string failure = WalkTokens(*grammar, *vocabulary, by_first_byte, text, r);
        ++walks;
        if (!failure.empty())
          wrong.push_back(paths[i].filename().string() + ": " + failure + " in " +
                          text.substr(0, 160));
      }
      break;
    }
  }
  EXPECT_GT(walks, 60u);
  std::string first;
  for (size_t i = 0; i < std::min<size_t>(wrong.size(), 10); ++i)
    first += "\n  " + wrong[i];
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " of " << walks << " walks failed:" << first;
}

// Random walks as a sampler under the mask would make them: uniform among the allowed tokens,
// ending as soon as it may past 40 bytes. Every state a walk reaches must allow some token
// (no dead end) and every allowed token must be accepted. A fifth of the schemas, two walks
// each; the schemas whose dead ends are known (docs/structured-output.md) are listed.
TEST(GrammarCorpus, MaskbenchRandomWalksNeverDeadEndOnLlama3) {
  const std::vector<fs::path> paths = test_data::MaskbenchFiles();
  if (paths.empty()) GTEST_SKIP() << "no corpus at " << test_data::MaskbenchDir();
  auto vocabulary = test_data::Llama3Vocabulary();
  if (vocabulary == nullptr) GTEST_SKIP() << test_data::kNoLlamaCpp;
  // An enum number no number within the lexer's limits can spell (`1e308`).
  const std::vector<std::string> known = {
      "Synthesized---draft2019_09_valid_multipleOf_id9_subschema1_not_2.json"};
  std::vector<uint32_t> mask(vocabulary->mask_words());
  std::vector<std::string> wrong;
  size_t walks = 0;
  size_t finished = 0;
  for (size_t i = 0; i < paths.size(); i += 5) {
    const auto doc = test_data::ReadJson(paths[i]);
    if (doc.is_discarded() || !doc.contains("schema")) continue;
    auto ir = CompileSchema(doc["schema"].dump());
    if (!ir.ok()) continue;
    auto grammar = CompiledGrammar::Compile(*ir, vocabulary, {});
    if (!grammar.ok()) continue;
    const std::string name = paths[i].filename().string();
    const bool known_dead_end = std::find(known.begin(), known.end(), name) != known.end();
    for (uint32_t seed = 1; seed <= 2; ++seed) {
      std::mt19937 random(seed * 7919 + static_cast<uint32_t>(i));
      Matcher matcher(*grammar);
      std::string text;
      ++walks;
      for (size_t step = 0; step < 150; ++step) {
        matcher.FillMask(mask);
        size_t count = 0;
        for (uint32_t word : mask)
          count += static_cast<size_t>(std::popcount(word));
        if (count == 0) {
          if (!known_dead_end) wrong.push_back(name + ": dead end after " + text.substr(0, 160));
          break;
        }
        // The k-th allowed token, k uniform.
        size_t k = random() % count;
        size_t w = 0;
        while (static_cast<size_t>(std::popcount(mask[w])) <= k)
          k -= static_cast<size_t>(std::popcount(mask[w++]));
        uint32_t bits = mask[w];
        for (; k > 0; --k)
          bits &= bits - 1;
        uint32_t token =
            static_cast<uint32_t>(w * 32 + static_cast<size_t>(std::countr_zero(bits)));
        if (text.size() > 40 && matcher.CanEnd()) token = vocabulary->end_of_generation()[0];
        if (!matcher.AcceptToken(token)) {
          wrong.push_back(name + ": allowed token '" + std::string(vocabulary->bytes(token)) +
                          "' refused after " + text.substr(0, 160));
          break;
        }
        if (matcher.IsTerminated()) {
          ++finished;
          break;
        }
        text += vocabulary->bytes(token);
      }
    }
  }
  EXPECT_GT(walks, 3000u);
  EXPECT_GT(finished, 800u);
  std::string first;
  for (size_t i = 0; i < std::min<size_t>(wrong.size(), 10); ++i)
    first += "\n  " + wrong[i];
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " of " << walks << " walks failed:" << first;
}

}  // namespace
}  // namespace crux::constrain
