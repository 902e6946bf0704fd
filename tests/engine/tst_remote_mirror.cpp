// A Redis server as a catalog root: its entries mirrored into a dir laid out
// as PyTorch lays out a local cache, then indexed. Mirroring again pulls
// what is new and removes what the server no longer holds; `cachelens index
// redis://...` does both steps and search then finds remote entries.

#include "redis_server.h"
#include "test_paths.h"

#include <cachelens/catalog/catalog.h>
#include <cachelens/remote/mirror.h>
#include <cachelens/remote/remote_ops.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace cachelens;
namespace fs = std::filesystem;

namespace {

const std::string kForwardKey = "flgtecy7im4dralr3mgjxdybnzzs6wqj55uihf75qzmvwfhdea7e";

std::size_t files_under(const fs::path& dir) {
    std::size_t count = 0;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        count += entry.is_regular_file();
    }
    return count;
}

} // namespace

class TestRemoteMirror : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!test::redis_server_available()) {
            QSKIP("redis-server is not installed (Debian package redis-server)");
        }
        QVERIFY2(server_.start(), qPrintable(server_.error()));
    }
    void cleanup() { server_.stop(); }

    void mirrorFollowsTheServer() {
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        QVERIFY_RESULT(remote::push_local(*client, test::fixture("devset/cache"), {}));
        QTemporaryDir temp;
        const fs::path dir = fs::path(temp.path().toStdString()) / "mirror";

        auto first = remote::mirror_remote(*client, dir);
        QVERIFY_RESULT(first);
        QCOMPARE(first->pulled, std::size_t{19}); // 10 FX graphs + 9 AOT entries
        QCOMPARE(files_under(dir), std::size_t{19});

        auto again = remote::mirror_remote(*client, dir);
        QVERIFY_RESULT(again);
        QCOMPARE(again->pulled, std::size_t{0});
        QCOMPARE(again->unchanged, std::size_t{19});

        QCOMPARE(server_.command({"DEL", "pt2:fx-graph-v1::" + kForwardKey + ":c1"}),
                 std::string(":1"));
        auto after_delete = remote::mirror_remote(*client, dir);
        QVERIFY_RESULT(after_delete);
        QCOMPARE(after_delete->removed, std::size_t{1});
        QCOMPARE(files_under(dir), std::size_t{18});
        QVERIFY(!fs::exists(dir / "fxgraph/lg" / kForwardKey)); // no empty key dir left
    }

    void mirroringAServerRecordsItsOrigin() {
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        QVERIFY_RESULT(remote::push_local(*client, test::fixture("devset/cache"), {}));
        QTemporaryDir temp;
        const fs::path catalog = fs::path(temp.path().toStdString()) / "catalog.sqlite";

        auto mirrored = remote::mirror_server(*client, server_.endpoint(), catalog);
        QVERIFY_RESULT(mirrored);
        QCOMPARE(mirrored->dir, remote::mirror_dir_for(catalog, server_.endpoint()));
        QCOMPARE(mirrored->pulled, std::size_t{19});
        QVERIFY(mirrored->notes.empty());
        QVERIFY(remote::is_mirror_root(mirrored->dir, remote::mirror_base(catalog)));
        QCOMPARE(test::read_bytes(remote::mirror_origin_file(mirrored->dir)),
                 server_.endpoint().display());
        // Beside the dir, not in it: mirroring again neither lists nor removes it.
        auto again = remote::mirror_server(*client, server_.endpoint(), catalog);
        QVERIFY_RESULT(again);
        QCOMPARE(again->removed, std::size_t{0});
        QCOMPARE(files_under(mirrored->dir), std::size_t{19});
        QCOMPARE(remote::mirror_origin(mirrored->dir), std::optional(server_.endpoint().display()));
    }

    void indexingAUrlMakesItSearchable() {
        auto client = remote::RedisClient::connect(server_.endpoint());
        QVERIFY_RESULT(client);
        QVERIFY_RESULT(remote::push_local(*client, test::fixture("devset/cache"), {}));
        QTemporaryDir temp;
        const QString catalog = temp.path() + "/catalog.sqlite";
        const QString url = QString("redis://127.0.0.1:%1").arg(server_.port());
        const auto indexed = test::run_cli({"index", url, "--catalog", catalog, "--json"});
        QCOMPARE(indexed.exit_code, 0);
        const auto root =
            QJsonDocument::fromJson(indexed.out).object()["roots"].toArray()[0].toObject();
        QCOMPARE(root["entries"].toInt(), 19);
        QCOMPARE(root["remote"].toObject()["pulled"].toInt(), 19);
        QVERIFY(root["root"].toString().contains(
            QString("remote/127.0.0.1-%1-db0").arg(server_.port())));

        const auto found =
            test::run_cli({"search", QString::fromStdString(kForwardKey.substr(0, 12)), "--catalog",
                           catalog, "--json"});
        QCOMPARE(found.exit_code, 0);
        QVERIFY2(found.out.contains(QByteArray::fromStdString(kForwardKey)), found.out.constData());

        // The CLI records the server beside its mirror, as the GUI reads it.
        const fs::path mirror = root["root"].toString().toStdString();
        QVERIFY(fs::is_regular_file(remote::mirror_origin_file(mirror)));
        QCOMPARE(remote::mirror_origin(mirror), std::optional(server_.endpoint().display()));

        server_.stop();
        const auto down = test::run_cli({"index", url, "--catalog", catalog});
        QCOMPARE(down.exit_code, 2);
        QVERIFY2(down.err.contains(QString("127.0.0.1:%1").arg(server_.port()).toUtf8()),
                 down.err.constData());
    }

private:
    test::RedisServer server_;
};

QTEST_GUILESS_MAIN(TestRemoteMirror)
#include "tst_remote_mirror.moc"
