// rap-test-labels: concurrent
// MemoryBudget: a unit larger than the limit is ResourceExhausted naming it; Charge never waits
// (counted over the limit); TryCharge only when it fits; WaitForRoom returns when a release makes
// room or when its stop predicate turns true; charges release on destruction and keep the budget alive.
#include "rap/util/memory_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace rap {
namespace {

TEST(MemoryBudget, UnitLargerThanTheLimitIsResourceExhausted) {
  auto b = std::make_shared<MemoryBudget>(1000);
  auto c = b->Charge(1001, [] { return std::string("f.parquet: column 'x' page at offset 4"); });
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().Is(StatusCode::kResourceExhausted));
  EXPECT_EQ(c.status().message(),
            "f.parquet: column 'x' page at offset 4: needs 1001 bytes, more than the memory budget of 1000 bytes");
  EXPECT_EQ(b->used(), 0u);
}

TEST(MemoryBudget, ChargeNeverWaitsAndReleasesOnDestruction) {
  auto b = std::make_shared<MemoryBudget>(1000);
  {
    auto c1 = b->Charge(800, [] { return std::string("a"); });
    auto c2 = b->Charge(800, [] { return std::string("b"); });  // over the limit: counted, not refused
    ASSERT_TRUE(c1.ok() && c2.ok());
    EXPECT_EQ(b->used(), 1600u);
    MemoryCharge none;
    EXPECT_FALSE(b->TryCharge(1, &none));  // optional work does not fit now
    EXPECT_EQ(none.bytes(), 0u);
  }
  EXPECT_EQ(b->used(), 0u);
  EXPECT_EQ(b->peak(), 1600u);
  MemoryCharge t;
  EXPECT_TRUE(b->TryCharge(1000, &t));
  EXPECT_EQ(t.bytes(), 1000u);
  t.Release();
  EXPECT_EQ(b->used(), 0u);
}

TEST(MemoryBudget, ChargeKeepsTheBudgetAlive) {
  MemoryCharge c;
  {
    auto b = std::make_shared<MemoryBudget>(10);
    c = b->ForceCharge(50);
  }
  EXPECT_EQ(c.bytes(), 50u);
  c.Release();  // no use after free (ASan)
}

TEST(MemoryBudget, WaitForRoomReturnsOnReleaseOrStop) {
  auto b = std::make_shared<MemoryBudget>(100);
  MemoryCharge held = b->ForceCharge(100);
  std::atomic<bool> returned{false};
  std::thread waiter([&] {
    b->WaitForRoom(50, [] { return false; });
    returned = true;
  });
  held.Release();
  waiter.join();
  EXPECT_TRUE(returned.load());
  EXPECT_EQ(b->waits() >= 0, true);

  held = b->ForceCharge(100);
  std::atomic<bool> stop{false};
  std::thread stopped([&] { b->WaitForRoom(50, [&] { return stop.load(); }); });
  stop = true;
  stopped.join();  // returns although nothing was released
  EXPECT_EQ(b->used(), 100u);
  b->WaitForRoom(0, [] { return false; });  // nothing to fit: no wait
}

}  // namespace
}  // namespace rap
