// rap-test-labels: concurrent
#include <gtest/gtest.h>

#include <atomic>

#include "rap/util/thread_pool.h"

namespace rap {
namespace {

TEST(ThreadPool, RunsEveryTaskBeforeDestruction) {
  std::atomic<int> sum{0};
  {
    ThreadPool pool(3);
    for (int i = 1; i <= 1000; ++i) pool.Submit([&sum, i] { sum += i; });
  }
  EXPECT_EQ(sum.load(), 500500);
}

}  // namespace
}  // namespace rap
