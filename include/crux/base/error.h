// Typed errors and Expected<T>: the result type of every boundary that can fail on input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace crux {

// Closed set of failure classes; the wire layer maps these to HTTP statuses.
enum class ErrorCode : uint8_t {
  kInvalidArgument,  // a request, flag or config value is malformed or out of range
  kNotFound,         // a named thing (parser, model, tool, file) does not exist
  kParse,            // text that should be JSON (or another format) does not parse
  kIo,               // reading or writing a file or socket failed
  kUnsupported,      // valid input asking for something crux does not do
  kLimit,            // a size or count limit was exceeded
  kCancelled,        // the caller cancelled the operation
  kUnauthenticated,  // missing or wrong credentials
  kUnavailable,      // the service cannot take the request now
  kInternal,         // a bug: an invariant did not hold
  kTimeout,          // a deadline passed before the work finished
};

// Stable lower-case name of a code ("invalid_argument").
std::string_view ErrorCodeName(ErrorCode code);

// An error with a message that names the offending field, flag or byte offset.
class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is prefixed with `context: `.
  Error WithContext(std::string_view context) const;
  // A stable machine-readable name of this particular failure ("model_not_found",
  // "previous_response_not_found"), which the wire layer reports as the error's code where the
  // protocol has one; "" when the code alone says enough.
  const std::string& tag() const { return tag_; }
  Error WithTag(std::string tag) const {
    Error copy = *this;
    copy.tag_ = std::move(tag);
    return copy;
  }

 private:
  ErrorCode code_;
  std::string message_;
  std::string tag_;
};

// Either a value or an Error. A minimal stand-in for C++23 std::expected.
template <typename T>
class Expected {
 public:
  Expected(T value) : state_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Expected(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result of an operation that returns nothing but can fail.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_{ErrorCode::kInternal, ""};
  bool ok_ = true;
};

}  // namespace crux
