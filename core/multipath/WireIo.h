// Bounds-checked big-endian writer and reader over byte spans, shared by every wire format
// (multipath records, call handshake messages). Each operation reports whether it fit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace onionvoice::multipath {

class ByteWriter {
public:
    explicit ByteWriter(std::span<std::uint8_t> out)
        : out_(out) {}
    bool u8(std::uint8_t v) { return put(&v, 1); }
    bool u16(std::uint16_t v) { return uint(v, 2); }
    bool u32(std::uint32_t v) { return uint(v, 4); }
    bool u64(std::uint64_t v) { return uint(v, 8); }
    bool bytes(std::span<const std::uint8_t> b) { return put(b.data(), b.size()); }
    void padWithZeros() { std::fill(out_.begin() + long(pos_), out_.end(), 0); }
    std::size_t written() const { return pos_; }

private:
    bool uint(std::uint64_t v, std::size_t n) {
        std::uint8_t b[8];
        for (std::size_t i = 0; i < n; ++i)
            b[i] = std::uint8_t(v >> (8 * (n - 1 - i)));
        return put(b, n);
    }
    bool put(const std::uint8_t* p, std::size_t n) {
        if (n > out_.size() - pos_)
            return false;
        std::copy_n(p, n, out_.begin() + long(pos_));
        pos_ += n;
        return true;
    }
    std::span<std::uint8_t> out_;
    std::size_t pos_ = 0;
};

class ByteReader {
public:
    explicit ByteReader(std::span<const std::uint8_t> in)
        : in_(in) {}
    bool u8(std::uint8_t& v) { return uint(v, 1); }
    bool u16(std::uint16_t& v) { return uint(v, 2); }
    bool u32(std::uint32_t& v) { return uint(v, 4); }
    bool u64(std::uint64_t& v) { return uint(v, 8); }
    bool bytes(std::size_t n, std::vector<std::uint8_t>& out) {
        if (remaining() < n)
            return false;
        out.assign(in_.begin() + long(pos_), in_.begin() + long(pos_ + n));
        pos_ += n;
        return true;
    }
    bool bytes(std::span<std::uint8_t> out) {
        if (remaining() < out.size())
            return false;
        std::copy_n(in_.begin() + long(pos_), out.size(), out.begin());
        pos_ += out.size();
        return true;
    }
    bool restIsZero() const {
        return std::all_of(in_.begin() + long(pos_), in_.end(),
                           [](std::uint8_t b) { return b == 0; });
    }
    std::size_t position() const { return pos_; }

private:
    template <typename T> bool uint(T& v, std::size_t n) {
        if (remaining() < n)
            return false;
        std::uint64_t x = 0;
        for (std::size_t i = 0; i < n; ++i)
            x = x << 8 | in_[pos_ + i];
        v = T(x);
        pos_ += n;
        return true;
    }
    std::size_t remaining() const { return in_.size() - pos_; }
    std::span<const std::uint8_t> in_;
    std::size_t pos_ = 0;
};

} // namespace onionvoice::multipath
