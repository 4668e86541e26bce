// Unit test of the lock-free SPSC ring: capacity, wrap-around, partial reads and writes, and a
// producer and consumer on two threads moving a long counting sequence without loss or reorder.
#include "media/SpscRing.h"

#include <QTest>
#include <numeric>
#include <thread>
#include <vector>

using onionvoice::media::SpscRing;

class TestSpscRing : public QObject {
    Q_OBJECT
private slots:
    void roundsCapacityUpToPowerOfTwo() {
        SpscRing<int> ring(100);
        QCOMPARE(ring.capacity(), std::size_t(128));
        QCOMPARE(ring.readable(), std::size_t(0));
        QCOMPARE(ring.writable(), std::size_t(128));
    }

    void writesOnlyWhatFitsAndReadsOnlyWhatIsThere() {
        SpscRing<int> ring(8);
        std::vector<int> in(10);
        std::iota(in.begin(), in.end(), 1);
        QCOMPARE(ring.write(in), std::size_t(8));
        QCOMPARE(ring.write(in), std::size_t(0));
        std::vector<int> out(3);
        QCOMPARE(ring.read(out), std::size_t(3));
        QCOMPARE(out, (std::vector<int>{1, 2, 3}));
        QCOMPARE(ring.write(std::span(in).subspan(8)), std::size_t(2));
        std::vector<int> rest(20, -1);
        QCOMPARE(ring.read(rest), std::size_t(7));
        QCOMPARE(std::vector<int>(rest.begin(), rest.begin() + 7),
                 (std::vector<int>{4, 5, 6, 7, 8, 9, 10}));
        QCOMPARE(ring.read(rest), std::size_t(0));
    }

    void wrapsAroundManyTimes() {
        SpscRing<int> ring(4);
        int next = 0;
        int expected = 0;
        for (int round = 0; round < 1000; ++round) {
            const int chunk[3] = {next, next + 1, next + 2};
            QCOMPARE(ring.write(chunk), std::size_t(3));
            next += 3;
            int out[3];
            QCOMPARE(ring.read(out), std::size_t(3));
            for (int v : out)
                QCOMPARE(v, expected++);
        }
    }

    void twoThreadsKeepOrderAndLoseNothing() {
        SpscRing<std::uint32_t> ring(1024);
        constexpr std::uint32_t total = 2'000'000;
        std::thread producer([&] {
            std::uint32_t next = 0;
            std::uint32_t chunk[97];
            while (next < total) {
                const std::uint32_t n = std::min<std::uint32_t>(97, total - next);
                for (std::uint32_t i = 0; i < n; ++i)
                    chunk[i] = next + i;
                next += std::uint32_t(ring.write(std::span(chunk, n)));
                if (ring.writable() == 0)
                    std::this_thread::yield();
            }
        });
        std::uint32_t expected = 0;
        bool ordered = true;
        std::uint32_t out[61];
        while (expected < total) {
            const std::size_t n = ring.read(out);
            for (std::size_t i = 0; i < n; ++i)
                ordered = ordered && out[i] == expected++;
            if (n == 0)
                std::this_thread::yield();
        }
        producer.join();
        QVERIFY(ordered);
        QCOMPARE(ring.readable(), std::size_t(0));
    }
};

QTEST_GUILESS_MAIN(TestSpscRing)
#include "tst_spscring.moc"
