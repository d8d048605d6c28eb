// A decode step allocates nothing: once a matcher's buffers and its rollback history are warm,
// FillMask and AcceptToken run without touching the heap (counted by replacing operator new
// for this test binary; only this test reads the count).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "crux/constrain/matcher.h"
#include "crux/constrain/vocab.h"

namespace {
std::atomic<size_t> g_allocations{0};
// Called through a pointer: g++ would otherwise pair the inlined free with `new` at each call
// site and warn of a mismatch.
void (*volatile g_release)(void*) = std::free;
}  // namespace

// Every form of new and delete that pairs with malloc and free is replaced, so that a nothrow
// or array allocation is never freed by another allocator (AddressSanitizer checks the pair).
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept {
  return operator new(size, tag);
}
void operator delete(void* p) noexcept {
  g_release(p);
}
void operator delete[](void* p) noexcept {
  g_release(p);
}
void operator delete(void* p, std::size_t) noexcept {
  g_release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  g_release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  g_release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  g_release(p);
}

namespace crux::constrain {
namespace {

TEST(GrammarAllocation, DecodeStepsAllocateNothingOnceWarm) {
  std::vector<std::string> tokens;
  for (int c = 0; c < 128; ++c)
    tokens.push_back(std::string(1, static_cast<char>(c)));
  for (const char* piece : {"{\"", "\":", "\",\"", "12", "true", "\"x\"", ", ", "[{"})
    tokens.push_back(piece);
  std::vector<TokenKind> kinds(tokens.size(), TokenKind::kNormal);
  tokens.push_back("<eos>");
  kinds.push_back(TokenKind::kControl);
  auto vocabulary = std::make_shared<const Vocabulary>(
      Vocabulary::FromTokens(tokens, kinds, {static_cast<uint32_t>(tokens.size() - 1)}));
  auto ir = CompileSchema(
      R"({"type":"array","items":{"type":"object","properties":{"id":{"type":"integer","minimum":0},"name":{"type":"string","maxLength":8},"ok":{"type":"boolean"}},"required":["id","name"]}})");
  ASSERT_TRUE(ir.ok());
  auto grammar = CompiledGrammar::Compile(*ir, vocabulary);
  ASSERT_TRUE(grammar.ok());
  // 300 items of 12-token objects: the 512-step history wraps well before the end.
  std::string text = "[";
  for (int i = 0; i < 300; ++i)
    text += std::string(i > 0 ? "," : "") + R"({"id":12,"name":"x","ok":true})";
  text += "]";
  Matcher matcher(*grammar);
  std::vector<uint32_t> mask(vocabulary->mask_words());
  size_t measured_steps = 0;
  size_t allocations = 0;
  size_t mask_allocations = 0;
  for (size_t at = 0, step = 0; at < text.size(); ++step) {
    // The single-byte token of the next byte (ids 0..127 are the ASCII bytes).
    const auto token = static_cast<uint32_t>(static_cast<unsigned char>(text[at]));
    const bool measure = step >= 2000;
    const size_t before = g_allocations.load();
    matcher.FillMask(mask);
    const size_t after_mask = g_allocations.load();
    ASSERT_TRUE(matcher.AcceptToken(token)) << "at " << at;
    if (measure) {
      mask_allocations += after_mask - before;
      allocations += g_allocations.load() - before;
      ++measured_steps;
    }
    ++at;
  }
  EXPECT_GT(measured_steps, 3000u);
  EXPECT_EQ(mask_allocations, 0u) << "FillMask allocated in " << measured_steps << " warm steps";
  EXPECT_EQ(allocations, 0u) << "allocations in " << measured_steps << " warm steps";
}

}  // namespace
}  // namespace crux::constrain
