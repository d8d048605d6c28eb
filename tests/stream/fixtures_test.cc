// Every fixture file: for each case, the complete parse matches the expectation, and the
// every-split property holds (all two-way cuts, random multi-way cuttings, one byte per chunk).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "support/stream_check.h"

namespace crux::testing {
namespace {

std::vector<std::string> FixtureFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(FixtureDir())) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") {
      files.push_back(std::filesystem::relative(entry.path(), FixtureDir()).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class FixtureFileTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::vector<FixtureCase> Cases() const {
    return LoadFixtureFile(FixtureDir() + "/" + GetParam());
  }
};

TEST_P(FixtureFileTest, CompleteParseMatchesExpectation) {
  const auto cases = Cases();
  ASSERT_FALSE(cases.empty());
  for (const FixtureCase& fixture : cases) {
    auto parser = MakeParser(fixture);
    ASSERT_NE(parser, nullptr);
    const parse::ParseResult result = parse::ParseComplete(*parser, fixture.input);
    EXPECT_EQ(CompareWithExpected(result, fixture), "") << "case: " << fixture.name;
  }
}

TEST_P(FixtureFileTest, EverySplitEqualsCompleteParse) {
  for (const FixtureCase& fixture : Cases()) {
    EXPECT_EQ(CheckEverySplit(fixture, /*random_cuttings=*/300, /*seed=*/7), "")
        << "case: " << fixture.name;
  }
}

std::string FileName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.rfind('.'));
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FixtureFileTest, ::testing::ValuesIn(FixtureFiles()), FileName);

}  // namespace
}  // namespace crux::testing
