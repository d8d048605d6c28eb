#include "crux/text/json_scan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace crux::text {
namespace {

// Feeds `text` in pieces of `piece` bytes; returns status and total consumed.
std::pair<JsonScanner::Status, size_t> ScanInPieces(const std::string& text, size_t piece) {
  JsonScanner scanner;
  size_t total = 0;
  for (size_t pos = 0; pos < text.size(); pos += piece) {
    size_t consumed = 0;
    const std::string chunk = text.substr(pos, piece);
    const auto st = scanner.Feed(chunk, consumed);
    total += consumed;
    if (st != JsonScanner::Status::kNeedMore) return {st, total};
  }
  return {scanner.Finish(), total};
}

bool NlohmannAccepts(const std::string& text) {
  return nlohmann::json::accept(text);
}

TEST(JsonScanner, AgreesWithAReferenceParser) {
  const std::vector<std::string> samples = {R"({})",
                                            R"([])",
                                            R"({"a": 1})",
                                            R"([1, 2, 3])",
                                            R"({"a": [true, false, null]})",
                                            R"("str\"ing\u00e9\n")",
                                            R"(-0.5e+10)",
                                            R"(0)",
                                            R"({"a":{"b":{"c":[{}]}}})",
                                            R"({"a" 1})",
                                            R"({"a": 01})",
                                            R"([1,])",
                                            R"({,})",
                                            R"({"a":1,})",
                                            R"([1 2])",
                                            R"("\x")",
                                            R"("\u12G4")",
                                            R"(tru)",
                                            R"(nul)",
                                            R"(-)",
                                            R"(1.)",
                                            R"(1e)",
                                            R"({"a":})",
                                            "\"raw\ncontrol\"",
                                            R"({"k": "v"}})",
                                            R"([[[[]]]])",
                                            R"({"a": -})",
                                            R"([-1.25E-3])",
                                            R"({"emoji": "🌍"})",
                                            R"(  {"spaced" :  [ 1 , 2 ] }  )",
                                            R"(])",
                                            R"(})",
                                            R"(:)",
                                            R"("\ud83c\udf0d")",
                                            R"("\ud83c")",
                                            R"("\udf0d")",
                                            R"("\ud83c\n")",
                                            R"("\ud83cx")",
                                            R"("\ud83c\ud83c")",
                                            R"("\ud83c\u0041")"};
  for (const std::string& s : samples) {
    for (size_t piece : {1u, 2u, 3u, 7u, 1000u}) {
      auto [st, consumed] = ScanInPieces(s, piece);
      const bool done = st == JsonScanner::Status::kDone;
      // The scanner stops after one value; a reference parse of the whole text also needs
      // nothing but whitespace after it.
      bool accepts = done;
      if (done) {
        for (size_t i = consumed; i < s.size(); ++i) {
          if (!std::isspace(static_cast<unsigned char>(s[i]))) accepts = false;
        }
      }
      EXPECT_EQ(accepts, NlohmannAccepts(s)) << s << " piece " << piece;
    }
  }
}

TEST(JsonScanner, StopsRightAfterTheValue) {
  JsonScanner scanner;
  size_t consumed = 0;
  EXPECT_EQ(scanner.Feed(R"({"a": "}"} trailing)", consumed), JsonScanner::Status::kDone);
  EXPECT_EQ(consumed, 10u);
  scanner.Reset();
  EXPECT_EQ(scanner.Feed("123,", consumed), JsonScanner::Status::kDone);
  EXPECT_EQ(consumed, 3u);
  scanner.Reset();
  EXPECT_EQ(scanner.Feed("123", consumed), JsonScanner::Status::kNeedMore);
  EXPECT_EQ(scanner.Finish(), JsonScanner::Status::kDone);
}

TEST(JsonScanner, RandomDocumentsInRandomPieces) {
  std::mt19937 rng(11);
  const std::string alphabet = "{}[]\",:0123456789.-+eEtrufalsn \\/u\nabc";
  int agreements = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const int len = 1 + static_cast<int>(rng() % 14);
    for (int k = 0; k < len; ++k)
      s.push_back(alphabet[rng() % alphabet.size()]);
    auto [st, consumed] = ScanInPieces(s, 1 + rng() % 4);
    bool accepts = st == JsonScanner::Status::kDone;
    if (accepts) {
      for (size_t j = consumed; j < s.size(); ++j) {
        if (!std::isspace(static_cast<unsigned char>(s[j]))) accepts = false;
      }
    }
    ASSERT_EQ(accepts, NlohmannAccepts(s)) << s;
    agreements += accepts;
  }
  EXPECT_GT(agreements, 0);
}

TEST(JsonEscape, EscapesAndDecodes) {
  std::string out;
  AppendJsonString(out, "a\"b\\c\nd\x01 é \xFF");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\u0001 é \xEF\xBF\xBD\"");
  std::string decoded;
  ASSERT_TRUE(DecodeJsonString(R"(a\"b\u00e9\ud83c\udf0d\n)", decoded));
  EXPECT_EQ(decoded, "a\"bé🌍\n");
  decoded.clear();
  EXPECT_FALSE(DecodeJsonString(R"(\q)", decoded));
}

}  // namespace
}  // namespace crux::text
