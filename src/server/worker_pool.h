// WorkerPool: the fixed pool of threads that run `rap serve`'s request handlers (HttpServer).
// Idle workers wait on their own condition variable in a LIFO stack, and a task goes to the most
// recently idle one: under load a few hot workers (warm caches, no scheduler churn) take the
// requests instead of all of them in turn, which halved the server's CPU per lookup at 32 workers
// (docs/benchmarks/serve.md). Tasks queue only when every worker is busy. Workers run at a lower
// priority than the io threads (`nice`), each with its own malloc arena.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace rap::server {

class WorkerPool {
 public:
  WorkerPool() = default;
  ~WorkerPool() { Stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Starts `workers` threads (at least one), `nice` steps nicer than the caller (0: same priority).
  void Start(int workers, int nice);
  // Runs `task` on the most recently idle worker, or queues it when every worker is busy.
  void Submit(std::function<void()> task);
  // Lets every worker finish its task, joins them and drops the tasks still queued.
  void Stop();

 private:
  struct Slot {
    std::condition_variable cv;
    std::function<void()> task;  // handed over by Submit
  };
  void WorkerLoop(Slot* w, int nice);

  std::mutex mu_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> idle_;  // back = most recently idle
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace rap::server
