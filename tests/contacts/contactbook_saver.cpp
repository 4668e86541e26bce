// Test helper for tst_contactbook: saves a growing contact book over and over until killed, so the
// test can kill it in the middle of a save and check that no data is lost.
#include "ContactTestData.h"
#include "contacts/ContactBook.h"

#include <cstdio>

namespace {

// Names are held to 64 characters, so the book grows by contacts: more than testAddress() has.
constexpr int kContacts = 2000;
QString saverAddress(int n) {
    std::array<std::uint8_t, crypto_sign_SEEDBYTES> seed{};
    seed.fill(0xa5);
    seed[0] = std::uint8_t(n);
    seed[1] = std::uint8_t(n >> 8);
    return testAddressFromSeed(seed);
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2)
        return 2;
    onionvoice::contacts::ContactBook book(QString::fromLocal8Bit(argv[1]));
    book.load();
    QString error;
    for (int round = 0;; ++round) {
        const int n = round % kContacts;
        book.remove(saverAddress(n));
        book.add({saverAddress(n),
                  QString(onionvoice::contacts::kMaxNameLength, QChar('a' + round % 26)),
                  {},
                  false,
                  false,
                  {},
                  {}},
                 &error);
        if (!book.save(&error)) {
            std::fprintf(stderr, "%s\n", qPrintable(error));
            return 1;
        }
        if (round == 5) {
            std::printf("saving\n");
            std::fflush(stdout);
        }
    }
}
