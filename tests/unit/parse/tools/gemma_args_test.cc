// Gemma's literal-dict arguments converted to JSON: well-formed input gives a JSON object;
// anything after a value that is neither a comma nor its container's closer is an error,
// never a byte copied into the JSON.
#include "parse/tools/gemma_args.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace crux::parse::tools {
namespace {

struct Converted {
  text::FeedStatus status;
  std::string json;
};

Converted Convert(std::string_view text) {
  static const text::MarkerSet quote{"<|\"|>"};
  GemmaArgs args(quote);
  Converted c;
  size_t consumed = 0;
  c.status = args.Feed(text, true, consumed, c.json);
  return c;
}

TEST(GemmaArgs, ConvertsNestedValues) {
  const Converted c =
      Convert(R"({opts:{level:3,tags:[<|"|>a<|"|>,<|"|>b<|"|>]},ratio:-2.5e3,note:hi there})");
  ASSERT_EQ(c.status, text::FeedStatus::kDone) << c.json;
  const auto json = nlohmann::json::parse(c.json);
  EXPECT_EQ(json["opts"]["tags"][1], "b");
  EXPECT_EQ(json["ratio"], -2500.0);
  EXPECT_EQ(json["note"], "hi there");
}

TEST(GemmaArgs, ABareByteAfterAValueIsAnError) {
  for (const char* text :
       {R"({tags:[<|"|>b<|"|>Y]})", R"({a:<|"|>b<|"|>Y})", R"({a:[1}})", R"({a:{b:1]})"}) {
    const Converted c = Convert(text);
    EXPECT_EQ(c.status, text::FeedStatus::kError) << text << " gave " << c.json;
  }
}

}  // namespace
}  // namespace crux::parse::tools
