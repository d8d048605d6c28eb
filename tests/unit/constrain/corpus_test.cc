// The compiler and the validator over JSONSchemaBench's maskbench split (real schemas from
// function-calling and API datasets, each with valid and invalid instances), from ../shared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "crux/constrain/schema_ir.h"
#include "crux/constrain/validate.h"
#include "test_data.h"

namespace crux::constrain {
namespace {

namespace fs = std::filesystem;

// Measured when this test was written: 7849 of 7850 schemas compile (99.99%); the one left has
// a 5 KB pattern (over kMaxPatternBytes). Of the instances, 8993 of 9001 valid ones are
// accepted (the 8 others: a keyword not enforced inside a oneOf branch, one of them a pattern
// with `\b`) and 13048 of 13195 invalid ones rejected (the 147 others: a keyword not enforced).
// CRUX_CORPUS_STATS=1 prints the figures.
constexpr double kMinCompiledShare = 0.99;

struct Tally {
  size_t files = 0;
  size_t compiled = 0;
  size_t valid_accepted = 0;
  size_t invalid_rejected = 0;
  size_t invalid_not_enforced = 0;
  size_t valid_not_enforced = 0;
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
  ++tally.compiled;
  size_t index = 0;
  for (const auto& test : doc.value("tests", nlohmann::json::array())) {
    const bool expected = test.value("valid", false);
    const ValidationResult result = Validate(*ir, test["data"].dump());
    if (expected && result.valid()) ++tally.valid_accepted;
    if (!expected && !result.valid()) ++tally.invalid_rejected;
    if (!expected && result.valid() && !ir->not_enforced.empty()) ++tally.invalid_not_enforced;
    // A keyword not enforced inside a oneOf branch makes that branch more permissive, so a
    // valid instance can match two branches: not counted as wrong when the schema says so.
    const bool excused =
        !ir->not_enforced.empty() && !result.valid() && result.violations[0].keyword == "oneOf";
    if (expected && excused) ++tally.valid_not_enforced;
    const bool wrong =
        expected ? !result.valid() && !excused : result.valid() && ir->not_enforced.empty();
    if (wrong) {
      tally.wrong.push_back(path.filename().string() + " test " + std::to_string(index) +
                            (expected ? " rejected: " + result.violations[0].json_pointer + " " +
                                            result.violations[0].keyword + " " +
                                            result.violations[0].message
                                      : " accepted"));
    }
    ++index;
  }
}

TEST(CorpusTest, MaskbenchSchemas) {
  const fs::path dir = test_data::MaskbenchDir();
  if (!fs::is_directory(dir)) GTEST_SKIP() << "no corpus at " << dir;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  Tally tally;
  for (const fs::path& path : paths)
    CheckFile(path, tally);
  ASSERT_GT(tally.files, 0u);
  const double share = static_cast<double>(tally.compiled) / static_cast<double>(tally.files);
  EXPECT_GE(share, kMinCompiledShare) << tally.compiled << " of " << tally.files << " compiled";
  std::string first;
  for (size_t i = 0; i < std::min<size_t>(tally.wrong.size(), 10); ++i) {
    first += "\n  " + tally.wrong[i];
  }
  EXPECT_TRUE(tally.wrong.empty()) << tally.wrong.size() << " wrong results:" << first;
  if (std::getenv("CRUX_CORPUS_STATS") != nullptr) {
    std::printf(
        "files %zu compiled %zu valid accepted %zu invalid rejected %zu invalid accepted "
        "(not enforced) %zu valid rejected (oneOf, not enforced) %zu wrong %zu\n",
        tally.files, tally.compiled, tally.valid_accepted, tally.invalid_rejected,
        tally.invalid_not_enforced, tally.valid_not_enforced, tally.wrong.size());
    for (const std::string& failure : tally.not_compiled)
      std::printf("  %s\n", failure.c_str());
  }
}

}  // namespace
}  // namespace crux::constrain
