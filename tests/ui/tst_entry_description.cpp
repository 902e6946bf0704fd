// One description of an entry (cachedir/entry_description.h), three readers:
// `cachelens show` (fields_text), `show --json` (fields_json) and the GUI's
// Overview (fieldNodes into EntryFieldsModel). A field added to the
// description once reaches all three, and every field of every fixture entry
// reaches each reader it is for.

#include "entry_json.h"
#include "entry_text.h"
#include "models/entry_fields_model.h"
#include "test_paths.h"
#include "text/engine_text.h"

#include <cachelens/cachedir/cache_dir.h>
#include <cachelens/cachedir/entry_description.h>

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace cachelens;
using cachedir::Field;
using ui::EntryFieldsModel;
using ui::EntryLink;

namespace {

struct Described {
    cachedir::Entry entry;
    cachedir::EntryContent content;
};

std::vector<Described> fixtureEntries() {
    std::vector<Described> out;
    for (const char* cache : {"devset/cache", "cpu_dev/cache"}) {
        const auto root = test::fixture(cache);
        auto scan = cachedir::scan_cache_dir(root);
        if (!scan) {
            qFatal("cannot scan %s", root.c_str());
        }
        for (const auto& entry : scan->entries()) {
            auto content = cachedir::load_entry(root, entry);
            if (content) {
                out.push_back({entry, std::move(*content)});
            }
        }
    }
    return out;
}

const Described& firstOfKind(const std::vector<Described>& entries, cachedir::FileKind kind) {
    for (const auto& described : entries) {
        if (described.entry.kind == kind) {
            return described;
        }
    }
    qFatal("no fixture entry of kind %s", std::string(to_string(kind)).c_str());
}

// The row of `text` show prints for a field: "  label(padded to 22) value".
std::string textRow(const std::string& label, const std::string& value, std::size_t depth = 0) {
    std::string name = std::string(2 * depth, ' ') + label;
    name.resize(std::max<std::size_t>(name.size(), 22), ' ');
    return "  " + name + " " + value + "\n";
}

QModelIndex rowNamed(const QAbstractItemModel& model, const QModelIndex& parent,
                     const QString& name) {
    for (int row = 0; row < model.rowCount(parent); ++row) {
        const QModelIndex index = model.index(row, EntryFieldsModel::NameColumn, parent);
        if (index.data().toString() == name) {
            return index;
        }
    }
    return {};
}

QString valueOf(const QModelIndex& nameIndex) {
    return nameIndex.siblingAtColumn(EntryFieldsModel::ValueColumn)
        .data(EntryFieldsModel::FullValueRole)
        .toString();
}

// The fields for kTree, in order, against the model's rows under `parent`.
void compareTree(const std::vector<Field>& fields, const EntryFieldsModel& model,
                 const QModelIndex& parent, const std::string& where) {
    int row = 0;
    for (const auto& field : fields) {
        if (!field.is_for(cachedir::kTree)) {
            continue;
        }
        const std::string at = where + " / " + field.label;
        QVERIFY2(row < model.rowCount(parent), ("the tree lacks " + at).c_str());
        const QModelIndex index = model.index(row, EntryFieldsModel::NameColumn, parent);
        QCOMPARE(index.data().toString(), ui::text(field.label));
        QCOMPARE(valueOf(index), ui::text(field.text));
        QCOMPARE(model.linkAt(index).has_value(), field.link.has_value());
        compareTree(field.children, model, index, at);
        if (QTest::currentTestFailed()) {
            return;
        }
        ++row;
    }
    QVERIFY2(row == model.rowCount(parent),
             ("the tree has rows not described at " + where).c_str());
}

// The fields for kJson against the JSON object or array `json`.
void compareJson(const std::vector<Field>& fields, const cli::Json& json, bool list,
                 const std::string& where) {
    std::size_t count = 0;
    for (const auto& field : fields) {
        if (!field.is_for(cachedir::kJson)) {
            continue;
        }
        const std::string at = where + " / " + field.key;
        QVERIFY2(list || json.contains(field.key), ("the JSON lacks " + at).c_str());
        const cli::Json& value = list ? json.at(count) : json.at(field.key);
        switch (field.shape) {
        case cachedir::FieldShape::Value:
            if (std::holds_alternative<std::monostate>(field.value)) {
                QVERIFY2(value.is_null(), at.c_str());
            } else if (!field.value_text().empty()) {
                QVERIFY2(value.is_string() && value.get<std::string>() == field.value_text(),
                         at.c_str());
            }
            break;
        case cachedir::FieldShape::List:
            QVERIFY2(value.is_array(), at.c_str());
            compareJson(field.children, value, true, at);
            break;
        case cachedir::FieldShape::Group:
            QVERIFY2(value.is_object(), at.c_str());
            compareJson(field.children, value, false, at);
            break;
        }
        if (QTest::currentTestFailed()) {
            return;
        }
        ++count;
    }
    QVERIFY2(count == json.size(), ("the JSON has values not described at " + where).c_str());
}

// Every field for kText that `options` asks for: its label and text are in `text`.
void checkText(const std::vector<Field>& fields, const std::string& text,
               const cli::TextOptions& options, const std::string& where) {
    for (const auto& field : fields) {
        if (!field.is_for(cachedir::kText)) {
            continue;
        }
        const bool asked =
            field.detail == cachedir::TextDetail::Always ||
            (field.detail == cachedir::TextDetail::Source && options.source) ||
            (field.detail == cachedir::TextDetail::DebugLines && options.debug_lines) ||
            (field.detail == cachedir::TextDetail::NoDebugLines && !options.debug_lines);
        if (!asked) {
            continue;
        }
        const std::string at = where + " / " + field.label;
        const std::string& value = field.brief.empty() ? field.text : field.brief;
        if (field.layout == cachedir::TextLayout::Block) {
            const std::string_view block = field.value_text();
            QVERIFY2(text.find(block.substr(0, block.find('\0'))) != std::string::npos, at.c_str());
        } else if (field.layout == cachedir::TextLayout::Row &&
                   value.find('\0') == std::string::npos) {
            QVERIFY2(text.find(value) != std::string::npos, ("show lacks " + at).c_str());
        }
        checkText(field.children, text, options, at);
        if (QTest::currentTestFailed()) {
            return;
        }
    }
}

Field described(std::string label, std::string key, cachedir::FieldValue value, std::string text) {
    Field field;
    field.label = std::move(label);
    field.key = std::move(key);
    field.value = std::move(value);
    field.text = std::move(text);
    return field;
}

} // namespace

class TstEntryDescription : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { entries_ = fixtureEntries(); }

    void aFieldAddedOnceReachesAllThree() {
        const Described& best = firstOfKind(entries_, cachedir::FileKind::BestConfig);
        auto fields = cachedir::describe_entry(best.entry, best.content).fields;
        QVERIFY(!cli::fields_json(fields).contains("added_field"));
        fields.push_back(
            described("Added field", "added_field", std::string("added value"), "added value"));

        const std::string text = cli::fields_text(fields, {});
        QVERIFY(text.ends_with(textRow("added field", "added value")));

        const cli::Json json = cli::fields_json(fields);
        QCOMPARE(json.at("added_field").get<std::string>(), std::string("added value"));

        EntryFieldsModel model;
        QAbstractItemModelTester tester(&model);
        model.setFields(ui::fieldNodes(fields));
        const QModelIndex added = rowNamed(model, {}, QStringLiteral("Added field"));
        QVERIFY(added.isValid());
        QCOMPARE(valueOf(added), QStringLiteral("added value"));
        QCOMPARE(added.row(), model.rowCount() - 1);
    }

    void aGroupAddedOnceReachesAllThree() {
        const Described& fx = firstOfKind(entries_, cachedir::FileKind::FxGraph);
        auto fields = cachedir::describe_entry(fx.entry, fx.content).fields;
        Field group = described("Added group", "added_group", {}, "2 parts");
        group.shape = cachedir::FieldShape::Group;
        group.children.push_back(described("First part", "first", std::int64_t{1}, "1"));
        Field second = described("Second part", "second", std::string("two"), "two");
        second.link = cachedir::FieldLink{cachedir::FileKind::Module, "c2egzg"};
        group.children.push_back(std::move(second));
        // Before the sections at the end of `show`'s FX entry.
        fields.insert(fields.begin() + 3, std::move(group));

        const std::string text = cli::fields_text(fields, {});
        QVERIFY(text.contains(textRow("added group", "2 parts") + textRow("first part", "1", 1) +
                              textRow("second part", "two", 1)));

        const cli::Json json = cli::fields_json(fields);
        QVERIFY(json.at("added_group") == cli::Json({{"first", 1}, {"second", "two"}}));

        EntryFieldsModel model;
        QAbstractItemModelTester tester(&model);
        model.setFields(ui::fieldNodes(fields));
        const QModelIndex added = rowNamed(model, {}, QStringLiteral("Added group"));
        QVERIFY(added.isValid());
        QCOMPARE(valueOf(added), QStringLiteral("2 parts"));
        QCOMPARE(model.rowCount(added), 2);
        const QModelIndex secondIndex = rowNamed(model, added, QStringLiteral("Second part"));
        QCOMPARE(valueOf(secondIndex), QStringLiteral("two"));
        QVERIFY(model.linkAt(secondIndex) ==
                std::optional(EntryLink{cachedir::FileKind::Module, QStringLiteral("c2egzg")}));
    }

    void everyDescribedFieldReachesItsReaders() {
        QVERIFY(entries_.size() > 50);
        std::set<cachedir::FileKind> kinds;
        for (const auto& [entry, content] : entries_) {
            kinds.insert(entry.kind);
            const auto fields = cachedir::describe_entry(entry, content).fields;
            const std::string where = entry.path;

            compareJson(fields, cli::entry_json(entry, content), false, where);
            if (QTest::currentTestFailed()) {
                return;
            }

            EntryFieldsModel model;
            model.setEntry(entry, content);
            compareTree(fields, model, {}, where);
            if (QTest::currentTestFailed()) {
                return;
            }

            for (const cli::TextOptions options :
                 {cli::TextOptions{}, cli::TextOptions{.source = true, .debug_lines = true}}) {
                checkText(fields, cli::fields_text(fields, options), options, where);
                if (QTest::currentTestFailed()) {
                    return;
                }
            }
        }
        // Every kind the fixtures hold was walked, the common ones at least.
        for (auto kind : {cachedir::FileKind::FxGraph, cachedir::FileKind::AotAutograd,
                          cachedir::FileKind::Module, cachedir::FileKind::BestConfig,
                          cachedir::FileKind::Triton, cachedir::FileKind::CppSource}) {
            QVERIFY2(kinds.contains(kind), std::string(to_string(kind)).c_str());
        }
    }

    // The links the description names, read as the GUI's entry_links.h reads
    // them until it calls the engine's.

private:
    std::vector<Described> entries_;
};

QTEST_MAIN(TstEntryDescription)
#include "tst_entry_description.moc"
