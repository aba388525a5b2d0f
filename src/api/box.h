// Box<T> and Lazy<T>: heap-held members that keep api structs small.
//
// Both are value types: copying copies the pointee, and operator== compares
// pointees, so structs holding them can default operator==.
//
//   Box<T>   an optional T on the heap (8 bytes instead of sizeof(std::optional<T>)).
//            Use for Go pointer fields to large structs that are usually unset,
//            e.g. DeviceCapacity.requestPolicy. Empty != engaged, as for optional.
//   Lazy<T>  a T that is always logically present but only allocated once written.
//            An unallocated Lazy<T> reads as T{} and compares equal to an
//            allocated one that holds T{}. Use to group rarely-set fields, e.g.
//            Device's gated fields.
#pragma once

#include <memory>
#include <utility>

namespace dra::api {

template <typename T>
class Box {
 public:
  Box() = default;
  Box(T value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  Box(const Box& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Box(Box&&) noexcept = default;
  Box& operator=(const Box& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Box& operator=(Box&&) noexcept = default;
  Box& operator=(T value) {
    ptr_ = std::make_unique<T>(std::move(value));
    return *this;
  }

  bool has_value() const { return ptr_ != nullptr; }
  explicit operator bool() const { return ptr_ != nullptr; }

  // REQUIRES: has_value().
  const T& value() const { return *ptr_; }
  T& value() { return *ptr_; }
  const T& operator*() const { return *ptr_; }
  T& operator*() { return *ptr_; }
  const T* operator->() const { return ptr_.get(); }
  T* operator->() { return ptr_.get(); }
  // nullptr when empty.
  const T* get() const { return ptr_.get(); }

  // Engages with T{} (or keeps the current value) and returns it.
  T& emplace() {
    if (!ptr_) ptr_ = std::make_unique<T>();
    return *ptr_;
  }
  void reset() { ptr_.reset(); }

  friend bool operator==(const Box& a, const Box& b) {
    if (!a.ptr_ || !b.ptr_) return !a.ptr_ && !b.ptr_;
    return *a.ptr_ == *b.ptr_;
  }

 private:
  std::unique_ptr<T> ptr_;
};

template <typename T>
class Lazy {
 public:
  Lazy() = default;
  Lazy(T value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  Lazy(const Lazy& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Lazy(Lazy&&) noexcept = default;
  Lazy& operator=(const Lazy& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Lazy& operator=(Lazy&&) noexcept = default;

  // Read access; a shared T{} when nothing was written.
  const T& get() const { return ptr_ ? *ptr_ : Default(); }
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }

  // Write access; allocates on first use.
  T& mut() {
    if (!ptr_) ptr_ = std::make_unique<T>();
    return *ptr_;
  }
  // True once something was written through mut() (the value may still be T{}).
  bool allocated() const { return ptr_ != nullptr; }
  void reset() { ptr_.reset(); }

  friend bool operator==(const Lazy& a, const Lazy& b) { return a.get() == b.get(); }

 private:
  static const T& Default() {
    static const T* empty = new T();
    return *empty;
  }
  std::unique_ptr<T> ptr_;
};

}  // namespace dra::api
