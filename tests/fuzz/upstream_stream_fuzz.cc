// An upstream engine's completion stream, as the upstream engine reads it: SSE framing, then
// each `data:` payload through ReadChunk, and an error body through ErrorMessageOf. No crash,
// no sanitizer report; every rejection carries a message; the events do not depend on where
// the bytes were split (the first byte picks the split); a quoted error stays short.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "crux/text/http.h"
#include "engine/upstream/wire.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

std::vector<std::string> Events(std::string_view bytes, size_t split) {
  std::vector<std::string> events;
  crux::text::SseParser parser(4096, [&](std::string_view type, std::string_view data) {
    events.push_back(std::string(type) + "\n" + std::string(data));
    auto chunk = crux::engine::upstream::ReadChunk(data);
    if (!chunk.ok()) Check(!chunk.error().message().empty());
  });
  split = std::min(split, bytes.size());
  if (!parser.Feed(bytes.substr(0, split)).ok()) return events;
  if (!parser.Feed(bytes.substr(split)).ok()) events.push_back("<limit>");
  return events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::vector<std::string> whole = Events(bytes, bytes.size());
  const std::vector<std::string> split = Events(bytes, data[0] % (bytes.size() + 1));
  // A stream cut where the limit hit may end differently; before that, the events agree.
  if (whole.empty() || whole.back() != "<limit>") {
    if (split.empty() || split.back() != "<limit>") Check(whole == split);
  }
  Check(crux::engine::upstream::ErrorMessageOf(bytes).size() <= 610);
  return 0;
}
