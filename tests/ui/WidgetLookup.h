// Finds a test's widgets by objectName (as KeePassXC's GUI tests do): a missing one stops the test
// with its name instead of crashing on a null pointer later.
#pragma once

#include <QString>
#include <QWidget>
#include <QtGlobal>

template <typename T> T* find(QWidget* root, const char* name) {
    T* w = root->findChild<T*>(QString::fromLatin1(name));
    if (!w)
        qFatal("no widget %s", name);
    return w;
}
