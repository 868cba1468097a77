// LoserTree: a tournament tree over k sources that yields the source holding the smallest head.
// Each internal node keeps the loser of the match played there and the root keeps the overall
// winner, so replacing the winner's head (the caller advanced that source) replays only the matches
// on its leaf-to-root path: one call of `less` per tree level, ceil(log2 k) per replacement.
// Ties go to the lower source index (run order), which makes a merge of sorted runs stable.
//
// `less(a, b)` compares the current heads of sources a and b (both active). An exhausted source
// loses every match without a comparison. Typical use:
//   LoserTree<Less> t(k, less);
//   t.Build(active);                    // active[i]: source i has a head
//   while (t.top() >= 0) { consume(t.top()); t.Replace(advance(t.top())); }
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rap::read {

template <typename Less>
class LoserTree {
 public:
  LoserTree(size_t k, Less less) : k_(k), less_(std::move(less)), losers_(k, -1), active_(k, false) {}

  size_t size() const { return k_; }

  // (Re)plays every match; `active[i]` says whether source i has a head. O(k) comparisons.
  void Build(const std::vector<bool>& active) {
    for (size_t i = 0; i < k_; ++i) active_[i] = i < active.size() && active[i];
    if (k_ == 0) {
      winner_ = -1;
      return;
    }
    // winners[n] of the subtree rooted at n; leaves are nodes k..2k-1.
    std::vector<int64_t> winners(2 * k_);
    for (size_t i = 0; i < k_; ++i) winners[k_ + i] = static_cast<int64_t>(i);
    for (size_t n = k_ - 1; n >= 1; --n) {
      const int64_t a = winners[2 * n], b = winners[2 * n + 1];
      if (Beats(a, b)) {
        winners[n] = a;
        losers_[n] = b;
      } else {
        winners[n] = b;
        losers_[n] = a;
      }
    }
    winner_ = k_ == 1 ? 0 : winners[1];
  }

  // The source with the smallest head (lowest index among equal heads), or -1 when every source
  // is exhausted.
  int64_t top() const { return winner_ >= 0 && active_[static_cast<size_t>(winner_)] ? winner_ : -1; }

  // After the caller advanced top(): `still_active` says whether it has a new head. Replays the
  // matches on its path to the root.
  void Replace(bool still_active) {
    if (winner_ < 0) return;
    active_[static_cast<size_t>(winner_)] = still_active;
    int64_t s = winner_;
    for (size_t n = (static_cast<size_t>(s) + k_) / 2; n >= 1; n /= 2) {
      if (Beats(losers_[n], s)) std::swap(losers_[n], s);
    }
    winner_ = s;
  }

 private:
  // Whether source a comes before source b: one comparison when both are active.
  bool Beats(int64_t a, int64_t b) {
    const bool aa = active_[static_cast<size_t>(a)], ba = active_[static_cast<size_t>(b)];
    if (!aa || !ba) return aa || (!ba && a < b);
    return a < b ? !less_(static_cast<size_t>(b), static_cast<size_t>(a)) : less_(static_cast<size_t>(a), static_cast<size_t>(b));
  }

  size_t k_;
  Less less_;
  std::vector<int64_t> losers_;  // node 1..k-1: the loser of the match there
  std::vector<bool> active_;
  int64_t winner_ = -1;
};

}  // namespace rap::read
