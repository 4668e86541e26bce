// Test helper for tst_contactbook: saves a growing contact book over and over until killed, so the
// test can kill it in the middle of a save and check that no data is lost.
#include "ContactTestData.h"
#include "contacts/ContactBook.h"

#include <cstdio>

int main(int argc, char** argv) {
    if (argc != 2)
        return 2;
    onionvoice::contacts::ContactBook book(QString::fromLocal8Bit(argv[1]));
    book.load();
    QString error;
    for (int round = 0;; ++round) {
        const int n = round % 200;
        book.remove(testAddress(std::uint8_t(n)));
        book.add({testAddress(std::uint8_t(n)),
                  QString(4000, QChar('a' + round % 26)),
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
