// UninitVector<T>: a std::vector whose resize() leaves new trivially-constructible elements
// uninitialised instead of zeroing them. Decoders size a buffer and then overwrite every element
// (dictionary gathers, decompressed levels, offsets); the zero fill of std::vector was 4–6 % of a
// scan's CPU time (bench_decode, DuckDB-written 4-column files). Use it only where every element
// is written before it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace rap {

template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  using value_type = T;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  // Value-construction without arguments is default-initialisation (no zeroing for trivial T).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T, class U>
bool operator==(const DefaultInitAllocator<T>&, const DefaultInitAllocator<U>&) noexcept {
  return true;
}

template <class T>
using UninitVector = std::vector<T, DefaultInitAllocator<T>>;

using ByteVector = UninitVector<uint8_t>;

}  // namespace rap
