// What a process holds, counted: open descriptors, threads, heap in use and every live QObject by
// class. A test of many calls in one process takes a census after each call; a count that grows
// call after call is a leak, whatever the call's kind.
//
// Live QObjects are counted through Qt's object hooks (qtHookData, the exported table debuggers
// such as GammaRay use: Qt calls AddQObject in every QObject's constructor and RemoveQObject in
// its destructor). Objects without a parent, which no findChildren() of a long-lived object sees,
// are counted too.
#pragma once

#include <QDir>
#include <QFile>
#include <QMap>
#include <QObject>
#include <QString>
#include <malloc.h>
#include <mutex>
#include <unordered_set>

extern "C" Q_DECL_IMPORT quintptr qtHookData[];

namespace onionvoice::testing {

// Live QObjects, from installation on (one per process).
class LiveObjects {
public:
    static void install() {
        static bool installed = [] {
            // Indices of QHooks::HookIndex (qhooks_p.h): AddQObject 3, RemoveQObject 4.
            qtHookData[3] = reinterpret_cast<quintptr>(&LiveObjects::added);
            qtHookData[4] = reinterpret_cast<quintptr>(&LiveObjects::removed);
            return true;
        }();
        Q_UNUSED(installed);
    }

    // Class name → live count. Call on the thread that owns the objects counted, between events:
    // an object still in its constructor reports its base class.
    static QMap<QString, int> byClass() {
        QMap<QString, int> census;
        const std::lock_guard lock(mutex());
        for (const QObject* o : live())
            ++census[QString::fromLatin1(o->metaObject()->className())];
        return census;
    }

    static int count() {
        const std::lock_guard lock(mutex());
        return int(live().size());
    }

private:
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    static std::unordered_set<const QObject*>& live() {
        static std::unordered_set<const QObject*> objects;
        return objects;
    }
    static void added(QObject* o) {
        const std::lock_guard lock(mutex());
        live().insert(o);
    }
    static void removed(QObject* o) {
        const std::lock_guard lock(mutex());
        live().erase(o);
    }
};

struct ProcessCensus {
    int descriptors = 0;
    int threads = 0;
    qint64 residentKb = 0;
    qint64 heapBytes = 0; // malloc'ed and in use (arena and mmapped blocks)
    int qobjects = 0;
    QMap<QString, int> qobjectsByClass;

    static int entries(const char* dir) {
        return int(QDir(QString::fromLatin1(dir))
                       .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System)
                       .size());
    }

    static ProcessCensus take() {
        ProcessCensus c;
        c.descriptors = entries("/proc/self/fd") - 1; // the listing's own descriptor
        c.threads = entries("/proc/self/task");
        QFile status(QStringLiteral("/proc/self/status"));
        if (status.open(QIODevice::ReadOnly))
            for (const QByteArray& line : status.readAll().split('\n'))
                if (line.startsWith("VmRSS:"))
                    c.residentKb = line.mid(6).trimmed().split(' ').first().toLongLong();
        const struct mallinfo2 heap = mallinfo2();
        c.heapBytes = qint64(heap.uordblks + heap.hblkhd);
        c.qobjectsByClass = LiveObjects::byClass();
        for (int n : c.qobjectsByClass)
            c.qobjects += n;
        return c;
    }
};

// Classes whose live count differs between two censuses, as "Class a→b", for a failure message.
inline QString grownClasses(const QMap<QString, int>& before, const QMap<QString, int>& after) {
    QStringList changed;
    QMap<QString, int> all = before;
    for (auto it = after.begin(); it != after.end(); ++it)
        all.insert(it.key(), 0);
    for (auto it = all.begin(); it != all.end(); ++it) {
        const int a = before.value(it.key()), b = after.value(it.key());
        if (a != b)
            changed.append(QStringLiteral("%1 %2→%3").arg(it.key()).arg(a).arg(b));
    }
    return changed.join(QStringLiteral(", "));
}

} // namespace onionvoice::testing
