#pragma once

// A stand-in `cachelens` for the GUI's child-process tests: a shell script
// in a temp dir that logs each call's arguments (tab-separated, a line per
// call) to `calls` and acts as the file `mode` says, printing records the
// test wrote beside it with the engine's protocol writer. Each suite's
// FakeCli derives from this and writes its own script and records.

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <vector>

namespace cachelens::test {

struct FakeCliDir {
    QTemporaryDir temp;
    QString program;     // <temp>/cachelens
    QString catalogPath; // <temp>/catalog.sqlite: where the GUI records, untouched by the fake

    // Writes `script` as the program, executable, in mode "ok".
    bool install(const char* script) {
        if (!temp.isValid()) {
            return false;
        }
        program = temp.filePath("cachelens");
        catalogPath = temp.filePath("catalog.sqlite");
        return write("cachelens", script) &&
               QFile::setPermissions(program,
                                     QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner) &&
               setMode("ok");
    }
    bool write(const QString& name, const QByteArray& bytes) const {
        QFile file(temp.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
    }
    bool setMode(const char* mode) const { return write("mode", mode); }
    QByteArray read(const QString& name) const {
        QFile file(temp.filePath(name));
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }
    // Every call's arguments, oldest first.
    std::vector<QStringList> calls() const {
        std::vector<QStringList> calls;
        for (const QByteArray& call : read("calls").split('\n')) {
            if (!call.isEmpty()) {
                QStringList arguments = QString::fromUtf8(call).split(u'\t');
                arguments.removeLast(); // after the last tab
                calls.push_back(arguments);
            }
        }
        return calls;
    }
};

} // namespace cachelens::test
