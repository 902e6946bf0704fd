// The remote cache as data: Redis keys of every PyTorch cache parsed and
// rebuilt, values decoded (and refused when they are not JSON, have no
// "data", or are not base64), values encoded byte for byte as Python's
// json.dumps writes them, and pulled values turned into the artifacts
// PyTorch writes locally on a remote hit.

#include "test_paths.h"

#include <cachelens/core/base64.h>
#include <cachelens/remote/remote_cache.h>

#include <QtTest>

using namespace cachelens;
using remote::CacheKind;

class TestRemoteCache : public QObject {
    Q_OBJECT

private slots:
    void keysOfEveryCache() {
        const std::string hex(64, 'a');
        struct Case {
            std::string redis_key;
            CacheKind kind;
            std::string cache_id;
            std::string key;
        };
        const std::vector<Case> cases = {
            {"pt2:fx-graph-v1::fabc:c1", CacheKind::FxGraph, "fx-graph-v1", "fabc"},
            {"pt2:autograd-experimental::aabc:c1", CacheKind::AotAutograd, "autograd-experimental",
             "aabc"},
            {"pt2:bundled-autotune-v1::" + hex + ":c1", CacheKind::BundledAutotune,
             "bundled-autotune-v1", hex},
            {"pt2:dynamo-pgo::mast:job:1:c1", CacheKind::DynamoPgo, "dynamo-pgo", "mast:job:1"},
            {"pt2:" + hex + "::" + hex + ":c1", CacheKind::Autotune, hex, hex},
            {"pt2:something-else::k:c1", CacheKind::Unknown, "something-else", "k"},
        };
        for (const auto& c : cases) {
            const auto parsed = remote::parse_redis_key(c.redis_key);
            QVERIFY2(parsed, c.redis_key.c_str());
            QCOMPARE(parsed->kind, c.kind);
            QCOMPARE(parsed->cache_id, c.cache_id);
            QCOMPARE(parsed->key, c.key);
            QCOMPARE(remote::redis_key_for(parsed->cache_id, parsed->key), c.redis_key);
        }
        for (const char* bad : {"fx-graph-v1::k:c1", "pt2:fx-graph-v1:k:c1", "pt2:::k:c1",
                                "pt2:fx-graph-v1::k", "other"}) {
            QVERIFY2(!remote::parse_redis_key(bad), bad);
        }
        QCOMPARE(remote::scan_pattern(CacheKind::FxGraph), std::string("pt2:fx-graph-v1::*"));
        QCOMPARE(remote::scan_pattern(std::nullopt), std::string("pt2:*"));
        for (auto kind : {CacheKind::FxGraph, CacheKind::AotAutograd, CacheKind::Autotune,
                          CacheKind::BundledAutotune, CacheKind::DynamoPgo}) {
            QCOMPARE(remote::cache_kind_from_name(remote::to_string(kind)), kind);
        }
        QVERIFY(!remote::cache_kind_from_name("fxgraph"));
    }

    void valuesAsJsonDumpsWritesThem() {
        const std::string pickle("\x80\x04\x95\x00K\x01.", 7);
        const std::string encoded = remote::encode_value(pickle, 1234);
        QCOMPARE(encoded, "{\"data\": \"" + base64_encode(pickle) + "\", \"time_taken_ms\": 1234}");
        QCOMPARE(remote::encode_value(pickle, std::nullopt),
                 "{\"data\": \"" + base64_encode(pickle) + "\"}");
        const auto decoded = remote::decode_value(CacheKind::FxGraph, encoded);
        QVERIFY_RESULT(decoded);
        QCOMPARE(decoded->payload, pickle);
        QCOMPARE(decoded->time_taken_ms, std::optional<std::int64_t>(1234));
    }

    void badValuesAreRefused_data() {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << "\x80\x04garbage"
                                  << "not JSON";
        QTest::newRow("array") << "[1, 2]"
                               << "not an object";
        QTest::newRow("no data") << "{\"time_taken_ms\": 3}"
                                 << "no \"data\"";
        QTest::newRow("data not string") << "{\"data\": 5}"
                                         << "not a string";
        QTest::newRow("not base64") << "{\"data\": \"@@@@\"}"
                                    << "not base64";
    }

    void badValuesAreRefused() {
        QFETCH(QString, value);
        QFETCH(QString, message);
        const auto decoded = remote::decode_value(CacheKind::FxGraph, value.toStdString());
        QVERIFY(!decoded);
        QVERIFY2(decoded.error().message.find(message.toStdString()) != std::string::npos,
                 decoded.error().message.c_str());
    }

    void pulledValuesBecomeLocalArtifacts() {
        const std::string hex(64, 'b');
        const std::string config = R"({"XBLOCK": 128, "num_warps": 4, "num_stages": 1, )"
                                   R"("configs_hash": "h", "found_by_coordesc": false, )"
                                   R"("time_taken_ms": 12, "triton_cache_hash": null})";
        std::vector<remote::PulledValue> values = {
            {*remote::parse_redis_key("pt2:fx-graph-v1::fkey:c1"), remote::encode_value("fx", 5)},
            {*remote::parse_redis_key("pt2:autograd-experimental::akey:c1"),
             remote::encode_value("aot", 6)},
            {*remote::parse_redis_key("pt2:bundled-autotune-v1::" + hex + ":c1"),
             "{\"" + hex + ".best_config\":" + config + "}"},
            {*remote::parse_redis_key("pt2:" + hex + "::" + hex + ":c1"), config},
            {*remote::parse_redis_key("pt2:fx-graph-v1::fbad:c1"), "not json"},
        };
        const auto pulled = remote::artifacts_to_pull(values);
        QCOMPARE(pulled.bundle.sections.size(), std::size_t{3});
        QCOMPARE(pulled.bundle.sections[0].type, std::string("inductor"));
        QCOMPARE(pulled.bundle.sections[0].artifacts[0].key, std::string("fkey"));
        QCOMPARE(pulled.bundle.sections[0].artifacts[0].content, std::string("fx"));
        QCOMPARE(pulled.bundle.sections[1].type, std::string("aot_autograd"));
        QCOMPARE(pulled.bundle.sections[2].type, std::string("autotune"));
        // codecache.get_path(root, "best_config"): the shard is root[1:3].
        QCOMPARE(pulled.bundle.sections[2].artifacts[0].key, "bb/" + hex + ".best_config");
        // json.dumps of the dict, as LocalAutotuneCache writes the file.
        QCOMPARE(pulled.bundle.sections[2].artifacts[0].content,
                 std::string(R"({"XBLOCK": 128, "num_warps": 4, "num_stages": 1, )"
                             R"("configs_hash": "h", "found_by_coordesc": false, )"
                             R"("time_taken_ms": 12, "triton_cache_hash": null})"));
        QCOMPARE(pulled.notes.size(), std::size_t{1});
        QVERIFY(pulled.notes[0].find("nothing to pull") != std::string::npos);
        QCOMPARE(pulled.unreadable.size(), std::size_t{1});
        QVERIFY(pulled.unreadable[0].find("not JSON") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestRemoteCache)
#include "tst_remote_cache.moc"
