// Test support: fixtures of model output and the every-split property.
//
// A fixture file (tests/fixtures/**.json) holds cases for one parser configuration:
//   {"reasoning_parser": "qwen3", "tool_parser": "hermes", "tools": [...],
//    "markers": ["<think>", "</think>"],
//    "cases": [{"name": ..., "input": ...,
//               "options": {"start_in_reasoning": true, "tool_call_promotion": false},
//               "reasoning": ..., "content": ..., "tool_calls": [{"name": ..., "arguments":
//               {...}}]}]}
// A case may override "reasoning_parser", "tool_parser" and "tools".
// `markers` lists strings that must never appear inside an event's text.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "crux/parse/parser.h"
#include "crux/parse/result.h"

namespace crux::testing {

struct ExpectedCall {
  std::string name;
  std::string arguments;    // canonical JSON (parsed and dumped) for comparison
  bool undeclared = false;  // the name is not among the case's tools
};

struct FixtureCase {
  std::string file;
  std::string name;
  std::string reasoning_parser;
  std::string tool_parser;
  std::string tools_json = "[]";
  std::vector<std::string> markers;
  std::optional<bool> start_in_reasoning;
  bool tool_call_promotion = true;  // as the server's default (--no-tool-call-promotion)
  std::string input;
  std::optional<std::string> reasoning;
  std::optional<std::string> content;
  std::vector<ExpectedCall> tool_calls;
  bool check_calls = true;          // false when the case has no "tool_calls" key
  bool markers_in_content = false;  // the case expects raw markup as content (malformed call)
};

// Reads the cases of one fixture file; a malformed file fails the current test.
std::vector<FixtureCase> LoadFixtureFile(const std::string& path);

// Creates the parser chain a case describes, as the server does (CreateOutputParser; fixed id
// seed).
std::unique_ptr<parse::StreamParser> MakeParser(const FixtureCase& fixture);

// Feeds `chunks` to `parser` (after Reset) and accumulates the events. Returns a message
// describing the first violated per-event rule (a marker inside an event, invalid UTF-8 in
// an event when the input is valid), or an empty string.
struct ChunkedRun {
  parse::ParseResult result;
  std::string violation;
};
ChunkedRun RunChunked(parse::StreamParser& parser, const std::vector<std::string>& chunks,
                      const std::vector<std::string>& markers, bool input_valid_utf8);

// Cuts `text` at the given byte offsets (sorted, unique, within (0, size)).
std::vector<std::string> CutAt(const std::string& text, const std::vector<size_t>& cuts);

// Canonical JSON text of `json` (parsed and re-dumped), or the text itself if invalid.
std::string CanonicalJson(const std::string& json);

// Compares a result with a case's expectations; returns a description of the difference.
std::string CompareWithExpected(const parse::ParseResult& result, const FixtureCase& fixture);

// Describes a difference between two results (streamed vs complete), or "".
std::string CompareResults(const parse::ParseResult& streamed, const parse::ParseResult& complete);

// Runs the every-split property for one case: all two-way cuts, `random_cuttings` random
// multi-way cuttings (seeded), and one byte per chunk. Returns the first failure or "".
std::string CheckEverySplit(const FixtureCase& fixture, int random_cuttings, uint64_t seed);

// Path of the fixture directory (set by CMake).
std::string FixtureDir();

}  // namespace crux::testing
