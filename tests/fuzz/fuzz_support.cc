#include "fuzz_support.h"

#include <cstdio>
#include <cstdlib>

#include "crux/parse/result.h"

namespace crux::fuzz {

bool SplitInput(const uint8_t* data, size_t size, FuzzInput& out) {
  if (size < 2) return false;
  out.selector = data[0];
  out.seed = data[1];
  out.text = std::string_view(reinterpret_cast<const char*>(data + 2), size - 2);
  return true;
}

bool SplitName(const uint8_t* data, size_t size, std::string_view& name, FuzzInput& input) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const size_t newline = bytes.find('\n');
  if (newline == std::string_view::npos) return false;
  name = bytes.substr(0, newline);
  return SplitInput(data + newline + 1, size - newline - 1, input);
}

std::vector<std::string_view> Chunk(std::string_view text, uint8_t seed) {
  std::vector<std::string_view> chunks;
  uint32_t state = seed * 2654435761u + 1;
  size_t pos = 0;
  while (pos < text.size()) {
    state = state * 1664525u + 1013904223u;
    const size_t max = (seed % 4 == 0) ? 1 : 1 + (seed % 16);
    const size_t len = 1 + (state >> 16) % max;
    chunks.push_back(text.substr(pos, len));
    pos += len;
  }
  return chunks;
}

parse::ParseResult Run(parse::StreamParser& parser, const std::vector<std::string_view>& chunks) {
  parse::EventSink sink;
  parse::ResultBuilder builder;
  parser.Reset();
  for (std::string_view chunk : chunks) {
    parser.Feed(chunk, sink);
    builder.AddAll(sink.events());
    sink.Clear();
  }
  parser.Finish(sink);
  builder.AddAll(sink.events());
  return builder.Take();
}

void CheckSame(const parse::ParseResult& streamed, const parse::ParseResult& complete) {
  if (!(streamed == complete)) {
    std::fprintf(stderr, "streamed result differs from the complete parse\n");
    std::abort();
  }
}

}  // namespace crux::fuzz
