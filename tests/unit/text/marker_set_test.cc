#include "crux/text/marker_set.h"

#include <gtest/gtest.h>

#include "crux/text/ids.h"
#include "crux/text/stream_buffer.h"

namespace crux::text {
namespace {

TEST(MarkerSet, FindsEarliestMarker) {
  const MarkerSet set{"<think>", "</think>"};
  ScanResult r = set.Scan("abc</think>def<think>", false);
  EXPECT_EQ(r.status, ScanStatus::kFound);
  EXPECT_EQ(r.pos, 3u);
  EXPECT_EQ(r.id, 1);
  EXPECT_EQ(r.length, 8u);
}

TEST(MarkerSet, ReportsPartialMarkerAtEnd) {
  const MarkerSet set{"<think>", "</think>"};
  ScanResult r = set.Scan("hello </th", false);
  EXPECT_EQ(r.status, ScanStatus::kPartial);
  EXPECT_EQ(r.pos, 6u);
  r = set.Scan("hello </th", /*at_end=*/true);
  EXPECT_EQ(r.status, ScanStatus::kNone);
  EXPECT_EQ(r.pos, 10u);
}

TEST(MarkerSet, PlainAngleBracketsAreText) {
  const MarkerSet set{"<think>"};
  ScanResult r = set.Scan("a <b> c <thinking>", false);
  EXPECT_EQ(r.status, ScanStatus::kNone);
  EXPECT_EQ(r.pos, 18u);
}

TEST(MarkerSet, LongestMatchWinsAndWaitsForExtension) {
  const MarkerSet set{"<|channel>", "<|channel>response"};
  ScanResult r = set.Scan("x<|channel>resp", false);
  EXPECT_EQ(r.status, ScanStatus::kPartial);
  EXPECT_EQ(r.pos, 1u);
  r = set.Scan("x<|channel>response\n", false);
  EXPECT_EQ(r.status, ScanStatus::kFound);
  EXPECT_EQ(r.id, 1);
  r = set.Scan("x<|channel>thought", false);
  EXPECT_EQ(r.status, ScanStatus::kFound);
  EXPECT_EQ(r.id, 0);
  r = set.Scan("x<|channel>resp", true);
  EXPECT_EQ(r.status, ScanStatus::kFound);
  EXPECT_EQ(r.id, 0);
}

TEST(MarkerSet, EarlierPartialBeatsLaterCompleteMarker) {
  const MarkerSet set{"abcd", "c"};
  ScanResult r = set.Scan("abc", false);
  EXPECT_EQ(r.status, ScanStatus::kPartial);
  EXPECT_EQ(r.pos, 0u);
}

TEST(MarkerSet, MultiByteMarkers) {
  const MarkerSet set{
      "<\xEF\xBD\x9Ctool\xE2\x96\x81"
      "calls\xE2\x96\x81"
      "begin\xEF\xBD\x9C>"};
  ScanResult r = set.Scan("text <\xEF\xBD", false);
  EXPECT_EQ(r.status, ScanStatus::kPartial);
  EXPECT_EQ(r.pos, 5u);
}

TEST(MarkerSet, PartialSuffixLength) {
  const MarkerSet set{"<tool_call>", "[TOOL_CALLS]"};
  EXPECT_EQ(set.PartialSuffixLength("abc <tool_"), 6u);
  EXPECT_EQ(set.PartialSuffixLength("abc ["), 1u);
  EXPECT_EQ(set.PartialSuffixLength("abc"), 0u);
  EXPECT_EQ(set.PartialSuffixLength("<tool_call>"), 0u);
}

TEST(StreamBuffer, HoldsUnconsumedBytesAndUtf8Tail) {
  StreamBuffer buf;
  std::string_view v = buf.Take("ab\xE2\x98", false);
  EXPECT_EQ(v, "ab");
  buf.Keep(1);  // consumed "a"; "b" and the partial character are held
  v = buf.Take(
      "\x83"
      "c",
      false);
  EXPECT_EQ(v,
            "b\xE2\x98\x83"
            "c");
  buf.Keep(v.size());
  EXPECT_TRUE(buf.empty());
  v = buf.Take("\xE2", true);
  EXPECT_EQ(v, "\xE2");
}

TEST(TrimStream, TrimsBothEndsWithoutKnowingTheEnd) {
  TrimStream trim;
  std::string out;
  trim.Append("  \n", out);
  trim.Append(" hello ", out);
  EXPECT_EQ(out, "hello");
  trim.Append(" world\n", out);
  EXPECT_EQ(out, "hello  world");
  trim.Append("\n\n", out);
  EXPECT_EQ(out, "hello  world");
}

TEST(TrimStream, JoinsPartsWithSeparator) {
  TrimStream trim;
  std::string out;
  trim.StartPart("\n");
  trim.Append(" a ", out);
  trim.StartPart("\n");
  trim.Append("   ", out);
  trim.StartPart("\n");
  trim.Append(" b", out);
  EXPECT_EQ(out, "a\nb");
}

TEST(IdGenerator, DeterministicForASeed) {
  IdGenerator a(5), b(5);
  const std::string id = a.NextCallId();
  EXPECT_EQ(id, b.NextCallId());
  EXPECT_EQ(id.size(), 5u + 24u);
  EXPECT_EQ(id.rfind("call_", 0), 0u);
  EXPECT_NE(a.NextCallId(), id);
  for (char c : id.substr(5))
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)));
}

}  // namespace
}  // namespace crux::text
