// Lock-free single-producer single-consumer ring that carries samples between an audio callback
// thread and the engine thread. All memory is allocated in the constructor, so the callback side
// never allocates, locks or blocks.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <memory>
#include <span>

namespace onionvoice::media {

template <typename T> class SpscRing {
public:
    // The capacity is rounded up to a power of two so indices wrap with a mask.
    explicit SpscRing(std::size_t minCapacity)
        : m_capacity(std::bit_ceil(std::max<std::size_t>(minCapacity, 2)))
        , m_mask(m_capacity - 1)
        , m_buffer(std::make_unique<T[]>(m_capacity)) {}
    SpscRing(const SpscRing&) = delete;
    SpscRing& operator=(const SpscRing&) = delete;

    std::size_t capacity() const { return m_capacity; }

    // Producer side. Writes as many items as fit and returns how many were written.
    std::size_t write(std::span<const T> items) {
        const std::size_t head = m_head.load(std::memory_order_relaxed);
        const std::size_t tail = m_tail.load(std::memory_order_acquire);
        const std::size_t count = std::min(items.size(), m_capacity - (head - tail));
        for (std::size_t i = 0; i < count; ++i)
            m_buffer[(head + i) & m_mask] = items[i];
        m_head.store(head + count, std::memory_order_release);
        return count;
    }

    // Consumer side. Reads up to out.size() items and returns how many were read.
    std::size_t read(std::span<T> out) {
        const std::size_t tail = m_tail.load(std::memory_order_relaxed);
        const std::size_t head = m_head.load(std::memory_order_acquire);
        const std::size_t count = std::min(out.size(), head - tail);
        for (std::size_t i = 0; i < count; ++i)
            out[i] = m_buffer[(tail + i) & m_mask];
        m_tail.store(tail + count, std::memory_order_release);
        return count;
    }

    // Either side: a snapshot that may be stale by the time it is used, never too optimistic for
    // the side asking (readable() for the consumer, writable() for the producer).
    std::size_t readable() const {
        return m_head.load(std::memory_order_acquire) - m_tail.load(std::memory_order_acquire);
    }
    std::size_t writable() const { return m_capacity - readable(); }

private:
    const std::size_t m_capacity;
    const std::size_t m_mask;
    std::unique_ptr<T[]> m_buffer;
    // Separate cache lines so producer and consumer do not invalidate each other's index.
    alignas(64) std::atomic<std::size_t> m_head{0};
    alignas(64) std::atomic<std::size_t> m_tail{0};
};

} // namespace onionvoice::media
