// Inputs the benchmarks share: where llama.cpp's tree is (tests/support), and the long
// conversation an agent resends every turn (bench/engine/compare.mjs sends the same one to `crux
// serve`).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "support/llama_cpp_dir.h"

namespace crux::bench {

using test_support::LlamaCppDir;

// The text of the conversation's i-th question and answer, about 1 KB each.
inline std::string Question(int i) {
  std::string text = "Question " + std::to_string(i) + ": ";
  for (int k = 0; k < 20; ++k)
    text += "Where do the ships go when the harbour closes? ";
  return text;
}
inline std::string Answer(int i) {
  std::string text = "Answer " + std::to_string(i) + ": ";
  for (int k = 0; k < 20; ++k)
    text += "They sail north along the coast to the next port. ";
  return text;
}

struct Message {
  std::string role, content;
};

// Question and answer turns until their text reaches `kb` KB, then the user turn "And then?".
inline std::vector<Message> LongConversation(size_t kb) {
  std::vector<Message> messages;
  size_t bytes = 0;
  for (int i = 0; bytes < kb * 1024; ++i) {
    messages.push_back({"user", Question(i)});
    messages.push_back({"assistant", Answer(i)});
    bytes += messages[messages.size() - 2].content.size() + messages.back().content.size();
  }
  messages.push_back({"user", "And then?"});
  return messages;
}

// The request before LongConversation(kb) in the same conversation: its turns up to
// `kb - new_kb` KB, then the same user turn.
inline std::vector<Message> PreviousRequest(size_t kb, size_t new_kb = 10) {
  std::vector<Message> messages = LongConversation(kb);
  const size_t earlier = LongConversation(kb > new_kb ? kb - new_kb : 0).size();
  messages.erase(messages.begin() + static_cast<std::ptrdiff_t>(earlier) - 1, messages.end() - 1);
  return messages;
}

}  // namespace crux::bench
