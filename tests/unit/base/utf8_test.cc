#include "crux/base/utf8.h"

#include <gtest/gtest.h>

#include "crux/base/error.h"

namespace crux {
namespace {

TEST(Utf8, CompletePrefixHoldsAnUnfinishedCharacter) {
  const std::string snow = "\xE2\x98\x83";  // U+2603
  EXPECT_EQ(utf8::CompletePrefixLength("ab"), 2u);
  EXPECT_EQ(utf8::CompletePrefixLength("ab" + snow), 5u);
  EXPECT_EQ(utf8::CompletePrefixLength("ab" + snow.substr(0, 1)), 2u);
  EXPECT_EQ(utf8::CompletePrefixLength("ab" + snow.substr(0, 2)), 2u);
  const std::string emoji = "\xF0\x9F\xA4\x94";  // U+1F914
  EXPECT_EQ(utf8::CompletePrefixLength(emoji.substr(0, 3)), 0u);
  EXPECT_EQ(utf8::CompletePrefixLength(emoji), 4u);
}

TEST(Utf8, InvalidBytesAreNeverHeld) {
  EXPECT_EQ(utf8::CompletePrefixLength("a\xFF"), 2u);
  EXPECT_EQ(utf8::CompletePrefixLength("a\x80\x80\x80"), 4u);
}

TEST(Utf8, Validates) {
  EXPECT_TRUE(utf8::IsValid("h\xC3\xA9llo \xE2\x98\x83"));
  EXPECT_FALSE(utf8::IsValid("\xC3"));
  EXPECT_FALSE(utf8::IsValid("\xED\xA0\x80"));  // surrogate
  EXPECT_FALSE(utf8::IsValid("\xC0\xAF"));      // overlong
}

TEST(Utf8, AppendsCodePoints) {
  std::string out;
  utf8::AppendCodePoint(out, U'é');
  utf8::AppendCodePoint(out, 0x1F914);
  EXPECT_EQ(out, "\xC3\xA9\xF0\x9F\xA4\x94");
}

TEST(Error, CarriesCodeAndContext) {
  Expected<int> bad = Error(ErrorCode::kInvalidArgument, "max_tokens must be positive");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(bad.error().WithContext("request").message(), "request: max_tokens must be positive");
  EXPECT_EQ(ErrorCodeName(ErrorCode::kNotFound), "not_found");
  Expected<int> good = 3;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
}

}  // namespace
}  // namespace crux
