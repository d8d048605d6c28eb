// The Responses store: the responses a server created with `store` not false, kept in memory
// so that a later request can continue one (`previous_response_id`), refer to its items
// (`item_reference`), or fetch and delete it (`GET` / `DELETE /v1/responses/{id}`).
//
// Bounded two ways: each response lives at most `ttl` from its creation, and the bytes of all
// responses held stay under `max_bytes` (the oldest are evicted first). A response continued
// by a newer one is kept alive by it for that chain's sake, and its bytes still count, so the
// bound covers everything the store holds; once evicted it can no longer be fetched or named
// by id, only reached through the chain of a newer one.
//
// Thread-safe: every member may be called from any thread. Items are kept as JSON text, in
// the wire shape of the Responses API.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace crux::protocol {

struct ResponseStoreOptions {
  size_t max_bytes = 64u << 20;  // all stored responses together; 0 stores nothing
  std::chrono::seconds ttl{86400};
  // The clock (tests replace it).
  std::function<std::chrono::steady_clock::time_point()> now = std::chrono::steady_clock::now;
};

// One finished response as the store takes it.
struct StoredResponse {
  std::string id;             // resp_…
  std::string response_json;  // the Response object, as GET returns it
  std::string input_json;     // the array of input items it was given (references resolved)
  std::string previous_id;    // the response it continued ("" = none)
};

class ResponseStore {
 public:
  explicit ResponseStore(ResponseStoreOptions options = {});
  ~ResponseStore();
  ResponseStore(const ResponseStore&) = delete;
  ResponseStore& operator=(const ResponseStore&) = delete;

  // Keeps `response`; its output items (the Response's `output`) become referable by their
  // ids. Returns false when the store takes nothing (max_bytes 0, malformed JSON, or a
  // response larger than max_bytes on its own).
  bool Put(StoredResponse response);

  // The Response JSON of `id`; nullopt when unknown, expired or deleted.
  std::optional<std::string> Get(std::string_view id);

  // Forgets `id`; false when it was not held.
  bool Delete(std::string_view id);

  // The items of the conversation that `id` ends: for each response of its chain, oldest
  // first, its input items then its output items. nullopt when `id` is not held.
  std::optional<std::vector<std::string>> Conversation(std::string_view id);

  // The JSON of the item with `item_id` (an input or output item of a held response).
  std::optional<std::string> Item(std::string_view item_id);

  // Responses held by id, and the bytes counted against max_bytes.
  size_t size();
  size_t bytes();

  // False when max_bytes is 0: nothing is ever stored.
  bool enabled() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace crux::protocol
