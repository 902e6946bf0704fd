// The safe pickle VM: CPython's own pickles of every opcode at protocols 0-5 (the
// corpus and its expected trees come from tests/data/pickles/make_pickles.py), the real
// PyTorch cache entries, and hostile input, which must give a clear Error or an inert
// tree: never a crash, a hang, an unbounded allocation, or a call of anything.

#include "test_paths.h"

#include <cachelens/core/mapped_file.h>
#include <cachelens/hash/sha256.h>
#include <cachelens/pickle/repr.h>
#include <cachelens/pickle/unpickler.h>

#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <new>
#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

using namespace cachelens;
using test::read_bytes;
using namespace cachelens::pickle;
using namespace std::string_literals;
using namespace std::string_view_literals;

// Every byte operator new hands out in this program, so a test can bound what decoding
// allocates outside the document's arena (which Limits::max_alloc bounds). All the
// plain and array forms are replaced together, so every delete matches its new.
namespace {
std::atomic<std::size_t> heap_bytes_requested{0};

void* counted_allocation(std::size_t size) noexcept {
    heap_bytes_requested.fetch_add(size, std::memory_order_relaxed);
    return std::malloc(size == 0 ? 1 : size);
}

void* counted_allocation_or_throw(std::size_t size) {
    if (void* block = counted_allocation(size)) {
        return block;
    }
    throw std::bad_alloc();
}
} // namespace

void* operator new(std::size_t size) {
    return counted_allocation_or_throw(size);
}
void* operator new[](std::size_t size) {
    return counted_allocation_or_throw(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return counted_allocation(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return counted_allocation(size);
}
void operator delete(void* block) noexcept {
    std::free(block);
}
void operator delete[](void* block) noexcept {
    std::free(block);
}
void operator delete(void* block, std::size_t) noexcept {
    std::free(block);
}
void operator delete[](void* block, std::size_t) noexcept {
    std::free(block);
}
void operator delete(void* block, const std::nothrow_t&) noexcept {
    std::free(block);
}
void operator delete[](void* block, const std::nothrow_t&) noexcept {
    std::free(block);
}

namespace {

// The wall-clock guard on the hostile cases, more generous where the build is slowed
// down on purpose (Debug, sanitizers).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CACHELENS_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(CACHELENS_TEST_SANITIZED) || !defined(NDEBUG)
constexpr qint64 kHostileBudgetMs = 120'000;
#else
constexpr qint64 kHostileBudgetMs = 20'000;
#endif

using DocumentResult = Result<std::shared_ptr<const Document>>;

std::string le32(std::uint32_t value) {
    std::string out;
    for (int i = 0; i < 4; ++i) {
        out += static_cast<char>((value >> (8 * i)) & 0xff);
    }
    return out;
}

std::string le64(std::uint64_t value) {
    std::string out;
    for (int i = 0; i < 8; ++i) {
        out += static_cast<char>((value >> (8 * i)) & 0xff);
    }
    return out;
}

std::string repeat(std::string_view unit, std::size_t count) {
    std::string out;
    out.reserve(unit.size() * count);
    for (std::size_t i = 0; i < count; ++i) {
        out += unit;
    }
    return out;
}

// Opcodes with a length-prefixed argument, as the test builds them by hand.
std::string binunicode(std::string_view text) {
    return "X" + le32(static_cast<std::uint32_t>(text.size())) + std::string(text);
}
std::string short_binunicode(std::string_view text) {
    return "\x8c" + std::string(1, static_cast<char>(text.size())) + std::string(text);
}
std::string long_binput(std::uint32_t index) {
    return "r" + le32(index);
}
std::string long_binget(std::uint32_t index) {
    return "j" + le32(index);
}

// Decodes bytes the test made; the document owns them, as it would own a mapped file.
DocumentResult decode(std::string bytes, const Limits& limits = {}) {
    auto owned = std::make_shared<const std::string>(std::move(bytes));
    const std::string_view view = *owned;
    return unpickle(view, owned, limits);
}

// Empty when `result` is an error of `kind` whose message mentions `needle`, else why not.
std::string error_mismatch(const DocumentResult& result, ErrorKind kind, std::string_view needle) {
    if (result) {
        ReprOptions brief;
        brief.max_length = 200;
        return "decoded without an error, to " + repr((*result)->root(), brief);
    }
    const Error& error = result.error();
    if (error.kind != kind) {
        return "got a " + std::string(to_string(error.kind)) + " error instead of " +
               std::string(to_string(kind)) + ": " + error.message;
    }
    if (error.message.find(needle) == std::string::npos) {
        return "the message '" + error.message + "' does not mention '" + std::string(needle) + "'";
    }
    return {};
}

std::string describe_failure(const DocumentResult& result) {
    return result ? std::string() : result.error().describe();
}

// Calls visit(node) once for every node reachable from `root`. The tree is really a
// graph (the memo shares nodes and can make cycles), so this keeps a visited set and an
// explicit stack instead of recursing.
template <class Visit>
void for_each_node(const Value& root, Visit visit) {
    std::unordered_set<const Value*> seen;
    std::vector<const Value*> pending{&root};
    while (!pending.empty()) {
        const Value* node = pending.back();
        pending.pop_back();
        if (node == nullptr || !seen.insert(node).second) {
            continue;
        }
        visit(*node);
        for (const Value* item : node->items()) {
            pending.push_back(item);
        }
        for (const DictItem& item : node->dict_items()) {
            pending.push_back(item.key);
            pending.push_back(item.value);
        }
        if (node->is(Kind::Object)) {
            pending.insert(pending.end(),
                           {node->callable(), node->args(), node->kwargs(), node->state()});
        }
        if (node->is(Kind::PersistentId)) {
            pending.push_back(node->persistent_id());
        }
    }
}

QStringList global_names(const Document& doc) {
    QStringList names;
    for (const auto& [module, name] : doc.globals) {
        names << QString::fromUtf8(module.data(), static_cast<qsizetype>(module.size())) + "." +
                     QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    }
    return names;
}

QString qstr(std::string_view text) {
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

// The ReprOptions the whole-tree comparison uses (UNBOUNDED in make_pickles.py).
ReprOptions unbounded_repr() {
    ReprOptions options;
    options.max_depth = 1000;
    options.max_items = std::numeric_limits<std::size_t>::max();
    options.max_string = std::numeric_limits<std::size_t>::max();
    options.max_length = std::numeric_limits<std::size_t>::max();
    return options;
}

const std::filesystem::path& fixtures_root() {
    static const std::filesystem::path root = test::fixture("");
    return root;
}

// The smallest CUDA FX graph entry of the devset: big enough to hold every kind of
// node PyTorch writes, small enough to decode thousands of damaged copies quickly.
std::filesystem::path small_fx_entry() {
    return test::fixture("devset/cache/fxgraph/3g/"
                         "f3gunfwvnc2bijojank6na6pplhx6nopcc7cx3stulctblbl4cln/"
                         "mmgn42gnbm4jve7f37u3zcg3edqjyoyaaqt5pcrl7czyuod5nwe");
}

// A shell command that would leave `marker` behind if anything ever ran it.
std::string touch_command(const QString& marker) {
    return "touch " + marker.toStdString();
}

} // namespace

class TestUnpickler : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(sandbox_.isValid()); }

    // ---- CPython's pickles: every opcode, protocols 0 to 5 ----------------------------

    void corpusMatchesCPython_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QJsonObject>("expected");
        const QJsonArray manifest =
            test::read_json(test::test_data("pickles/manifest.json")).array();
        QVERIFY2(manifest.size() >= 300, "tests/data/pickles/manifest.json looks incomplete");
        for (const auto& entry : manifest) {
            const QJsonObject object = entry.toObject();
            const QString file = object["file"].toString();
            QTest::newRow(qPrintable(file)) << file << object;
        }
    }

    void corpusMatchesCPython() {
        QFETCH(QString, file);
        QFETCH(QJsonObject, expected);
        const auto result = unpickle_file(test::test_data("pickles/" + file.toStdString()));
        if (expected.contains("error")) {
            const QJsonObject error = expected["error"].toObject();
            QVERIFY(!result);
            QCOMPARE(qstr(to_string(result.error().kind)), error["kind"].toString());
            QVERIFY2(qstr(result.error().message).contains(error["contains"].toString()),
                     result.error().message.c_str());
            return;
        }
        QVERIFY2(result, describe_failure(result).c_str());
        const Document& doc = **result;
        QCOMPARE(qstr(repr(doc.root())), expected["repr"].toString());
        QCOMPARE(doc.protocol, expected["protocol"].toInt());
        QCOMPARE(global_names(doc), expected["globals"].toVariant().toStringList());
    }

    // ---- The same corpus, checked node by node ------------------------------------------

    void reduceIsAnObjectRecordingTheCall() {
        const auto doc = corpus("reduce_p2.pkl");
        const Value& root = doc->root();
        QCOMPARE(root.kind(), Kind::Object);
        QCOMPARE(root.construction(), Construction::Reduce);
        QCOMPARE(root.class_name(), "cachelens_testdata.Point");
        QCOMPARE(root.callable()->kind(), Kind::Global);
        QCOMPARE(root.callable()->module(), "cachelens_testdata");
        QCOMPARE(root.callable()->name(), "Point");
        const auto args = root.args()->items();
        QCOMPARE(args.size(), 2u);
        QCOMPARE(args[0]->as_int(), 3);
        QCOMPARE(args[1]->as_int(), -4);
        QVERIFY(root.state() == nullptr);
    }

    void newObjAndBuildGiveAttributes() {
        const auto doc = corpus("plain_instance_p4.pkl");
        const Value& root = doc->root();
        QCOMPARE(root.construction(), Construction::NewObj);
        QCOMPARE(root.class_name(), "cachelens_testdata.Plain");
        QVERIFY(root.args()->is(Kind::Tuple));
        QVERIFY(root.args()->items().empty());
        QCOMPARE(root.attribute("name")->text(), "p");
        QCOMPARE(root.attribute("values")->items().size(), 2u);
        QCOMPARE(root.attribute("nested")->class_name(), "cachelens_testdata.Point");
        QVERIFY(root.attribute("missing") == nullptr);
        QCOMPARE(global_names(*doc),
                 QStringList({"cachelens_testdata.Plain", "cachelens_testdata.Point"}));
    }

    void protocolZeroInstancesUseCopyreg() {
        const auto doc = corpus("plain_instance_p0.pkl");
        const Value& root = doc->root();
        QCOMPARE(root.class_name(), "copyreg._reconstructor");
        QCOMPARE(root.args()->items()[0]->name(), "Plain");
        QCOMPARE(root.attribute("name")->text(), "p");
        QCOMPARE(doc->protocol, 0);
    }

    void slotsStateIsATuple() {
        const auto slotted = corpus("slots_p4.pkl");
        QCOMPARE(slotted->root().state()->kind(), Kind::Tuple);
        QCOMPARE(slotted->root().attribute("a")->as_int(), 1);
        QCOMPARE(slotted->root().attribute("b")->text(), "b");
        const auto both = corpus("slots_and_dict_p4.pkl");
        QCOMPARE(both->root().attribute("attr")->text(), "in the dict");
        QCOMPARE(both->root().attribute("slot")->text(), "in a slot");
    }

    void longAttributeNamesAreFoundAndPrintedCut() {
        const auto doc = corpus("long_attribute_name_p4.pkl");
        std::string name;
        for (int i = 0; i < 200; ++i) {
            name += "\xc3\xa9"; // é: 400 bytes in all, past the 256 bytes keys are indexed by
        }
        QCOMPARE(doc->root().attribute(name)->as_int(), 1);
        QCOMPARE(doc->root().attribute("short")->as_int(), 2);
        QVERIFY(doc->root().attribute(name.substr(2)) == nullptr);
        // repr cuts the name after 240 bytes: 120 characters.
        QVERIFY(repr(doc->root()).starts_with("Plain(" + name.substr(0, 240) + "...=1, short=2"));
    }

    void newObjExKeepsKeywordArguments() {
        const auto doc = corpus("newobj_ex_p4.pkl");
        const Value& root = doc->root();
        QCOMPARE(root.construction(), Construction::NewObjEx);
        QCOMPARE(root.args()->items().size(), 2u);
        QCOMPARE(root.kwargs()->kind(), Kind::Dict);
        QCOMPARE(root.kwargs()->find("key")->text(), "word");
        QVERIFY(root.kwargs()->find("other")->is_none());
    }

    void protocolZeroAndOneConstructions() {
        const auto inst = corpus("p0_inst.pkl");
        QCOMPARE(inst->root().construction(), Construction::Inst);
        QCOMPARE(inst->root().class_name(), "cachelens_testdata.Point");
        QCOMPARE(inst->root().args()->items()[0]->text(), "x");
        QCOMPARE(inst->root().attribute("extra")->as_int(), 9);
        const auto obj = corpus("p1_obj.pkl");
        QCOMPARE(obj->root().construction(), Construction::Obj);
        QCOMPARE(obj->root().args()->items().size(), 2u);
        QCOMPARE(obj->root().attribute("k")->as_int(), 5);
    }

    void subclassesOfListAndDictGetTheirItems() {
        const auto list = corpus("list_subclass_p4.pkl");
        QCOMPARE(list->root().kind(), Kind::Object);
        QCOMPARE(list->root().items().size(), 3u);
        QCOMPARE(list->root().items()[2]->as_int(), 3);
        const auto dict = corpus("dict_subclass_p4.pkl");
        QCOMPARE(dict->root().dict_items().size(), 2u);
        QCOMPARE(dict->root().dict_items()[0].key->text(), "a");
        const auto mutated = corpus("p2_object_mutations.pkl");
        QCOMPARE(mutated->root().items().size(), 3u);
        QCOMPARE(mutated->root().dict_items().size(), 2u);
        // Two BUILDs of dicts merge, as __dict__.update() would.
        QCOMPARE(mutated->root().attribute("a")->as_int(), 1);
        QCOMPARE(mutated->root().attribute("b")->as_int(), 2);
    }

    void scalarKinds() {
        const auto ints = corpus("int64_edges_p4.pkl");
        const auto edges = ints->root().items();
        QCOMPARE(edges[3]->kind(), Kind::Int);
        QCOMPARE(edges[3]->as_int(), std::numeric_limits<std::int64_t>::max());
        QCOMPARE(edges[4]->as_int(), std::numeric_limits<std::int64_t>::min());
        const auto bigints = corpus("bigints_p2.pkl");
        QCOMPARE(bigints->root().items()[0]->kind(), Kind::BigInt);
        QCOMPARE(bigints->root().items()[0]->to_decimal(), "9223372036854775808");
        QCOMPARE(bigints->root().items()[1]->to_decimal(), "-9223372036854775809");
        const auto long4 = corpus("bigint_long4_p4.pkl");
        QVERIFY(long4->root().bigint_bytes().size() > 255);
        QVERIFY(long4->root().to_decimal().starts_with("-"));

        const auto floats = corpus("floats_p1.pkl");
        const auto reals = floats->root().items();
        QCOMPARE(reals[1]->kind(), Kind::Float);
        QVERIFY(std::signbit(reals[1]->as_float()) && reals[1]->as_float() == 0.0);
        QVERIFY(std::isinf(reals[10]->as_float()));
        QVERIFY(std::isnan(corpus("float_nan_p0.pkl")->root().as_float()));

        const auto bools = corpus("bools_p0.pkl");
        QCOMPARE(bools->root().items()[0]->kind(), Kind::Bool);
        QVERIFY(bools->root().items()[0]->as_bool());

        QCOMPARE(corpus("bytes_small_p3.pkl")->root().kind(), Kind::Bytes);
        QCOMPARE(corpus("bytes_small_p3.pkl")->root().text(), std::string_view("\0\x01"
                                                                               "abc\xff\x80'",
                                                                               8));
        QCOMPARE(corpus("bytearray_p5.pkl")->root().kind(), Kind::ByteArray);
        QCOMPARE(corpus("str_non_bmp_p4.pkl")->root().text(),
                 "\xf0\x9f\x98\x80 \xf0\x9d\x84\x9e \xf0\x90\x8d\x88 \xf0\x9f\x9a\x80");
        QVERIFY(corpus("none_p2.pkl")->root().is_none());
    }

    void containers() {
        const auto empty = corpus("empty_containers_p4.pkl");
        const auto parts = empty->root().items();
        const Kind expected[] = {Kind::List, Kind::Tuple, Kind::Dict, Kind::Set, Kind::FrozenSet};
        QCOMPARE(parts.size(), std::size(expected));
        for (std::size_t i = 0; i < parts.size(); ++i) {
            QCOMPARE(parts[i]->kind(), expected[i]);
            QVERIFY(parts[i]->items().empty() && parts[i]->dict_items().empty());
        }
        const auto keys = corpus("dict_keys_p4.pkl");
        // {1: ..., True: ...} is one key in Python: the first key, the last value.
        QCOMPARE(keys->root().dict_items().size(), 7u);
        QCOMPARE(keys->root().dict_items()[0].value->text(), "bool is 1");
        QCOMPARE(keys->root().find("s")->text(), "str");
        QCOMPARE(keys->root().dict_items()[2].key->kind(), Kind::Tuple);

        const auto many = corpus("dict_many_p4.pkl");
        QCOMPARE(many->root().dict_items().size(), 1200u);
        QCOMPARE(many->root().find("key1199")->as_int(), 1199);
        QCOMPARE(corpus("list_large_p2.pkl")->root().items().size(), 1500u);
        QCOMPARE(corpus("set_ints_p4.pkl")->root().kind(), Kind::Set);
        QCOMPARE(corpus("set_ints_p4.pkl")->root().items().size(), 3u);
        QCOMPARE(corpus("p4_set_dedupe.pkl")->root().items().size(), 2u);
    }

    void sharedAndRecursiveReferencesAreTheSameNode() {
        const auto shared = corpus("shared_p4.pkl");
        QVERIFY(shared->root().find("a") == shared->root().find("b"));
        const auto pair = shared->root().find("c")->items();
        QCOMPARE(pair[0]->text().data(), pair[1]->text().data());

        const auto list = corpus("recursive_list_p2.pkl");
        QVERIFY(list->root().items()[1] == &list->root());
        const auto dict = corpus("recursive_dict_p0.pkl");
        QVERIFY(dict->root().find("me") == &dict->root());
        const auto tuple = corpus("recursive_tuple_p1.pkl");
        QVERIFY(tuple->root().items()[0]->items()[0] == &tuple->root());
    }

    void extensionsAndPersistentIdsStayNumbersAndData() {
        const auto ext = corpus("extensions_p2.pkl");
        const auto items = ext->root().items();
        QCOMPARE(items[0]->kind(), Kind::Extension);
        QCOMPARE(items[0]->extension_code(), 0x7f);
        QCOMPARE(items[1]->extension_code(), 0x1234);
        QCOMPARE(items[2]->extension_code(), 0x123456);
        QCOMPARE(items[3]->kind(), Kind::Object);
        QCOMPARE(items[3]->callable()->kind(), Kind::Extension);
        QVERIFY(items[3]->class_name().empty());
        QVERIFY(ext->globals.empty());

        const auto pid = corpus("persistent_ids_p4.pkl");
        const Value* first = pid->root().items()[0];
        QCOMPARE(first->kind(), Kind::PersistentId);
        QCOMPARE(first->persistent_id()->items()[0]->text(), "storage");
        QCOMPARE(corpus("persistent_ids_p0.pkl")->root().items()[1]->persistent_id()->text(),
                 "storage/1");
    }

    void oldStringOpcodes() {
        const auto strings = corpus("p0_string.pkl");
        const auto items = strings->root().items();
        QCOMPARE(items[0]->kind(), Kind::Str);
        QCOMPARE(items[0]->text(), "a\nbA'c");
        QCOMPARE(items[2]->kind(), Kind::Bytes); // not ASCII: Python 2 bytes
        QCOMPARE(items[2]->text(), "\xe9t\xe9");
        const auto bin = corpus("p1_binstring.pkl");
        QCOMPARE(bin->root().items()[0]->text(), "hello");
        QCOMPARE(bin->root().items()[2]->kind(), Kind::Bytes);
        QCOMPARE(corpus("p0_unicode.pkl")->root().text(),
                 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\\\u0041");
    }

    void selfReferenceIsNotNesting() {
        // l = []; l += [l] * 600: one level of nesting however often it holds itself.
        const auto result = decode("]q\x00("s + repeat("h\x00"sv, 600) + "e.");
        QVERIFY2(result, describe_failure(result).c_str());
        QCOMPARE((*result)->root().items().size(), 600u);
        QVERIFY((*result)->root().items()[599] == &(*result)->root());
    }

    // ---- The real PyTorch cache entries ---------------------------------------------------

    void realEntries_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QJsonObject>("expected");
        const QJsonArray expectations =
            test::read_json(test::test_data("pickles/fixtures.json")).array();
        QSet<QString> listed;
        for (const auto& entry : expectations) {
            const QJsonObject object = entry.toObject();
            listed.insert(object["path"].toString());
            QTest::newRow(qPrintable(object["path"].toString()))
                << object["path"].toString() << object;
        }
        // Every entry on disk has its expectations (regenerate them with make_pickles.py).
        namespace fs = std::filesystem;
        int on_disk = 0;
        for (const auto& file : fs::recursive_directory_iterator(fixtures_root())) {
            const std::string relative = fs::relative(file.path(), fixtures_root()).string();
            const bool entry =
                file.is_regular_file() && (relative.find("/fxgraph/") != std::string::npos ||
                                           relative.find("/aotautograd/") != std::string::npos);
            if (entry) {
                ++on_disk;
                QVERIFY2(listed.contains(QString::fromStdString(relative)), relative.c_str());
            }
        }
        QCOMPARE(on_disk, listed.size());
        QVERIFY(on_disk >= 30);
    }

    void realEntries() {
        QFETCH(QString, path);
        QFETCH(QJsonObject, expected);
        const auto file = MappedFile::open(fixtures_root() / path.toStdString());
        QVERIFY2(file, file ? "" : file.error().describe().c_str());
        const std::string_view bytes = (*file)->bytes();
        const auto result = unpickle(*file);
        QVERIFY2(result, describe_failure(result).c_str());
        const Document& doc = **result;
        const Value& root = doc.root();

        QCOMPARE(doc.protocol, 4);
        QCOMPARE(root.construction(), Construction::NewObj);
        const std::filesystem::path on_disk(path.toStdString());
        const std::string key = on_disk.parent_path().filename().string();
        if (path.contains("/fxgraph/")) {
            QCOMPARE(root.class_name(), "torch._inductor.output_code.CompiledFxGraph");
            QCOMPARE(root.attribute("_fx_graph_cache_key")->text(), key);
            QVERIFY(root.attribute("source_code")->text().find("def call(") !=
                    std::string_view::npos);
        } else {
            QCOMPARE(root.class_name(),
                     "torch._functorch._aot_autograd.aot_autograd_result.AOTAutogradResult");
            QVERIFY(key.starts_with("a"));
            // The forward graph's FX key is how an AOT entry links to its FX entry.
            const Value* info = root.attribute("compiled_fw")->attribute("fx_graph_cache_info");
            QCOMPARE(info->kind(), Kind::Tuple);
            QVERIFY(info->items()[0]->text().starts_with("f"));
            QCOMPARE(info->items()[0]->text().size(), 52u);
        }
        QCOMPARE(global_names(doc), expected["globals"].toVariant().toStringList());

        // Nothing was resolved: every Global node is a name from the document's list,
        // and getattr stays a recorded call with its (object, name) arguments.
        std::set<std::pair<std::string_view, std::string_view>> names(doc.globals.begin(),
                                                                      doc.globals.end());
        const char* const begin = bytes.data();
        const char* const end = bytes.data() + bytes.size();
        int getattr_calls = 0;
        int views = 0;
        for_each_node(root, [&](const Value& node) {
            if (node.is(Kind::Global)) {
                QVERIFY(names.contains({node.module(), node.name()}));
            }
            if (node.is(Kind::Object) && node.class_name() == "builtins.getattr") {
                QCOMPARE(node.construction(), Construction::Reduce);
                QCOMPARE(node.args()->items().size(), 2u);
                QCOMPARE(node.args()->items()[1]->kind(), Kind::Str);
                ++getattr_calls;
            }
            // Strings and bytes are views into the mapped file, not copies.
            if ((node.is(Kind::Str) || node.is(Kind::Bytes)) && !node.text().empty()) {
                QVERIFY(node.text().data() >= begin &&
                        node.text().data() + node.text().size() <= end);
                ++views;
            }
        });
        QCOMPARE(getattr_calls > 0, names.contains({"builtins", "getattr"}));
        QVERIFY(views > 100);

        // The whole tree, printed, is byte for byte what CPython's reference VM decodes.
        const std::string bounded = repr(root);
        QCOMPARE(qsizetype(bounded.size()), qsizetype(expected["repr_bytes"].toInteger()));
        QCOMPARE(qstr(hash::sha256_hex(bounded)), expected["repr_sha256"].toString());
        const std::string whole = repr(root, unbounded_repr());
        QCOMPARE(qsizetype(whole.size()), qsizetype(expected["whole_bytes"].toInteger()));
        QCOMPARE(qstr(hash::sha256_hex(whole)), expected["whole_sha256"].toString());
    }

    void cudaEntriesCallGetattrAsData() {
        // Every CUDA FX entry of the devset refers to builtins.getattr (the Triton bundle
        // rebuilds enums and configs with it): a reader that resolved globals would call it.
        int entries = 0;
        for (const auto& file :
             std::filesystem::recursive_directory_iterator(test::fixture("devset/cache/fxgraph"))) {
            if (!file.is_regular_file()) {
                continue;
            }
            const auto result = unpickle_file(file.path());
            QVERIFY2(result, describe_failure(result).c_str());
            QVERIFY(global_names(**result).contains("builtins.getattr"));
            ++entries;
        }
        QVERIFY(entries >= 10);
    }

    void errorsNameTheFile() {
        const auto missing = unpickle_file(sandbox_path("no-such-entry"));
        QVERIFY(!missing);
        QCOMPARE(missing.error().kind, ErrorKind::NotFound);
        QVERIFY(missing.error().path.ends_with("no-such-entry"));

        const auto damaged_path = sandbox_path("damaged");
        QFile damaged(QString::fromStdString(damaged_path.string()));
        QVERIFY(damaged.open(QIODevice::WriteOnly));
        damaged.write("\x80\x04\x95", 3);
        damaged.close();
        const auto result = unpickle_file(damaged_path);
        QVERIFY(!result);
        QCOMPARE(result.error().kind, ErrorKind::Truncated);
        QCOMPARE(result.error().path, damaged_path.string());
        QVERIFY(qstr(result.error().describe()).startsWith(qstr(damaged_path.string())));
        QVERIFY(damaged.remove());
    }

    // ---- Hostile input ---------------------------------------------------------------------

    void dangerousCallsStayData_data() {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<QString>("class_name");
        QTest::addColumn<QString>("marker");
        int rows = 0;
        auto row = [&](const char* name, const QString& class_name,
                       const std::function<std::string(const std::string&)>& make) {
            const QString marker = sandbox_.filePath(QString("marker-%1").arg(++rows));
            const std::string bytes = make(touch_command(marker));
            QTest::newRow(name) << QByteArray(bytes.data(), qsizetype(bytes.size())) << class_name
                                << marker;
        };
        row("os.system protocol 0", "os.system",
            [](const std::string& cmd) { return "cos\nsystem\n(V" + cmd + "\ntR."; });
        row("os.system protocol 2", "os.system", [](const std::string& cmd) {
            return "\x80\x02"
                   "cos\nsystem\n" +
                   binunicode(cmd) + "\x85R.";
        });
        row("os.system STACK_GLOBAL", "os.system", [](const std::string& cmd) {
            return "\x80\x04" + short_binunicode("os") + short_binunicode("system") + "\x93" +
                   binunicode(cmd) + "\x85R.";
        });
        row("posix.system", "posix.system",
            [](const std::string& cmd) { return "cposix\nsystem\n(S'" + cmd + "'\ntR."; });
        row("os.system INST", "os.system",
            [](const std::string& cmd) { return "(V" + cmd + "\nios\nsystem\n."; });
        row("os.system OBJ", "os.system",
            [](const std::string& cmd) { return "(cos\nsystem\nV" + cmd + "\no."; });
        row("builtins.eval", "builtins.eval", [](const std::string& cmd) {
            return "\x80\x02"
                   "cbuiltins\neval\n" +
                   binunicode("__import__('os').system('" + cmd + "')") + "\x85R.";
        });
        row("builtins.exec", "builtins.exec", [](const std::string& cmd) {
            return "\x80\x02"
                   "c__builtin__\nexec\n" +
                   binunicode("import os; os.system('" + cmd + "')") + "\x85R.";
        });
        row("subprocess.Popen", "subprocess.Popen", [](const std::string& cmd) {
            const std::string path = cmd.substr(cmd.find(' ') + 1);
            return "\x80\x02"
                   "csubprocess\nPopen\n(" +
                   binunicode("touch") + binunicode(path) + "l\x85R.";
        });
        row("getattr(__import__('os'), 'system')", "", [](const std::string& cmd) {
            return "\x80\x02"
                   "cbuiltins\ngetattr\n"
                   "cbuiltins\n__import__\n" +
                   binunicode("os") + "\x85R" + binunicode("system") + "\x86R" + binunicode(cmd) +
                   "\x85R.";
        });
        row("os.system through __setstate__", "argparse.Namespace", [](const std::string& cmd) {
            // A first BUILD puts os.system in the instance __dict__ as __setstate__; in
            // CPython the second BUILD would then call it with the command.
            return "\x80\x02"
                   "cargparse\nNamespace\n)\x81"
                   "}" +
                   binunicode("__setstate__") + "cos\nsystem\nsb" + binunicode(cmd) + "b.";
        });
    }

    void dangerousCallsStayData() {
        QFETCH(QByteArray, pickle);
        QFETCH(QString, class_name);
        QFETCH(QString, marker);
        const auto result = decode(pickle.toStdString());
        QVERIFY2(result, describe_failure(result).c_str());
        const Value& root = (*result)->root();
        QCOMPARE(root.kind(), Kind::Object);
        QCOMPARE(qstr(root.class_name()), class_name);
        // The command is only text in the tree, reachable and printable.
        const std::string text = repr(root, unbounded_repr());
        QVERIFY2(qstr(text).contains(marker), text.c_str());
        bool command_seen = false;
        for_each_node(root, [&](const Value& node) {
            command_seen |= node.is_str() && qstr(node.text()).contains(marker);
        });
        QVERIFY(command_seen);
        // Decoding, walking and printing the tree ran nothing.
        QVERIFY2(!QFile::exists(marker), qPrintable(marker + " was created"));

        // The same bytes from a file take the same path.
        const auto path = sandbox_path("hostile.pkl");
        QFile file(QString::fromStdString(path.string()));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(pickle);
        file.close();
        const auto from_file = unpickle_file(path);
        QVERIFY2(from_file, describe_failure(from_file).c_str());
        QCOMPARE(repr((*from_file)->root()), repr(root));
        QVERIFY(file.remove());
        QVERIFY(!QFile::exists(marker));
    }

    void hostileInputIsRefused_data() {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("needle");
        QTest::addColumn<qulonglong>("max_alloc"); // 0: the default Limits
        QTest::addColumn<qulonglong>("max_memo");
        auto row = [](const char* name, const std::string& bytes, ErrorKind kind,
                      const char* needle, qulonglong max_alloc = 0, qulonglong max_memo = 0) {
            QTest::newRow(name) << QByteArray(bytes.data(), qsizetype(bytes.size())) << int(kind)
                                << QString(needle) << max_alloc << max_memo;
        };
        constexpr qulonglong kSmallBudget = 64 * 1024;
        constexpr std::uint64_t kHuge = std::uint64_t{1} << 60;
        using enum ErrorKind;

        // Framing and opcodes.
        row("empty input", "", Truncated, "without a STOP");
        row("no STOP", "\x80\x04N", Truncated, "without a STOP");
        row("unknown opcode 0xff", "\x80\x02\xff.", Corrupt, "unknown opcode");
        row("unknown opcode z", "Nz.", Corrupt, "offset 1");
        row("PROTO 6", "\x80\x06N.", Unsupported, "protocol 6");
        row("PROTO 255", "\x80\xff", Unsupported, "protocol 255");
        row("out-of-band NEXT_BUFFER", "\x80\x05\x97.", Unsupported, "out-of-band");
        row("READONLY_BUFFER on nothing", "\x80\x05\x98.", Corrupt, "stack is empty");

        // Stack and MARK discipline.
        row("STOP on an empty stack", ".", Corrupt, "stack is empty");
        row("STOP with only a MARK above", "N(.", Corrupt, "stack is empty");
        row("POP_MARK without a MARK", "N1.", Corrupt, "no MARK");
        row("TUPLE without a MARK", "NNt.", Corrupt, "no MARK");
        row("TUPLE2 with one item", "N\x86.", Corrupt, "needs 2 items");
        row("TUPLE3 across a MARK", "NN(N\x87.", Corrupt, "needs 3 items");
        row("APPENDS with no list",
            "(K\x01"
            "e.",
            Corrupt, "no list below the MARK");
        row("APPEND to a dict",
            "}K\x01"
            "a.",
            Corrupt, "cannot append to a dict");
        row("APPEND to an int",
            "K\x01K\x02"
            "a.",
            Corrupt, "cannot append to a int");
        row("SETITEMS on a list", "](K\x01K\x02u.", Corrupt, "cannot set an item on a list");
        row("SETITEMS with an odd count", "}(K\x01u.", Corrupt, "odd number");
        row("DICT with an odd count",
            "(K\x01"
            "d.",
            Corrupt, "odd number");
        row("ADDITEMS to a frozenset", "(\x91(K\x01\x90.", Corrupt, "frozenset");
        row("ADDITEMS to a tuple", ")(K\x01\x90.", Corrupt, "cannot add items to a tuple");
        row("BUILD on a list", "]}b.", Corrupt, "BUILD on a list");
        row("BUILD on None", "N}b.", Corrupt, "BUILD on a None");
        row("OBJ without a class", "(o.", Corrupt, "OBJ");
        row("REDUCE on an empty stack", "R.", Corrupt, "stack is empty");
        row("NEWOBJ_EX short of items", "N)\x92.", Corrupt, "stack is empty");
        row("STACK_GLOBAL of ints", "K\x01K\x02\x93.", Corrupt, "STACK_GLOBAL needs two str");

        // Text.
        row("invalid UTF-8 in BINUNICODE", "X\x02\x00\x00\x00\xc3\x28."s, Corrupt, "UTF-8");
        row("overlong UTF-8", "\x8c\x02\xc0\xaf.", Corrupt, "UTF-8");
        row("code point past U+10FFFF", "\x8c\x04\xf4\x90\x80\x80.", Corrupt, "UTF-8");
        row("UTF-8 cut short", "\x8c\x02\xe2\x82.", Corrupt, "UTF-8");
        row("GLOBAL not UTF-8", "c\xff\nx\n.", Corrupt, "UTF-8");
        row("PERSID not ASCII", "P\xc3\xa9\n.", Corrupt, "ASCII");
        row("STRING without quotes", "Sabc\n.", Corrupt, "quoted");
        row("STRING with a bad escape", "S'\\x4'\n.", Corrupt, "\\x");
        row("UNICODE with a bad escape", "V\\u12\n.", Corrupt, "\\u");
        row("UNICODE past U+10FFFF", "V\\U00110000\n.", Corrupt, "\\U");
        row("INT without its newline", "I12", Truncated, "newline");
        row("INT that is not a number", "Iabc\n.", Corrupt, "invalid integer literal");
        row("INT with leading zeros", "I007\n.", Corrupt, "leading zeros");
        row("FLOAT that is not a number", "Fx\n.", Corrupt, "invalid float");

        // Lengths far past the data: refused before anything is allocated, even on a
        // budget far smaller than what they claim.
        row("BINBYTES8 of 2^60", "\x8e" + le64(kHuge) + "abc.", Truncated, "exceeds", kSmallBudget);
        row("BINUNICODE8 of 2^60", "\x8d" + le64(kHuge) + "abc.", Truncated, "exceeds",
            kSmallBudget);
        row("BYTEARRAY8 of 2^60", "\x80\x05\x96" + le64(kHuge) + "abc.", Truncated, "exceeds",
            kSmallBudget);
        row("BINBYTES8 of 2^64-1", "\x8e" + le64(~std::uint64_t{0}) + ".", Truncated, "exceeds",
            kSmallBudget);
        row("BINBYTES of 4 GiB", "B" + le32(0xffffffff) + "abc.", Truncated, "exceeds",
            kSmallBudget);
        row("BINUNICODE of 4 GiB", "X" + le32(0xffffffff) + ".", Truncated, "exceeds",
            kSmallBudget);
        row("BINSTRING of 2 GiB", "T" + le32(0x7fffffff) + ".", Truncated, "exceeds", kSmallBudget);
        row("BINSTRING with a negative length", "T" + le32(0xffffffff) + ".", Corrupt, "negative");
        row("FRAME of 2^60", "\x80\x04\x95" + le64(kHuge) + "N.", Truncated, "frame", kSmallBudget);
        row("LONG4 of 2 GiB", "\x8b" + le32(0x7fffffff) + ".", LimitExceeded,
            "integer of 2147483647 bytes", kSmallBudget);
        row("LONG4 with a negative length", "\x8b" + le32(0x80000000) + ".", Corrupt, "negative");
        row("LONG1 cut short", "\x8a\xc8" + repeat("\x01", 10), Truncated, "exceeds");
        row("INT of 20000 digits", "I" + repeat("9", 20000) + "\n.", LimitExceeded,
            "longer than the limit");
        row("LONG of 20000 digits", "L" + repeat("7", 20000) + "L\n.", LimitExceeded,
            "longer than the limit");

        // The memo.
        row("LONG_BINPUT 0xFFFFFFFF", "N" + long_binput(0xffffffff) + ".", LimitExceeded,
            "memo index 4294967295");
        row("PUT past the limit", "Np99999999999\n.", LimitExceeded, "memo index 99999999999");
        row("BINGET never PUT", "h\x07.", Corrupt, "memo key 7 was never stored");
        row("LONG_BINGET 0xFFFFFFFF", long_binget(0xffffffff) + ".", Corrupt,
            "memo key 4294967295 was never stored");
        row("GET never PUT", "Nq\x00g5\n."s, Corrupt, "memo key 5 was never stored");
        row("GET of garbage", "g-1\n.", Corrupt, "invalid memo index");
        row("PUT negative", "Np-1\n.", Corrupt, "negative PUT");
        row("PUT of garbage", "Npx\n.", Corrupt, "invalid memo index");
        row("BINPUT on an empty stack", "q\x00N."s, Corrupt, "stack is empty");
        row("millions of MEMOIZE", "N" + repeat("\x94", 5'000'000) + ".", LimitExceeded,
            "memo index 4194304 is over the limit of 4194304");
        row("MEMOIZE past a small memo limit", "N" + repeat("\x94", 1001) + ".", LimitExceeded,
            "over the limit of 1000", 0, 1000);

        // Nesting: 100k levels, built each way a pickle can nest.
        constexpr std::size_t kDeep = 100'000;
        row("100k MARKs then LISTs", repeat("(", kDeep) + repeat("l", kDeep) + ".", LimitExceeded,
            "MARKs nested deeper than the limit of 512");
        row("100k EMPTY_LIST + APPEND", repeat("]", kDeep) + repeat("a", kDeep - 1) + ".",
            LimitExceeded, "deeper than the limit of 512");
        row("100k EMPTY_LIST + MARK + APPENDS", repeat("](", kDeep) + repeat("ee", kDeep) + ".",
            LimitExceeded, "MARKs nested deeper");
        row("100k TUPLE1", "N" + repeat("\x85", kDeep) + ".", LimitExceeded,
            "deeper than the limit");
        row("100k dicts by SETITEM", "}" + repeat("K\x00}"sv, kDeep) + repeat("s", kDeep) + ".",
            LimitExceeded, "deeper than the limit");
        row("100k BINPERSID", "N" + repeat("Q", kDeep) + ".", LimitExceeded,
            "deeper than the limit");
        row("100k REDUCE of the previous result", "N" + repeat(")R", kDeep) + ".", LimitExceeded,
            "deeper than the limit");
        row("100k BUILD of the previous object",
            "N)R" + repeat("N)R", kDeep) + repeat("b", kDeep) + ".", LimitExceeded,
            "deeper than the limit");

        // The allocation budget.
        row("a list past a 64 KiB budget", "](" + repeat("K\x01", 100'000) + "e.", LimitExceeded,
            "more than the limit of 65536 bytes", kSmallBudget);
        row("a string copy past a 1 KiB budget", "V" + repeat("a", 4096) + "\n.", LimitExceeded,
            "more than the limit of 1024 bytes", 1024);
        row("EXT1 0", "\x82\x00."s, Corrupt, "not positive");
        row("EXT4 negative", "\x84" + le32(0x80000000) + ".", Corrupt, "not positive");
    }

    void hostileInputIsRefused() {
        QFETCH(QByteArray, pickle);
        QFETCH(int, kind);
        QFETCH(QString, needle);
        QFETCH(qulonglong, max_alloc);
        QFETCH(qulonglong, max_memo);
        Limits limits;
        if (max_alloc != 0) {
            limits.max_alloc = max_alloc;
        }
        if (max_memo != 0) {
            limits.max_memo = max_memo;
        }
        QElapsedTimer timer;
        timer.start();
        const auto result = decode(pickle.toStdString(), limits);
        hostile_ms_ += timer.elapsed();
        const std::string why =
            error_mismatch(result, static_cast<ErrorKind>(kind), needle.toStdString());
        QVERIFY2(why.empty(), why.c_str());
        // Errors say where: "pickle: offset N (OPCODE): ..." or the end of the data.
        QVERIFY2(result.error().message.starts_with("pickle: "), result.error().message.c_str());
    }

    void limitsAreExactAtTheBoundary() {
        Limits limits;
        limits.max_depth = 16;
        const auto nested = [](std::size_t levels) {
            return repeat("]", levels) + repeat("a", levels - 1) + ".";
        };
        QVERIFY(decode(nested(16), limits));
        QCOMPARE(decode(nested(16), limits).value()->root().depth(), 16u);
        QCOMPARE(decode(nested(17), limits).error().kind, ErrorKind::LimitExceeded);
        QVERIFY(decode(repeat("(", 16) + "N" + repeat("t", 16) + ".", limits));
        QCOMPARE(decode(repeat("(", 17) + "N" + repeat("t", 17) + ".", limits).error().kind,
                 ErrorKind::LimitExceeded);

        limits = {};
        limits.max_memo = 8;
        QVERIFY(decode("N" + long_binput(7) + long_binget(7) + "\x86.", limits));
        QCOMPARE(decode("N" + long_binput(8) + ".", limits).error().kind, ErrorKind::LimitExceeded);
        // The highest index the default limit allows works (and costs 32 MiB of memo).
        QVERIFY(decode("N" + long_binput(4'194'303) + long_binget(4'194'303) + "\x86."));

        // The biggest integer allowed, and one byte more.
        QVERIFY(decode("\x8b" + le32(4096) + repeat("\x7f", 4096) + "."));
        QCOMPARE(decode("\x8b" + le32(4097) + repeat("\x7f", 4097) + ".").error().kind,
                 ErrorKind::LimitExceeded);
    }

    void manyDistinctKeysDecodeInLinearTime() {
        // 200k members each way: an insertion that searched the members before it would
        // make these 2*10^10 comparisons.
        constexpr std::uint32_t kCount = 200'000;
        QElapsedTimer timer;
        timer.start();
        std::string int_keys = "}(";
        std::string str_keys = "}(";
        std::string set_items = "\x80\x04\x8f(";
        for (std::uint32_t i = 0; i < kCount; ++i) {
            int_keys += "J" + le32(i) + "N";
            str_keys += short_binunicode("k" + std::to_string(i)) + "J" + le32(i);
            set_items += "J" + le32(i);
        }
        int_keys += "u.";
        str_keys += "u.";
        set_items += "\x90.";

        const auto ints = decode(int_keys);
        QVERIFY2(ints, describe_failure(ints).c_str());
        QCOMPARE((*ints)->root().dict_items().size(), std::size_t{kCount});
        const auto strs = decode(str_keys);
        QVERIFY2(strs, describe_failure(strs).c_str());
        QCOMPARE((*strs)->root().dict_items().size(), std::size_t{kCount});
        QCOMPARE((*strs)->root().find("k199999")->as_int(), 199'999);
        QVERIFY((*strs)->root().find("k200000") == nullptr);
        const auto set = decode(set_items);
        QVERIFY2(set, describe_failure(set).c_str());
        QCOMPARE((*set)->root().items().size(), std::size_t{kCount});
        // Setting every key again replaces values in place.
        const auto again = decode("}(" + int_keys.substr(2, int_keys.size() - 4) +
                                  int_keys.substr(2, int_keys.size() - 4) + "u.");
        QVERIFY2(again, describe_failure(again).c_str());
        QCOMPARE((*again)->root().dict_items().size(), std::size_t{kCount});
        hostile_ms_ += timer.elapsed();
    }

    void repeatedHugeKeysAreCheap() {
        // One memoized 1 MiB string used as a key 200k times costs 3 bytes of pickle a
        // time: hashing or comparing it each time would read 200 GiB.
        constexpr std::size_t kCount = 200'000;
        const std::string huge = binunicode(repeat("k", 1 << 20)) + "q\x00"s;
        QElapsedTimer timer;
        timer.start();
        const auto dict = decode(huge + "}(" + repeat("h\x00N"sv, kCount) + "u.");
        QVERIFY2(dict, describe_failure(dict).c_str());
        QVERIFY(!(*dict)->root().dict_items().empty());
        QVERIFY((*dict)->root().find(repeat("k", 1 << 20))->is_none());
        const auto set = decode("\x80\x04" + huge + "\x8f(" + repeat("h\x00"sv, kCount) + "\x90.");
        QVERIFY2(set, describe_failure(set).c_str());
        QVERIFY(!(*set)->root().items().empty());
        // Nine distinct huge keys first, so that the dict has a hash index to look in.
        std::string indexed = "}(";
        for (char last = 'a'; last < 'j'; ++last) {
            indexed += binunicode(repeat("k", 1 << 20) + last) + "N";
        }
        const auto nine = decode(indexed + huge.substr(0, huge.size() - 2) + "q\x00N"s +
                                 repeat("h\x00N"sv, kCount) + "u.");
        QVERIFY2(nine, describe_failure(nine).c_str());
        QVERIFY((*nine)->root().dict_items().size() >= 10);
        // A global's module and name are names, not megabytes: refused, not hashed 200k times.
        const auto globals =
            decode("\x80\x04" + huge + "(" + repeat("h\x00h\x00\x93"sv, kCount) + "t.");
        const std::string why = error_mismatch(globals, ErrorKind::LimitExceeded, "global name");
        QVERIFY2(why.empty(), why.c_str());
        hostile_ms_ += timer.elapsed();
    }

    void manyDistinctGlobalsStayCheap() {
        // 100 modules x 100 names of about 1000 bytes each: 10k distinct globals from 200
        // memoized strings and 100 KiB of opcodes. Remembering which globals were seen
        // must not copy each pair's 2 KB of text: that was 20 MB of heap, outside the
        // allocation budget, and grows with the square of the pickle's size.
        std::string pickle = "\x80\x04";
        for (int i = 0; i < 200; ++i) {
            const std::string text =
                repeat(i < 100 ? "m" : "n", 999) + char('A' + i % 50) + char('A' + i / 50);
            pickle += binunicode(text) + long_binput(std::uint32_t(i)) + "0";
        }
        pickle += "(";
        for (std::uint32_t module = 0; module < 100; ++module) {
            for (std::uint32_t name = 100; name < 200; ++name) {
                pickle += long_binget(module) + long_binget(name) + "\x93" + "0";
            }
        }
        pickle += "1N.";
        const std::size_t heap_before = heap_bytes_requested.load();
        const auto result = decode(pickle);
        const std::size_t heap_used = heap_bytes_requested.load() - heap_before;
        QVERIFY2(result, describe_failure(result).c_str());
        QCOMPARE((*result)->globals.size(), std::size_t{10'000});
        QVERIFY2(heap_used < (4u << 20),
                 qPrintable(QString("decoding asked for %1 bytes of heap").arg(heap_used)));
    }

    void printingHostileTreesIsBounded() {
        QElapsedTimer timer;
        timer.start();
        // A callable that reaches back to its own call through a list:
        // L = []; O = L(); L.append(O). Printing O prints L, which holds O...
        const auto cycle = decode("]q\x00)Rq\x01h\x00h\x01"
                                  "a0."s);
        QVERIFY2(cycle, describe_failure(cycle).c_str());
        QCOMPARE(repr((*cycle)->root()), "([...])()");
        // Callables of callables, as deep as the depth limit allows.
        const auto chain = decode("N" + repeat(")R", 500) + ".");
        QVERIFY2(chain, describe_failure(chain).c_str());
        QVERIFY(repr((*chain)->root()).size() < 200);

        // Nesting made through the memo: each list is appended to its parent while still
        // empty, so no container ever looks deep when it is changed. 100k levels.
        constexpr std::uint32_t kLevels = 100'000;
        std::string memo_chain;
        for (std::uint32_t i = 0; i < kLevels; ++i) {
            memo_chain += "]" + long_binput(i) + "0";
        }
        for (std::uint32_t i = 0; i + 1 < kLevels; ++i) {
            memo_chain += long_binget(i) + long_binget(i + 1) + "a0";
        }
        memo_chain += long_binget(0) + ".";
        const auto deep = decode(memo_chain);
        if (deep) {
            const std::string text = repr((*deep)->root());
            QVERIFY(text.starts_with(repeat("[", 12) + "[...]" + repeat("]", 12)));
            int levels = 0;
            for_each_node((*deep)->root(), [&](const Value&) { ++levels; });
            QCOMPARE(levels, int(kLevels));
        } else {
            QCOMPARE(deep.error().kind, ErrorKind::LimitExceeded);
        }

        // 64 x 64 references to one 32 MiB string: print 64 KiB of it, not read 128 GiB.
        const std::string big = binunicode(repeat("s", 32 << 20)) + "q\x00"
                                                                    "0"s;
        const auto wide =
            decode(big + "](" + repeat("](" + repeat("h\x00"sv, 64) + "e", 64) + "e.");
        QVERIFY2(wide, describe_failure(wide).c_str());
        const std::string text = repr((*wide)->root());
        QVERIFY(text.size() <= ReprOptions{}.max_length + 3);
        QVERIFY(text.starts_with("[['sss"));
        hostile_ms_ += timer.elapsed();
    }

    void truncatedRealEntryFails() {
        const std::string entry = read_bytes(small_fx_entry());
        QVERIFY(decode(entry));
        QElapsedTimer timer;
        timer.start();
        int cuts = 0;
        auto check_cut = [&](std::size_t length) {
            const auto result = decode(entry.substr(0, length));
            const std::string why = error_mismatch(result, ErrorKind::Truncated, "");
            QVERIFY2(why.empty(),
                     qPrintable(QString("cut at %1: %2").arg(length).arg(why.c_str())));
            ++cuts;
        };
        for (std::size_t length = 0; length < entry.size(); length += 97) {
            check_cut(length);
            if (QTest::currentTestFailed()) {
                return;
            }
        }
        check_cut(entry.size() - 1); // everything but STOP
        QVERIFY(cuts > 1000);
        hostile_ms_ += timer.elapsed();
    }

    void bitFlippedRealEntryNeverCrashes() {
        const std::string entry = read_bytes(small_fx_entry());
        std::mt19937_64 random(20251122); // fixed: a failure must be reproducible
        std::uniform_int_distribution<std::size_t> bit(0, entry.size() * 8 - 1);
        QElapsedTimer timer;
        timer.start();
        int decoded = 0;
        int refused = 0;
        for (int flip = 0; flip < 2000; ++flip) {
            std::string damaged = entry;
            const std::size_t at = bit(random);
            damaged[at / 8] = static_cast<char>(damaged[at / 8] ^ (1 << (at % 8)));
            const auto result = decode(std::move(damaged));
            if (!result) {
                QVERIFY(!result.error().message.empty());
                ++refused;
                continue;
            }
            // Whatever decoded can be walked and printed.
            std::size_t nodes = 0;
            for_each_node((*result)->root(), [&](const Value& node) {
                ++nodes;
                (void)node.class_name();
                (void)node.attribute("_fx_graph_cache_key");
                if (node.is(Kind::BigInt)) {
                    QVERIFY(!node.to_decimal().empty());
                }
            });
            QVERIFY(nodes > 0);
            QVERIFY(!repr((*result)->root()).empty());
            ++decoded;
        }
        // Most flips land in strings and bytes and change only their text.
        QVERIFY(decoded > 1000);
        QVERIFY(refused > 0);
        hostile_ms_ += timer.elapsed();
    }

    void allocationBudgetOnARealEntry() {
        Limits limits;
        limits.max_alloc = 4096;
        const auto result = unpickle_file(small_fx_entry(), limits);
        const std::string why =
            error_mismatch(result, ErrorKind::LimitExceeded, "more than the limit of 4096 bytes");
        QVERIFY2(why.empty(), why.c_str());
        QVERIFY(!result.error().path.empty());
    }

    void hostileCasesTookLittleTime() {
        // Not a benchmark: a guard that none of the cases above went quadratic (they take
        // about 2 s in an optimized build; a quadratic one would take hours).
        QVERIFY2(hostile_ms_ < kHostileBudgetMs,
                 qPrintable(QString("hostile cases took %1 ms").arg(hostile_ms_)));
    }

    void cleanupTestCase() {
        // Nothing any pickle named was ever run: the sandbox holds no marker.
        const QStringList left =
            QDir(sandbox_.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries);
        QVERIFY2(left.isEmpty(), qPrintable(left.join(", ")));
    }

private:
    std::shared_ptr<const Document> corpus(const std::string& file) {
        auto result = unpickle_file(test::test_data("pickles/" + file));
        if (!result) {
            qFatal("%s", result.error().describe().c_str());
        }
        return *result;
    }

    std::filesystem::path sandbox_path(const char* name) const {
        return sandbox_.filePath(name).toStdString();
    }

    QTemporaryDir sandbox_;
    qint64 hostile_ms_ = 0;
};

QTEST_GUILESS_MAIN(TestUnpickler)
#include "tst_unpickler.moc"
