// Differential fuzzing of the incremental JSON scanner against nlohmann::json: for any bytes
// in any chunking, the scanner accepts exactly what a complete parser accepts.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "crux/text/json_scan.h"
#include "fuzz_support.h"

namespace {

bool NumberOverflows(std::string_view text) {
  try {
    (void)nlohmann::json::parse(text);
  } catch (const nlohmann::json::out_of_range& e) {
    return e.id == 406;
  } catch (const nlohmann::json::exception&) {
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  crux::fuzz::FuzzInput input;
  if (!crux::fuzz::SplitInput(data, size, input)) return 0;
  crux::text::JsonScanner scanner;
  size_t total = 0;
  auto status = crux::text::JsonScanner::Status::kNeedMore;
  for (std::string_view chunk : crux::fuzz::Chunk(input.text, input.seed)) {
    size_t consumed = 0;
    status = scanner.Feed(chunk, consumed);
    total += consumed;
    if (status != crux::text::JsonScanner::Status::kNeedMore) break;
  }
  if (status == crux::text::JsonScanner::Status::kNeedMore) status = scanner.Finish();
  bool accepts = status == crux::text::JsonScanner::Status::kDone;
  if (accepts) {
    for (size_t i = total; i < input.text.size(); ++i) {
      const char c = input.text[i];
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') accepts = false;
    }
  }
  // nlohmann rejects invalid UTF-8 inside strings, which the scanner does not check, and reads
  // a NUL byte as the end of its input, where the scanner sees an invalid character; the
  // comparison covers inputs of printable ASCII and control characters other than NUL. A number
  // too large for a double (`1e999`) is valid JSON grammar, which the scanner follows, while
  // nlohmann reports an overflow.
  const bool reference = nlohmann::json::accept(input.text);
  if (accepts && !reference && NumberOverflows(input.text)) return 0;
  if (accepts != reference) {
    bool comparable = true;
    for (char c : input.text)
      comparable = comparable && c != '\0' && static_cast<unsigned char>(c) < 0x80;
    if (comparable) std::abort();
  }
  return 0;
}
