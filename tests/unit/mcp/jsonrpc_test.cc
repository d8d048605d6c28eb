// The JSON-RPC codec: a table of lines, each decoded to its kind and re-encoded
// to its canonical line, or rejected with its code and a message naming the
// problem; encoders keep every message on one line.
#include "crux/mcp/jsonrpc.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace crux::mcp {
namespace {

enum class Kind { kRequest, kNotification, kResponse, kErrorResponse };

struct ValidCase {
  std::string_view line;
  Kind kind;
  std::string_view canonical;  // EncodeMessage of the decoded message; "" = the line itself
};

const std::vector<ValidCase> kValid = {
    {R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})", Kind::kRequest, ""},
    {R"({"id":"a-1","method":"ping","jsonrpc":"2.0"})", Kind::kRequest,
     R"({"jsonrpc":"2.0","id":"a-1","method":"ping"})"},
    {R"({"jsonrpc":"2.0","id":0,"method":"roots/list"})", Kind::kRequest, ""},
    {R"({"jsonrpc":"2.0","id":-7,"method":"x","params":[1,2]})", Kind::kRequest, ""},
    {R"({"jsonrpc":"2.0","id":9223372036854775807,"method":"x"})", Kind::kRequest, ""},
    {R"({"jsonrpc":"2.0","id":-9223372036854775808,"method":"x"})", Kind::kRequest, ""},
    {R"({"jsonrpc":"2.0","id":"1","method":"x","params":null})", Kind::kRequest,
     R"({"jsonrpc":"2.0","id":"1","method":"x"})"},
    {R"({"method":"notifications/initialized","jsonrpc":"2.0"})", Kind::kNotification,
     R"({"jsonrpc":"2.0","method":"notifications/initialized"})"},
    {R"({"method":"notifications/progress","params":{"progress":1,"total":2,"progressToken":3},"jsonrpc":"2.0"})",
     Kind::kNotification,
     R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"total":2,"progressToken":3}})"},
    {R"({"result":{"tools":[]},"jsonrpc":"2.0","id":2})", Kind::kResponse,
     R"({"jsonrpc":"2.0","id":2,"result":{"tools":[]}})"},
    {R"({"jsonrpc":"2.0","id":"s","result":null})", Kind::kResponse, ""},
    {R"({"jsonrpc":"2.0","id":5,"result":{},"extra":true,"_meta":{}})", Kind::kResponse,
     R"({"jsonrpc":"2.0","id":5,"result":{}})"},
    {"  \t{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"caf\xc3\xa9 "
     "\xf0\x9f\x8c\x8d\"}\r\n ",
     Kind::kResponse,
     "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":\"caf\xc3\xa9 "
     "\xf0\x9f\x8c\x8d\"}"},
    {R"({"jsonrpc":"2.0","id":10,"error":{"code":-32602,"message":"MCP error -32602: bad cursor"}})",
     Kind::kErrorResponse, ""},
    {R"({"error":{"message":"Unsupported","code":-32022,"data":{"supported":["2026-07-28"]}},"id":1,"jsonrpc":"2.0"})",
     Kind::kErrorResponse,
     R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported","data":{"supported":["2026-07-28"]}}})"},
    {R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})",
     Kind::kErrorResponse, ""},
    {R"({"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request","data":null}})",
     Kind::kErrorResponse,
     R"({"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request"}})"},
};

struct InvalidCase {
  std::string_view line;
  ErrorCode code;
  std::string_view message_part;
};

const std::vector<InvalidCase> kInvalid = {
    {"", ErrorCode::kParse, "invalid JSON at byte 0"},
    {"{", ErrorCode::kParse, "invalid JSON at byte 1"},
    {"not json", ErrorCode::kParse, "invalid JSON at byte 1"},
    {R"({"jsonrpc":"2.0","id":1,"method":"x"} {})", ErrorCode::kParse, "invalid JSON"},
    {"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\"}", ErrorCode::kParse, "invalid JSON"},
    {R"({"jsonrpc":"2.0","id":1,"result":1e999})", ErrorCode::kParse,
     "invalid JSON: number overflow parsing '1e999'"},
    {"[]", ErrorCode::kUnsupported, "batches"},
    {R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])", ErrorCode::kUnsupported, "batches"},
    {R"("hello")", ErrorCode::kInvalidArgument, "must be an object, got a string"},
    {"42", ErrorCode::kInvalidArgument, "must be an object, got a number"},
    {"null", ErrorCode::kInvalidArgument, "must be an object, got null"},
    {R"({"id":1,"method":"ping"})", ErrorCode::kInvalidArgument, R"(missing "jsonrpc": "2.0")"},
    {R"({"jsonrpc":"1.0","id":1,"method":"ping"})", ErrorCode::kInvalidArgument,
     R"(jsonrpc must be "2.0", got "1.0")"},
    {R"({"jsonrpc":2.0,"id":1,"method":"ping"})", ErrorCode::kInvalidArgument,
     R"(jsonrpc must be "2.0", got 2.0)"},
    {R"({"jsonrpc":"2.0","id":1,"method":7})", ErrorCode::kInvalidArgument,
     "method must be a string, got a number"},
    {R"({"jsonrpc":"2.0","id":1,"method":""})", ErrorCode::kInvalidArgument,
     "method must not be empty"},
    {R"({"jsonrpc":"2.0","id":1,"method":"x","result":{}})", ErrorCode::kInvalidArgument,
     "must not have result or error"},
    {R"({"jsonrpc":"2.0","id":1,"method":"x","params":"a"})", ErrorCode::kInvalidArgument,
     "params must be an object or an array, got a string"},
    {R"({"jsonrpc":"2.0","method":"x","params":3})", ErrorCode::kInvalidArgument,
     "params must be an object or an array, got a number"},
    {R"({"jsonrpc":"2.0","id":null,"method":"x"})", ErrorCode::kInvalidArgument,
     "request id must be a string or an integer, got null"},
    {R"({"jsonrpc":"2.0","id":1.5,"method":"x"})", ErrorCode::kInvalidArgument,
     "request id must be a string or an integer, got a fractional number"},
    {R"({"jsonrpc":"2.0","id":1.0,"method":"x"})", ErrorCode::kInvalidArgument,
     "got a fractional number"},
    {R"({"jsonrpc":"2.0","id":true,"method":"x"})", ErrorCode::kInvalidArgument, "got a boolean"},
    {R"({"jsonrpc":"2.0","id":{"a":1},"method":"x"})", ErrorCode::kInvalidArgument,
     "got an object"},
    {R"({"jsonrpc":"2.0","id":9223372036854775808,"method":"x"})", ErrorCode::kInvalidArgument,
     "request id 9223372036854775808 is out of range"},
    {R"({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}})",
     ErrorCode::kInvalidArgument, "must not have both result and error"},
    {R"({"jsonrpc":"2.0","id":1})", ErrorCode::kInvalidArgument, "has no method, result or error"},
    {R"({"jsonrpc":"2.0","result":{}})", ErrorCode::kInvalidArgument, "response has no id"},
    {R"({"jsonrpc":"2.0","id":null,"result":{}})", ErrorCode::kInvalidArgument,
     "response id must be a string or an integer, got null"},
    {R"({"jsonrpc":"2.0","id":[1],"error":{"code":1,"message":"m"}})", ErrorCode::kInvalidArgument,
     "response id must be a string or an integer, got an array"},
    {R"({"jsonrpc":"2.0","id":1,"error":"boom"})", ErrorCode::kInvalidArgument,
     "error must be an object, got a string"},
    {R"({"jsonrpc":"2.0","id":1,"error":{"message":"m"}})", ErrorCode::kInvalidArgument,
     "error.code must be an integer, got nothing"},
    {R"({"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"m"}})",
     ErrorCode::kInvalidArgument, "error.code must be an integer, got a string"},
    {R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601.5,"message":"m"}})",
     ErrorCode::kInvalidArgument, "error.code must be an integer, got a fractional number"},
    {R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601}})", ErrorCode::kInvalidArgument,
     "error.message must be a string, got nothing"},
    {R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":null}})",
     ErrorCode::kInvalidArgument, "error.message must be a string, got null"},
};

Kind KindOf(const Message& message) {
  return static_cast<Kind>(message.index());
}

TEST(JsonRpcDecode, ValidMessagesDecodeToTheirKindAndReencodeCanonically) {
  for (const ValidCase& c : kValid) {
    SCOPED_TRACE(c.line);
    auto message = DecodeMessage(c.line);
    ASSERT_TRUE(message.ok()) << message.error().message();
    EXPECT_EQ(KindOf(*message), c.kind);
    EXPECT_EQ(EncodeMessage(*message), c.canonical.empty() ? c.line : c.canonical);
    // The canonical form decodes to the same message.
    auto again = DecodeMessage(EncodeMessage(*message));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(EncodeMessage(*again), EncodeMessage(*message));
  }
}

TEST(JsonRpcDecode, MalformedMessagesAreRejectedWithTheirReason) {
  for (const InvalidCase& c : kInvalid) {
    SCOPED_TRACE(c.line);
    auto message = DecodeMessage(c.line);
    ASSERT_FALSE(message.ok());
    EXPECT_EQ(message.error().code(), c.code) << message.error().message();
    EXPECT_NE(message.error().message().find(c.message_part), std::string::npos)
        << message.error().message();
  }
}

TEST(JsonRpcDecode, IdsKeepTheirType) {
  auto number = DecodeMessage(R"({"jsonrpc":"2.0","id":1,"result":{}})");
  auto text = DecodeMessage(R"({"jsonrpc":"2.0","id":"1","result":{}})");
  ASSERT_TRUE(number.ok() && text.ok());
  const RequestId& number_id = std::get<Response>(*number).id;
  const RequestId& text_id = std::get<Response>(*text).id;
  EXPECT_EQ(number_id, RequestId(int64_t{1}));
  EXPECT_EQ(text_id, RequestId(std::string("1")));
  EXPECT_NE(number_id, text_id);
  EXPECT_EQ(RequestIdText(number_id), "1");
  EXPECT_EQ(RequestIdText(text_id), "\"1\"");
}

TEST(JsonRpcDecode, FieldsAreExposed) {
  auto error = DecodeMessage(
      R"({"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found","data":[1]}})");
  ASSERT_TRUE(error.ok());
  const auto& e = std::get<ErrorResponse>(*error);
  EXPECT_EQ(e.id, RequestId(std::string("x")));
  EXPECT_EQ(e.code, kMethodNotFound);
  EXPECT_EQ(e.message, "Method not found");
  ASSERT_TRUE(e.data.has_value());
  EXPECT_EQ(*e.data, Json::array({1}));

  auto request =
      DecodeMessage(R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}})");
  ASSERT_TRUE(request.ok());
  const auto& r = std::get<Request>(*request);
  EXPECT_EQ(r.method, "tools/call");
  ASSERT_TRUE(r.params.has_value());
  EXPECT_EQ((*r.params)["name"], "echo");
}

TEST(JsonRpcDecode, NestingIsBoundedBeforeParsing) {
  auto nested = [](int depth) {
    std::string line = R"({"jsonrpc":"2.0","id":1,"result":)";
    line += std::string(static_cast<size_t>(depth - 1), '[');
    line += std::string(static_cast<size_t>(depth - 1), ']');
    return line + "}";
  };
  EXPECT_TRUE(DecodeMessage(nested(kMaxJsonDepth)).ok());
  auto deep = DecodeMessage(nested(kMaxJsonDepth + 1));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().code(), ErrorCode::kLimit);
  EXPECT_NE(deep.error().message().find("deeper than 256"), std::string::npos);
  // Brackets inside strings do not count.
  std::string in_string =
      R"({"jsonrpc":"2.0","id":1,"result":")" + std::string(1000, '[') + R"(\"[["})";
  EXPECT_TRUE(DecodeMessage(in_string).ok());
  EXPECT_FALSE(DecodeMessage(std::string(100000, '[')).ok());
}

TEST(JsonRpcEncode, MessagesStayOnOneLine) {
  const std::string tricky = "line\nbreak\r\u2028 tab\t nul" + std::string(1, '\0') + " bad\xff";
  const Json params = {{"text", tricky}, {tricky, {tricky}}};
  const std::vector<std::string> lines = {
      EncodeRequest(int64_t{1}, "tools/call", params),
      EncodeRequest(std::string("id\n"), tricky, params),
      EncodeNotification(tricky, params),
      EncodeResponse(int64_t{2}, params),
      EncodeErrorResponse(std::nullopt, kInternalError, tricky, params),
  };
  for (const std::string& line : lines) {
    SCOPED_TRACE(line);
    EXPECT_EQ(line.find('\n'), std::string::npos);
    EXPECT_EQ(line.find('\r'), std::string::npos);
    auto decoded = DecodeMessage(line);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message();
    EXPECT_EQ(EncodeMessage(*decoded), line);
  }
  EXPECT_NE(lines[0].find("bad\xef\xbf\xbd"), std::string::npos);  // U+FFFD
}

TEST(JsonRpcEncode, ExactShapes) {
  EXPECT_EQ(
      EncodeRequest(int64_t{1}, "initialize", Json{{"protocolVersion", "2025-11-25"}}),
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
  EXPECT_EQ(EncodeNotification("notifications/initialized", nullptr),
            R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(EncodeResponse(int64_t{5}, Json::object()), R"({"jsonrpc":"2.0","id":5,"result":{}})");
  EXPECT_EQ(EncodeErrorResponse(RequestId(int64_t{0}), kMethodNotFound, "Method not found"),
            R"({"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}})");
}

}  // namespace
}  // namespace crux::mcp
