// Differential fuzzing of the incremental JSON scanner against nlohmann::json: for any bytes
// in any chunking, the scanner accepts exactly what a complete parser accepts.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "crux/text/json_scan.h"
#include "fuzz_support.h"

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
  // nlohmann rejects invalid UTF-8 inside strings; the scanner does not check UTF-8.
  const bool reference = nlohmann::json::accept(input.text);
  if (accepts != reference) {
    bool ascii = true;
    for (char c : input.text)
      ascii = ascii && static_cast<unsigned char>(c) < 0x80;
    if (ascii) std::abort();
  }
  return 0;
}
