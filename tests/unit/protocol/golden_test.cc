// Golden streams: each tests/golden/<api>/<case>.json holds a request body, the canonical
// events fed to the stream encoder, how the stream ends (a Completion or an error), the
// exact expected SSE events and the expected non-streaming body. The produced SSE text must
// equal the expected events framed byte for byte, the stream must pass the contract checker,
// and the body must match.
//
// Set CRUX_UPDATE_GOLDEN=1 to rewrite expected_stream / expected_body from the encoders
// (review the diff before committing it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "crux/protocol/codec.h"
#include "crux/protocol/response_store.h"
#include "unit/protocol/contract_check.h"

namespace crux::protocol {
namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

fs::path GoldenDir() {
  return fs::path(CRUX_FIXTURE_DIR).parent_path() / "golden";
}

Api ApiOfDir(const std::string& dir) {
  if (dir == "anthropic") return Api::kAnthropicMessages;
  if (dir == "responses") return Api::kResponses;
  return Api::kChatCompletions;
}

parse::FinishReason ReasonFromName(const std::string& name) {
  for (int i = 0; i < 6; ++i) {
    const auto reason = static_cast<parse::FinishReason>(i);
    if (parse::FinishReasonName(reason) == name) return reason;
  }
  ADD_FAILURE() << "unknown finish reason " << name;
  return parse::FinishReason::kStop;
}

ErrorCode CodeFromName(const std::string& name) {
  for (int i = 0; i < 10; ++i) {
    const auto code = static_cast<ErrorCode>(i);
    if (ErrorCodeName(code) == name) return code;
  }
  ADD_FAILURE() << "unknown error code " << name;
  return ErrorCode::kInternal;
}

parse::EventKind KindFromName(const std::string& name) {
  for (int i = 0; i < 6; ++i) {
    const auto kind = static_cast<parse::EventKind>(i);
    if (parse::EventKindName(kind) == name) return kind;
  }
  ADD_FAILURE() << "unknown event kind " << name;
  return parse::EventKind::kContent;
}

parse::Completion CompletionFromJson(const Json& j) {
  parse::Completion c;
  c.reason = ReasonFromName(j.value("reason", "stop"));
  c.stop_sequence = j.value("stop_sequence", "");
  const Json usage = j.value("usage", Json::object());
  c.usage.prompt_tokens = usage.value("prompt_tokens", 0);
  c.usage.completion_tokens = usage.value("completion_tokens", 0);
  c.usage.reasoning_tokens = usage.value("reasoning_tokens", 0);
  c.usage.cached_tokens = usage.value("cached_tokens", 0);
  return c;
}

// The SSE text of a list of expected events, framed as the encoders frame them.
std::string Frames(const Json& stream) {
  std::string out;
  for (const Json& e : stream) {
    if (e.contains("comment")) {
      out += ": " + e["comment"].get<std::string>() + "\n\n";
      continue;
    }
    if (e.contains("event")) out += "event: " + e["event"].get<std::string>() + "\n";
    const Json& data = e["data"];
    out += "data: " + (data.is_string() ? data.get<std::string>() : data.dump()) + "\n\n";
  }
  return out;
}

// The inverse of Frames, for rewriting a golden file.
Json ToExpected(const std::string& sse) {
  std::vector<std::string> violations;
  Json stream = Json::array();
  for (const testing::SseEvent& e : testing::ParseSse(sse, violations)) {
    Json entry = Json::object();
    if (e.comment) {
      entry["comment"] = "keep-alive";
    } else {
      if (!e.event.empty()) entry["event"] = e.event;
      entry["data"] = e.data == "[DONE]" ? Json(e.data) : Json::parse(e.data);
    }
    stream.push_back(std::move(entry));
  }
  return stream;
}

struct GoldenRun {
  std::string sse;
  std::string body;
  testing::StreamExpectation expect;
};

GoldenRun RunGolden(Api api, const Json& golden) {
  GoldenRun run;
  ResponseStore store;  // as crux serve has one: Responses requests are stored by default
  auto request = DecodeRequest(api, golden["request"].dump(), &store);
  EXPECT_TRUE(request.ok()) << (request.ok() ? "" : request.error().message());
  if (!request.ok()) return run;
  const Json& m = golden["meta"];
  ResponseMeta meta;
  meta.id = m["id"].get<std::string>();
  meta.created = m["created"].get<int64_t>();
  meta.model = m.value("model", "");
  meta.prompt_tokens = m.value("prompt_tokens", 0);
  meta.id_seed = m.value("id_seed", uint64_t{1});
  auto encoder = MakeStreamEncoder(*request, meta);
  if (!golden.value("skip_begin", false)) encoder->Begin(run.sse);
  parse::ResultBuilder builder;
  for (const Json& e : golden["events"]) {
    if (e["kind"] == "keep_alive") {
      run.sse += encoder->KeepAlive();
      continue;
    }
    parse::Event event;
    event.kind = KindFromName(e["kind"]);
    event.index = e.value("index", -1);
    event.text = e.value("text", "");
    event.id = e.value("id", "");
    event.name = e.value("name", "");
    encoder->Event(event, run.sse);
    builder.Add(event);
  }
  run.expect.result = builder.Take();
  run.expect.include_usage = request->include_usage;
  if (golden.contains("fail")) {
    const Json& f = golden["fail"];
    encoder->Fail(Error(CodeFromName(f["code"]), f["message"]), run.sse);
    run.expect.failed = true;
    return run;
  }
  run.expect.completion = CompletionFromJson(golden["end"]);
  encoder->End(run.expect.completion, run.sse);
  run.body = EncodeBody(*request, meta, run.expect.result, run.expect.completion);
  return run;
}

std::vector<std::string> GoldenFiles() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(GoldenDir())) {
    if (entry.path().extension() == ".json") {
      files.push_back(fs::relative(entry.path(), GoldenDir()).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines)
    out += line + "\n";
  return out;
}

class GoldenStream : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenStream, MatchesAndKeepsTheContract) {
  const fs::path path = GoldenDir() / GetParam();
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  Json golden = Json::parse(in);
  const Api api = ApiOfDir(fs::path(GetParam()).parent_path().string());
  GoldenRun run = RunGolden(api, golden);
  if (std::getenv("CRUX_UPDATE_GOLDEN") != nullptr) {
    golden["expected_stream"] = ToExpected(run.sse);
    if (!run.body.empty()) golden["expected_body"] = Json::parse(run.body);
    std::ofstream(path) << golden.dump(2) << "\n";
  }
  EXPECT_EQ(run.sse, Frames(golden["expected_stream"]));
  EXPECT_EQ(Join(testing::CheckStreamContract(api, run.sse, &run.expect)), "");
  if (run.body.empty()) return;
  // Compared as JSON: tool inputs are the model's argument text as written (whitespace kept).
  EXPECT_EQ(Json::parse(run.body), golden["expected_body"]) << run.body;
  EXPECT_EQ(Join(testing::CheckBodyContract(api, run.body, run.expect)), "");
}

std::string CaseName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - 5);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Protocols, GoldenStream, ::testing::ValuesIn(GoldenFiles()), CaseName);

}  // namespace
}  // namespace crux::protocol
