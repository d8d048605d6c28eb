#include "server/update_queue.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <string>

namespace crux::server {
namespace {

engine::GenerationUpdate Text(size_t bytes) {
  engine::GenerationUpdate u;
  u.text = std::string(bytes, 'x');
  u.tokens = 1;
  return u;
}

std::vector<engine::GenerationUpdate> Drained(UpdateQueue& q) {
  std::vector<engine::GenerationUpdate> out;
  q.Drain(out);
  return out;
}

// At the limit the queue stops accepting (the engine pauses the generation); draining makes
// room again.
TEST(UpdateQueue, AcceptingFollowsTheLimit) {
  boost::asio::io_context ioc;
  auto q = std::make_shared<UpdateQueue>(ioc.get_executor(), 1000);
  EXPECT_TRUE(q->Accepting());
  q->OnUpdate(Text(1000));
  EXPECT_FALSE(q->Accepting());
  EXPECT_FALSE(q->overflowed());
  EXPECT_EQ(Drained(*q).size(), 1u);
  EXPECT_TRUE(q->Accepting());
  q->Hold(999);
  EXPECT_TRUE(q->Accepting());
  q->Hold(1000);
  EXPECT_FALSE(q->Accepting());
  q->Hold(0);
  EXPECT_TRUE(q->Accepting());
}

// An engine that keeps delivering while a write is blocked overflows the queue at twice the
// limit: the handler runs on the strand and the queue keeps nothing more.
TEST(UpdateQueue, OverflowsAtTwiceTheLimitWhileAWriteIsBlocked) {
  boost::asio::io_context ioc;
  auto q = std::make_shared<UpdateQueue>(ioc.get_executor(), 1000);
  bool cut = false;
  q->SetOverflowHandler([&] { cut = true; });
  q->Hold(5000);  // an encoded write larger than the limit is no overflow by itself
  q->OnUpdate(Text(1000));
  EXPECT_FALSE(q->overflowed());
  q->OnUpdate(Text(1000));
  EXPECT_TRUE(q->overflowed());
  q->OnUpdate(Text(10));
  ioc.run();
  EXPECT_TRUE(cut);
  EXPECT_TRUE(Drained(*q).empty());
}

// Without a write in progress the server itself is behind, not the client: never a cut.
TEST(UpdateQueue, NoOverflowWithoutABlockedWrite) {
  boost::asio::io_context ioc;
  auto q = std::make_shared<UpdateQueue>(ioc.get_executor(), 100);
  for (int i = 0; i < 50; ++i)
    q->OnUpdate(Text(100));
  EXPECT_FALSE(q->overflowed());
  EXPECT_EQ(Drained(*q).size(), 50u);
}

TEST(UpdateQueue, ZeroLimitIsUnlimited) {
  boost::asio::io_context ioc;
  auto q = std::make_shared<UpdateQueue>(ioc.get_executor(), 0);
  q->Hold(1u << 30);
  q->OnUpdate(Text(1u << 20));
  EXPECT_TRUE(q->Accepting());
  EXPECT_FALSE(q->overflowed());
}

}  // namespace
}  // namespace crux::server
