#include "rap/util/memory_budget.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

namespace rap {

MemoryCharge& MemoryCharge::operator=(MemoryCharge&& o) noexcept {
  if (this != &o) {
    Release();
    budget_ = std::move(o.budget_);
    bytes_ = o.bytes_;
    o.budget_ = nullptr;
  }
  return *this;
}

void MemoryCharge::Release() {
  if (budget_) budget_->Release(bytes_);
  budget_.reset();
  bytes_ = 0;
}

uint64_t MemoryBudget::used() const {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

uint64_t MemoryBudget::peak() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

int64_t MemoryBudget::waits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waits_;
}

Status MemoryBudget::CheckFits(uint64_t bytes, const std::function<std::string()>& what) const {
  if (bytes <= limit_) return Status::OK();
  return Status::ResourceExhausted(
      fmt::format("{}: needs {} bytes, more than the memory budget of {} bytes", what(), bytes, limit_));
}

Result<MemoryCharge> MemoryBudget::Charge(uint64_t bytes, const std::function<std::string()>& what) {
  RAP_RETURN_NOT_OK(CheckFits(bytes, what));
  std::lock_guard<std::mutex> lock(mu_);
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return MemoryCharge(shared_from_this(), bytes);
}

MemoryCharge MemoryBudget::ForceCharge(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  return MemoryCharge(shared_from_this(), bytes);
}

bool MemoryBudget::TryCharge(uint64_t bytes, MemoryCharge* charge) {
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes > limit_ || used_ + bytes > limit_) return false;
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  *charge = MemoryCharge(shared_from_this(), bytes);
  return true;
}

void MemoryBudget::WaitForRoom(uint64_t bytes, const std::function<bool()>& stop_waiting) {
  std::unique_lock<std::mutex> lock(mu_);
  auto fits = [&] { return used_ + std::min(bytes, limit_) <= limit_; };
  if (fits()) return;
  ++waits_;
  while (!fits()) {
    lock.unlock();
    if (stop_waiting()) return;
    lock.lock();
    // stop_waiting() depends on state outside the budget, so the wait also times out to recheck it.
    cv_.wait_for(lock, std::chrono::milliseconds(5));
  }
}

void MemoryBudget::Release(uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    used_ -= std::min(used_, bytes);
  }
  cv_.notify_all();
}

}  // namespace rap
