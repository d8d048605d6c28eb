// Value components of the tag-family engine: nullable string values and buffered values.
#include "parse/tools/tags_common.h"

#include <gtest/gtest.h>

#include <string>

namespace crux::parse::tools::tags {
namespace {

TEST(StringValue, NullableValueWaitsOnlyWhileItCanStillBeNull) {
  StringValue value;
  std::string out;
  value.Start(ValueTrim::kNone, /*nullable=*/true, out);
  EXPECT_EQ(out, "");
  value.Append(" nu", out);
  value.Append("l", out);
  EXPECT_EQ(out, "");  // still possibly null
  value.Append("ls", out);
  EXPECT_EQ(out, "\" nulls");  // the held text streams as soon as it cannot be null
  value.Append(" more", out);
  value.End(out);
  EXPECT_EQ(out, "\" nulls more\"");
}

TEST(StringValue, BareNullOfANullableValueIsNull) {
  StringValue value;
  std::string out;
  value.Start(ValueTrim::kStrip, /*nullable=*/true, out);
  value.Append("\nnull", out);
  value.Append(" \n", out);
  value.End(out);
  EXPECT_EQ(out, "null");
}

TEST(StringValue, NonNullableValueIsAlwaysAString) {
  StringValue value;
  std::string out;
  value.Start(ValueTrim::kNone, /*nullable=*/false, out);
  value.Append("null", out);
  value.End(out);
  EXPECT_EQ(out, "\"null\"");
  out.clear();
  value.Start(ValueTrim::kNone, /*nullable=*/true, out);
  value.Append("nul", out);
  value.End(out);
  EXPECT_EQ(out, "\"nul\"");
}

TEST(TypedValue, FallbackStringKeepsWhitespaceLikeAStringParameter) {
  const ValueRules verbatim{ValueTrim::kNone, Untyped::kJson};
  const ValueRules stripped{ValueTrim::kStrip, Untyped::kJson};
  EXPECT_EQ(TypedValue("  x = 1\n", {}, verbatim), "\"  x = 1\\n\"");
  EXPECT_EQ(TypedValue("  x = 1\n", {}, stripped), "\"x = 1\"");
  EXPECT_EQ(TypedValue(" [1, 2] ", {}, verbatim), "[1, 2]");
  EXPECT_EQ(TypedValue(" \"a b\" ", {}, verbatim), "\"a b\"");
  EXPECT_EQ(TypedValue(" 7 ", {ParamType::kInteger, false}, verbatim), "7");
  EXPECT_EQ(TypedValue(" null ", {ParamType::kInteger, true}, verbatim), "null");
  EXPECT_EQ(TypedValue("null", {ParamType::kString, false}, verbatim), "\"null\"");
}

}  // namespace
}  // namespace crux::parse::tools::tags
