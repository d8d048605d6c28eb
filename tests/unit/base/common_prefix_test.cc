#include "crux/base/common_prefix.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace crux {
namespace {

// Every position of the first difference, inside and across the compared blocks, and the
// shorter of two sequences as the whole prefix.
TEST(CommonPrefix, FindsTheFirstDifferenceAtEveryPosition) {
  std::string text(9000, ' ');
  for (size_t i = 0; i < text.size(); ++i)
    text[i] = static_cast<char>('a' + i % 26);
  EXPECT_EQ(CommonPrefixLength(text, text), text.size());
  EXPECT_EQ(CommonPrefixLength(text, text.substr(0, 5000)), 5000u);
  EXPECT_EQ(CommonPrefixLength("", text), 0u);
  for (size_t at : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{4097}, size_t{8191},
                    size_t{8192}, size_t{8999}}) {
    std::string other = text;
    other[at] = '!';
    EXPECT_EQ(CommonPrefixLength(text, other), at);
    EXPECT_EQ(CommonPrefixLength(other, text), at);
  }
}

TEST(CommonPrefix, ComparesTokenIds) {
  std::vector<int32_t> tokens(3000);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<int32_t>(i * 7);
  std::vector<int32_t> other = tokens;
  EXPECT_EQ(CommonPrefixLength<int32_t>(tokens, other), tokens.size());
  other[1500] = -1;
  EXPECT_EQ(CommonPrefixLength<int32_t>(tokens, other), 1500u);
  other.resize(1000);
  EXPECT_EQ(CommonPrefixLength<int32_t>(tokens, other), 1000u);
}

}  // namespace
}  // namespace crux
