// Internals of the contract checker shared by its per-protocol files.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "unit/protocol/contract_check.h"

namespace crux::testing::contract {

using Json = nlohmann::json;

// Collects violations, each prefixed with the event it was found at.
class Report {
 public:
  void At(int event, std::string type) {
    event_ = event;
    type_ = std::move(type);
  }
  void AtEnd() { At(-1, ""); }
  void Fail(const std::string& message);
  // Records `message` unless `ok`; returns `ok`.
  bool Expect(bool ok, const std::string& message) {
    if (!ok) Fail(message);
    return ok;
  }
  std::vector<std::string> Take() { return std::move(violations_); }

 private:
  int event_ = -1;
  std::string type_;
  std::vector<std::string> violations_;
};

// The member `key` of `object`, or a null value when `object` has none (never throws).
const Json& Get(const Json& object, const char* key);
bool IsInt(const Json& object, const char* key);
bool IsString(const Json& object, const char* key);
bool IsNonEmptyString(const Json& object, const char* key);
std::string Str(const Json& object, const char* key);
Json ArgsValue(const std::string& text);

// Compares the calls a client accumulated with the expected live calls.
void CompareCalls(const std::vector<parse::ToolCall>& got, const StreamExpectation& expect,
                  Report& report);
void CompareText(const std::string& what, const std::string& got,
                 const std::optional<std::string>& want, Report& report);

void CheckChat(const std::vector<SseEvent>& events, const StreamExpectation* expect,
               Report& report);
void CheckAnthropic(const std::vector<SseEvent>& events, const StreamExpectation* expect,
                    Report& report);
void CheckResponses(const std::vector<SseEvent>& events, const StreamExpectation* expect,
                    Report& report);

void CheckChatBody(const Json& body, const StreamExpectation& expect, Report& report);
void CheckAnthropicBody(const Json& body, const StreamExpectation& expect, Report& report);
void CheckResponsesBody(const Json& body, const StreamExpectation& expect, Report& report);

}  // namespace crux::testing::contract
