// The handler threads of `rap serve` (src/server/worker_pool.h).
#include "server/worker_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "rap/util/allocator.h"

namespace rap::server {

void WorkerPool::Start(int workers, int nice) {
  for (int i = 0; i < std::max(1, workers); ++i) slots_.push_back(std::make_unique<Slot>());
  for (auto& slot : slots_) {
    threads_.emplace_back([this, w = slot.get(), nice] {
      UseOwnMallocArena();  // as the io loops (the LIFO stack keeps most workers idle: their arenas stay empty)
      WorkerLoop(w, nice);
    });
  }
}

void WorkerPool::Submit(std::function<void()> task) {
  Slot* w = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_.empty()) {
      queue_.push_back(std::move(task));
      return;
    }
    w = idle_.back();
    idle_.pop_back();
    w->task = std::move(task);
  }
  w->cv.notify_one();
}

void WorkerPool::WorkerLoop(Slot* w, int nice) {
  // Workers run CPU-bound handlers; at a lower priority than the io threads (nice +5 for this
  // thread only, Linux) a busy pool cannot starve the network loop that parses every request and
  // writes every response. Failure (e.g. a restricted container) only loses that preference.
  if (nice > 0) {
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), getpriority(PRIO_PROCESS, 0) + nice);
  }
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    if (stop_) return;
    std::function<void()> task;
    if (w->task) {
      task = std::move(w->task);
      w->task = nullptr;
    } else if (!queue_.empty()) {
      task = std::move(queue_.front());
      queue_.pop_front();
    } else {
      idle_.push_back(w);
      w->cv.wait(lock, [&] { return stop_ || w->task != nullptr; });
      continue;
    }
    lock.unlock();
    task();
    task = nullptr;  // release what the task holds before waiting again
    lock.lock();
  }
}

void WorkerPool::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  for (auto& slot : slots_) slot->cv.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  queue_.clear();
}

}  // namespace rap::server
