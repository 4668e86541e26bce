// The main() of the widget tests: offscreen wherever they run (ctest,
// tests/security/reverts/run.sh, a shell without a display) unless QT_QPA_PLATFORM names another
// platform.
#pragma once

#include <QApplication>
#include <QTest>

#define ONIONVOICE_OFFSCREEN_TEST_MAIN(TestClass)                                                  \
    int main(int argc, char** argv) {                                                              \
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))                                        \
            qputenv("QT_QPA_PLATFORM", "offscreen");                                               \
        QApplication app(argc, argv);                                                              \
        TestClass test;                                                                            \
        return QTest::qExec(&test, argc, argv);                                                    \
    }
