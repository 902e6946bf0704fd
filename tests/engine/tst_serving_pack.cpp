// Carrying a serving tree's cache dir (serving/pack.h): a pack unpacks to the
// same bytes, signed or not; a hostile pack (a member leaving its dir, a
// link, a member the manifest does not list, bytes that do not match, a file
// missing, a manifest naming ../) is refused with nothing written and no
// staging dir left; code with findings is refused unless allowed; a dry run
// leaves nothing.

#include "bundle_helpers.h"
#include "hostile_entries.h"
#include "serving_trees.h"
#include "test_paths.h"

#include <cachelens/bundle/signing.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/serving/pack.h>
#include <cachelens/serving/serving_tree.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <map>

using namespace cachelens;
using namespace cachelens::serving;
namespace fixture = cachelens::test::serving_fixture;
namespace fs = std::filesystem;

namespace {

// A root that was not there is not there after: no hash dir, no staging
// dir, not even the root.
bool untouched(const fs::path& into) {
    return !fs::exists(into);
}

struct Member {
    std::string name;
    std::string bytes;
    bool symlink = false;
};

// A tar.zst written member by member, as a hostile packer would.
void write_archive(const fs::path& path, const std::vector<Member>& members) {
    archive* writer = archive_write_new();
    archive_write_add_filter_zstd(writer);
    archive_write_set_format_pax_restricted(writer);
    QVERIFY(archive_write_open_filename(writer, path.c_str()) == ARCHIVE_OK);
    for (const auto& member : members) {
        archive_entry* entry = archive_entry_new();
        archive_entry_set_pathname(entry, member.name.c_str());
        if (member.symlink) {
            archive_entry_set_filetype(entry, AE_IFLNK);
            archive_entry_set_symlink(entry, member.bytes.c_str());
            archive_entry_set_size(entry, 0);
        } else {
            archive_entry_set_filetype(entry, AE_IFREG);
            archive_entry_set_size(entry, static_cast<la_int64_t>(member.bytes.size()));
        }
        archive_entry_set_perm(entry, 0644);
        QVERIFY(archive_write_header(writer, entry) == ARCHIVE_OK);
        if (!member.symlink) {
            archive_write_data(writer, member.bytes.data(), member.bytes.size());
        }
        archive_entry_free(entry);
    }
    archive_write_close(writer);
    archive_write_free(writer);
}

std::string manifest_for(const std::string& hash_dir,
                         const std::vector<std::pair<std::string, std::string>>& files) {
    PackManifest manifest;
    manifest.stack = "vllm";
    manifest.hash_dir = hash_dir;
    manifest.created = "2026-11-27T00:00:00Z";
    for (const auto& [path, bytes] : files) {
        manifest.files.push_back({path, bytes.size(), hash::sha256_hex(bytes)});
    }
    return manifest_json(manifest);
}

UnpackOptions into_dir(const fs::path& into, bool dry_run = false,
                       const bundle::PublicKey* key = nullptr,
                       std::vector<std::string> allowed = {}) {
    UnpackOptions options;
    options.into = into;
    options.dry_run = dry_run;
    options.require_signature = key;
    options.trust.allowed_ids = std::move(allowed);
    return options;
}

} // namespace

class TestServingPack : public QObject {
    Q_OBJECT

private slots:
    void packUnpacksToTheSameBytes() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        const fs::path pack = base / "cache.tar.zst";
        auto packed = pack_hash_dir(*tree, *tree->find_hash_dir(hash), pack);
        QVERIFY_RESULT(packed);
        QCOMPARE(packed->manifest.hash_dir, hash);
        QCOMPARE(packed->manifest.files.size(), fixture::tree_bytes(root / hash).size());
        QVERIFY(packed->signer.empty());
        // An existing file is never overwritten.
        QVERIFY(!pack_hash_dir(*tree, *tree->find_hash_dir(hash), pack));

        const fs::path other = base / "other" / "torch_compile_cache";
        auto dry = unpack_archive(pack, into_dir(other, true));
        QVERIFY_RESULT(dry);
        QVERIFY(!dry->written);
        QVERIFY(dry->refused.empty());
        QVERIFY(untouched(other));

        auto unpacked = unpack_archive(pack, into_dir(other));
        QVERIFY_RESULT(unpacked);
        QVERIFY(unpacked->written);
        QVERIFY(fixture::tree_bytes(other / hash) == fixture::tree_bytes(root / hash));
        QVERIFY(!unpacked->code.empty()); // audited
        // The tree reads and verifies there as here.
        auto there = read_serving_tree(other);
        QVERIFY_RESULT(there);
        QCOMPARE(there->hash_dirs.size(), std::size_t{1});
        QCOMPARE(fs::is_empty(other) ? 0 : std::distance(fs::directory_iterator(other), {}),
                 std::ptrdiff_t{1}); // no staging dir left
        // Again: already there.
        auto again = unpack_archive(pack, into_dir(other));
        QVERIFY_RESULT(again);
        QVERIFY(again->already_present);
        // A different dir of that name: refused.
        test::write_bytes(other / hash / "rank_0_0" / "backbone" / "extra", "x");
        auto clash = unpack_archive(pack, into_dir(other));
        QVERIFY(!clash);
        QVERIFY(clash.error().message.find("already holds a different") != std::string::npos);
    }

    // Another unpack's staging dir, live (its lock held: in another
    // container, pid 1 there, or on a shared volume) stays; one a killed
    // unpack left (its lock free) goes; an older cachelens's pid-named one
    // goes once a day idle.
    void unpackBesideAnotherUnpacksStagingDir() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        auto tree = read_serving_tree(root);
        QVERIFY_RESULT(tree);
        const fs::path pack = base / "cache.tar.zst";
        QVERIFY_RESULT(pack_hash_dir(*tree, *tree->find_hash_dir(hash), pack));

        const fs::path other = base / "other";
        const fs::path live = other / ".cachelens-unpack-0123456789abcdef";
        const fs::path killed = other / ".cachelens-unpack-fedcba9876543210";
        const fs::path old_recent = other / ".cachelens-unpack-1";
        const fs::path old_idle = other / ".cachelens-unpack-2";
        for (const auto& staging : {live, killed, old_recent, old_idle}) {
            test::write_bytes(staging / "d4ec7c2a7d" / "x", "staged");
        }
        const timespec two_days_ago{::time(nullptr) - 2 * 86400, 0};
        const timespec times[2] = {two_days_ago, two_days_ago};
        QCOMPARE(::utimensat(AT_FDCWD, old_idle.c_str(), times, AT_SYMLINK_NOFOLLOW), 0);
        QProcess holder; // the other unpack, holding its staging dir's lock
        holder.start("flock", {"-n", QString::fromStdString(live.string()), "-c",
                               "echo ready; exec sleep 60"});
        QVERIFY(holder.waitForReadyRead(10000));

        auto unpacked = unpack_archive(pack, into_dir(other));
        holder.kill();
        holder.waitForFinished();
        QVERIFY_RESULT(unpacked);
        QVERIFY(unpacked->written);
        QVERIFY(fixture::tree_bytes(other / hash) == fixture::tree_bytes(root / hash));
        QCOMPARE(test::read_file(live / "d4ec7c2a7d" / "x"), QByteArray("staged"));
        QVERIFY(fs::exists(old_recent / "d4ec7c2a7d" / "x"));
        QVERIFY(!fs::exists(killed));
        QVERIFY(!fs::exists(old_idle));
        std::vector<std::string> names;
        for (const auto& item : fs::directory_iterator(other)) {
            names.push_back(item.path().filename().string());
        }
        std::ranges::sort(names);
        QCOMPARE(names, (std::vector<std::string>{".cachelens-unpack-0123456789abcdef",
                                                  ".cachelens-unpack-1", hash}));
    }

    void signatures() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = fixture::vllm_standalone_shapes(base);
        auto tree = read_serving_tree(root);
        auto key = bundle::PrivateKey::generate();
        QVERIFY_RESULT(key);
        auto stranger = bundle::PrivateKey::generate();
        const fs::path signed_pack = base / "signed.tar.zst";
        auto packed = pack_hash_dir(*tree, tree->hash_dirs[0], signed_pack, &*key);
        QVERIFY_RESULT(packed);
        QCOMPARE(packed->signer, key->public_key().fingerprint());
        const fs::path into = base / "into";
        auto verified = unpack_archive(signed_pack, into_dir(into, true, &key->public_key()));
        QVERIFY_RESULT(verified);
        QVERIFY(verified->signature_verified);
        auto wrong = unpack_archive(signed_pack, into_dir(into, false, &stranger->public_key()));
        QVERIFY(!wrong);
        QVERIFY(wrong.error().message.find("does not verify") != std::string::npos);
        QVERIFY(untouched(into));
        const fs::path plain = base / "plain.tar.zst";
        QVERIFY_RESULT(pack_hash_dir(*tree, tree->hash_dirs[0], plain));
        auto unsigned_refused = unpack_archive(plain, into_dir(into, false, &key->public_key()));
        QVERIFY(!unsigned_refused);
        QVERIFY(unsigned_refused.error().message.find("unsigned") != std::string::npos);
        QVERIFY(untouched(into));
    }

    void codeWithFindingsIsRefusedUnlessAllowed() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const fs::path root = base / "torch_compile_cache";
        const std::string hash = fixture::vllm_ranges(root, fixture::vllm_env("FLASH_ATTN"));
        const auto hostile = test::wrapperRunning("import os; os.system('id')");
        test::write_bytes(root / hash /
                              "rank_0_0/backbone/artifact_compile_range_1_8192_subgraph_0",
                          fixture::binary_artifact(bundle::encode_mega_cache(
                              test::one_artifact("inductor", hostile.key, hostile.content))));
        auto tree = read_serving_tree(root);
        const fs::path pack = base / "hostile.tar.zst";
        QVERIFY_RESULT(pack_hash_dir(*tree, *tree->find_hash_dir(hash), pack));
        const fs::path into = base / "into";
        auto refused = unpack_archive(pack, into_dir(into));
        QVERIFY_RESULT(refused);
        QVERIFY(!refused->written);
        QCOMPARE(refused->refused,
                 std::vector<std::string>{hash + "/rank_0_0/backbone/"
                                                 "artifact_compile_range_1_8192_subgraph_0"});
        QVERIFY(untouched(into));
        std::vector<std::string> ids;
        for (const auto& file : refused->code) {
            for (const auto& finding : file.check.findings) {
                ids.push_back(finding.id);
            }
        }
        QVERIFY(!ids.empty());
        auto allowed = unpack_archive(pack, into_dir(into, false, nullptr, ids));
        QVERIFY_RESULT(allowed);
        QVERIFY(allowed->written);
    }

    void hostileArchivesWriteNothing() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const std::string good = "print('x')\n";
        const std::string hash = "abcdef0123";
        const std::string inside = hash + "/rank_0_0/backbone/computation_graph.py";
        struct Case {
            const char* name;
            std::vector<Member> members;
            const char* expected;
        };
        const std::vector<Case> cases = {
            {"escape",
             {{"cachelens-pack.json", manifest_for(hash, {{inside, good}})},
              {"tree/" + hash + "/../../evil", good}},
             "would land outside the hash dir"},
            {"absolute",
             {{"cachelens-pack.json", manifest_for(hash, {{inside, good}})}, {"/tmp/evil", good}},
             "would land outside"},
            {"symlink",
             {{"cachelens-pack.json", manifest_for(hash, {{inside, good}})},
              {"tree/" + inside, "/etc/passwd", true}},
             "a link or special file"},
            {"unlisted",
             {{"cachelens-pack.json", manifest_for(hash, {{inside, good}})},
              {"tree/" + inside, good},
              {"tree/" + hash + "/rank_0_0/extra.py", good}},
             "is not in the manifest"},
            {"tampered",
             {{"cachelens-pack.json", manifest_for(hash, {{inside, good}})},
              {"tree/" + inside, "print('y')\n"}},
             "not to the manifest's sha256"},
            {"missing",
             {{"cachelens-pack.json",
               manifest_for(hash, {{inside, good}, {hash + "/rank_0_0/other.py", good}})},
              {"tree/" + inside, good}},
             "are missing"},
            {"manifest escape",
             {{"cachelens-pack.json", manifest_for("../etc", {{"../etc/x", good}})}},
             "is not a dir name"},
            {"no manifest", {{"tree/" + inside, good}}, "does not start with cachelens-pack.json"},
            {"hidden dir",
             {{"cachelens-pack.json",
               manifest_for(".cachelens-unpack-1", {{".cachelens-unpack-1/x", good}})}},
             "is not a dir name"},
            // fuzz_serving's first find: a "format" that is no string threw.
            {"format number", {{"cachelens-pack.json", "{\"format\": 1}"}}, "not a cachelens pack"},
            {"version string",
             {{"cachelens-pack.json",
               "{\"format\": \"cachelens-serving-pack\", \"version\": \"1\"}"}},
             "this cachelens reads version 1"},
        };
        for (const auto& test_case : cases) {
            const fs::path pack = base / (std::string(test_case.name) + ".tar.zst");
            write_archive(pack, test_case.members);
            const fs::path into = base / "into" / test_case.name;
            auto unpacked = unpack_archive(pack, into_dir(into));
            QVERIFY2(!unpacked, test_case.name);
            QVERIFY2(unpacked.error().message.find(test_case.expected) != std::string::npos,
                     unpacked.error().message.c_str());
            QVERIFY2(untouched(into), test_case.name);
            QVERIFY(!fs::exists(base / "evil"));
        }
        // Not an archive at all.
        test::write_bytes(base / "junk", "junk");
        QVERIFY(!unpack_archive(base / "junk", into_dir(base / "into" / "junk")));
    }
};

QTEST_GUILESS_MAIN(TestServingPack)
#include "tst_serving_pack.moc"
