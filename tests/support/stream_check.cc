#include "support/stream_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "crux/base/utf8.h"
#include "crux/parse/chain.h"
#include "crux/protocol/tools.h"

namespace crux::testing {
namespace {

using Json = nlohmann::ordered_json;

std::optional<std::string> OptionalString(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<std::string>();
}

std::string Show(const std::optional<std::string>& s) {
  return s ? Json(*s).dump(-1, ' ', false, Json::error_handler_t::replace) : "null";
}

}  // namespace

std::string FixtureDir() {
  return CRUX_FIXTURE_DIR;
}

std::string CanonicalJson(const std::string& json) {
  Json parsed = Json::parse(json, nullptr, false);
  if (parsed.is_discarded()) return json;
  return parsed.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::vector<FixtureCase> LoadFixtureFile(const std::string& file) {
  const std::filesystem::path path(file);
  std::vector<FixtureCase> cases;
  {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    Json doc = Json::parse(ss.str(), nullptr, false);
    if (doc.is_discarded()) {
      ADD_FAILURE() << "fixture file is not valid JSON: " << path;
      return cases;
    }
    FixtureCase base;
    base.file = path.filename().string();
    base.reasoning_parser = doc.value("reasoning_parser", "");
    base.tool_parser = doc.value("tool_parser", "");
    if (doc.contains("tools")) base.tools_json = doc["tools"].dump();
    if (doc.contains("markers")) base.markers = doc["markers"].get<std::vector<std::string>>();
    for (const Json& c : doc["cases"]) {
      FixtureCase fc = base;
      fc.name = c.value("name", "");
      fc.input = c.at("input").get<std::string>();
      if (c.contains("reasoning_parser")) fc.reasoning_parser = c["reasoning_parser"];
      if (c.contains("tool_parser")) fc.tool_parser = c["tool_parser"];
      if (c.contains("tools")) fc.tools_json = c["tools"].dump();
      if (c.contains("options") && c["options"].contains("start_in_reasoning")) {
        fc.start_in_reasoning = c["options"]["start_in_reasoning"].get<bool>();
      }
      if (c.contains("options") && c["options"].contains("tool_call_promotion")) {
        fc.tool_call_promotion = c["options"]["tool_call_promotion"].get<bool>();
      }
      fc.reasoning = OptionalString(c, "reasoning");
      fc.content = OptionalString(c, "content");
      fc.check_calls = c.contains("tool_calls");
      // Raw markup the case expects in its output (a malformed call in the content, a nested
      // reasoning opener kept as reasoning text): the marker check is off for it.
      fc.markers_in_content =
          c.value("markers_in_content", false) || c.value("markers_in_reasoning", false);
      if (fc.markers_in_content) fc.markers.clear();
      if (fc.check_calls) {
        for (const Json& call : c["tool_calls"]) {
          fc.tool_calls.push_back({call.at("name").get<std::string>(), call.at("arguments").dump(),
                                   call.value("undeclared", false)});
        }
      }
      cases.push_back(std::move(fc));
    }
  }
  return cases;
}

std::unique_ptr<parse::StreamParser> MakeParser(const FixtureCase& fixture) {
  parse::ParserChainOptions chain;
  chain.reasoning_parser = fixture.reasoning_parser;
  chain.tool_parser = fixture.tool_parser;
  chain.reasoning.start_in_reasoning = fixture.start_in_reasoning;
  auto specs = protocol::DecodeToolSpecs(fixture.tools_json);
  if (!specs.ok()) {
    ADD_FAILURE() << specs.error().message();
    return nullptr;
  }
  chain.tools.tools = std::move(*specs);
  chain.tools.id_seed = 42;
  chain.tool_call_promotion = fixture.tool_call_promotion;
  auto created = parse::CreateOutputParser(chain);
  if (!created.ok()) {
    ADD_FAILURE() << created.error().message();
    return nullptr;
  }
  return std::move(*created);
}

ChunkedRun RunChunked(parse::StreamParser& parser, const std::vector<std::string>& chunks,
                      const std::vector<std::string>& markers, bool input_valid_utf8) {
  ChunkedRun run;
  parse::EventSink sink;
  parse::ResultBuilder builder;
  parser.Reset();
  auto check = [&](size_t delta) {
    for (const parse::Event& e : sink.events()) {
      // Argument fragments may hold marker text as JSON string data; only prose is checked.
      if (e.kind != parse::EventKind::kReasoning && e.kind != parse::EventKind::kContent) {
        if (e.kind == parse::EventKind::kToolCallArgs && run.violation.empty() &&
            input_valid_utf8 && !utf8::IsValid(e.text)) {
          run.violation = "delta " + std::to_string(delta) + ": argument text is not valid UTF-8";
        }
        continue;
      }
      for (const std::string& m : markers) {
        if (run.violation.empty() && e.text.find(m) != std::string::npos) {
          run.violation = "delta " + std::to_string(delta) + ": event " +
                          std::string(parse::EventKindName(e.kind)) + " contains marker " + m;
        }
      }
      if (run.violation.empty() && input_valid_utf8 && !utf8::IsValid(e.text)) {
        run.violation = "delta " + std::to_string(delta) + ": event text is not valid UTF-8";
      }
    }
    builder.AddAll(sink.events());
    sink.Clear();
  };
  for (size_t i = 0; i < chunks.size(); ++i) {
    parser.Feed(chunks[i], sink);
    check(i);
  }
  parser.Finish(sink);
  check(chunks.size());
  run.result = builder.Take();
  return run;
}

std::vector<std::string> CutAt(const std::string& text, const std::vector<size_t>& cuts) {
  std::vector<std::string> chunks;
  size_t prev = 0;
  for (size_t cut : cuts) {
    chunks.push_back(text.substr(prev, cut - prev));
    prev = cut;
  }
  chunks.push_back(text.substr(prev));
  return chunks;
}

std::string CompareResults(const parse::ParseResult& a, const parse::ParseResult& b) {
  std::string diff;
  if (a.reasoning != b.reasoning) {
    diff += "reasoning " + Show(a.reasoning) + " vs " + Show(b.reasoning) + "; ";
  }
  if (a.content != b.content) {
    diff += "content " + Show(a.content) + " vs " + Show(b.content) + "; ";
  }
  if (a.tool_calls.size() != b.tool_calls.size()) {
    diff += "tool call count " + std::to_string(a.tool_calls.size()) + " vs " +
            std::to_string(b.tool_calls.size()) + "; ";
  } else {
    for (size_t i = 0; i < a.tool_calls.size(); ++i) {
      const auto& x = a.tool_calls[i];
      const auto& y = b.tool_calls[i];
      if (!(x == y)) {
        diff += "call " + std::to_string(i) + ": " + x.id + " " + x.name + " " + x.arguments +
                " vs " + y.id + " " + y.name + " " + y.arguments + "; ";
      }
    }
  }
  return diff;
}

std::string CompareWithExpected(const parse::ParseResult& r, const FixtureCase& f) {
  std::string diff;
  if (r.reasoning != f.reasoning) {
    diff += "reasoning: got " + Show(r.reasoning) + ", want " + Show(f.reasoning) + "; ";
  }
  if (r.content != f.content) {
    diff += "content: got " + Show(r.content) + ", want " + Show(f.content) + "; ";
  }
  if (!f.check_calls) return diff;
  if (r.tool_calls.size() != f.tool_calls.size()) {
    diff += "tool calls: got " + std::to_string(r.tool_calls.size()) + ", want " +
            std::to_string(f.tool_calls.size()) + ";";
    for (const auto& c : r.tool_calls)
      diff += " [" + c.name + " " + c.arguments + "]";
    return diff;
  }
  for (size_t i = 0; i < r.tool_calls.size(); ++i) {
    const auto& got = r.tool_calls[i];
    const auto& want = f.tool_calls[i];
    if (got.name != want.name) {
      diff += "call " + std::to_string(i) + " name: got " + got.name + ", want " + want.name + "; ";
    }
    const Json parsed = Json::parse(got.arguments, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      diff +=
          "call " + std::to_string(i) + " arguments are not a JSON object: " + got.arguments + "; ";
    } else if (CanonicalJson(got.arguments) != CanonicalJson(want.arguments)) {
      diff += "call " + std::to_string(i) + " arguments: got " + got.arguments + ", want " +
              want.arguments + "; ";
    }
    if (got.id.empty()) diff += "call " + std::to_string(i) + " has no id; ";
    if (got.declared == want.undeclared) {
      diff += "call " + std::to_string(i) + (got.declared ? " should be" : " should not be") +
              " reported as undeclared; ";
    }
  }
  return diff;
}

std::string CheckEverySplit(const FixtureCase& fixture, int random_cuttings, uint64_t seed) {
  auto parser = MakeParser(fixture);
  if (!parser) return "cannot create parser";
  const std::string& text = fixture.input;
  const bool valid = utf8::IsValid(text);
  const ChunkedRun complete = RunChunked(*parser, {text}, fixture.markers, valid);
  if (!complete.violation.empty()) return "complete parse: " + complete.violation;
  auto compare = [&](const std::vector<size_t>& cuts, const std::string& label) -> std::string {
    const ChunkedRun run = RunChunked(*parser, CutAt(text, cuts), fixture.markers, valid);
    if (!run.violation.empty()) return label + ": " + run.violation;
    std::string diff = CompareResults(run.result, complete.result);
    return diff.empty() ? "" : label + ": streamed vs complete: " + diff;
  };
  for (size_t cut = 1; cut < text.size(); ++cut) {
    std::string failure = compare({cut}, "two-way cut at " + std::to_string(cut));
    if (!failure.empty()) return failure;
  }
  std::vector<size_t> every;
  for (size_t cut = 1; cut < text.size(); ++cut)
    every.push_back(cut);
  std::string failure = compare(every, "one byte per chunk");
  if (!failure.empty()) return failure;
  std::mt19937_64 rng(seed);
  for (int i = 0; i < random_cuttings && text.size() > 1; ++i) {
    std::vector<size_t> cuts;
    const size_t max_chunk = 1 + rng() % 12;
    for (size_t pos = 1 + rng() % max_chunk; pos < text.size(); pos += 1 + rng() % max_chunk) {
      cuts.push_back(pos);
    }
    failure = compare(cuts, "random cutting " + std::to_string(i));
    if (!failure.empty()) return failure;
  }
  return "";
}

}  // namespace crux::testing
