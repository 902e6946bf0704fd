#include "tabs/guards_tab.h"

#include "jobs/job_tracker.h"
#include "models/guard_clauses_model.h"
#include "text/counted.h"
#include "text/plain_text.h"
#include "widgets/highlight_colors.h"
#include "widgets/selected_cells.h"

#include <cachelens/explain/entry_facts.h>
#include <cachelens/explain/lookup.h>

#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

#include <filesystem>
#include <functional>

namespace cachelens::ui {

namespace {

// A spin box for Python ints of any size (guards compare sizes with 2**31 and
// past): Up/Down and the wheel step it, typing takes any int literal.
class BigIntSpinBox : public QAbstractSpinBox {
public:
    explicit BigIntSpinBox(QWidget* parent = nullptr)
        : QAbstractSpinBox(parent) {
        setAccelerated(true);
        setCorrectionMode(QAbstractSpinBox::CorrectToPreviousValue);
        connect(lineEdit(), &QLineEdit::textChanged, this, [this] {
            if (onChanged) {
                onChanged();
            }
        });
    }

    std::function<void()> onChanged;

    void setText(const QString& text) { lineEdit()->setText(text); }

    void stepBy(int steps) override {
        auto number = guards::Number::parse(text().toStdString());
        if (!number || !number->is_integral()) {
            return;
        }
        const guards::Number next =
            guards::Number::integer(number->to_big() + guards::BigInt(steps));
        setText(QString::fromStdString(next.repr()));
    }

    QValidator::State validate(QString& input, int&) const override {
        const QString trimmed = input.trimmed();
        if (trimmed.isEmpty() || trimmed == u'-' || trimmed == u'+') {
            return QValidator::Intermediate;
        }
        auto number = guards::Number::parse(trimmed.toStdString());
        if (number && number->is_int()) {
            return QValidator::Acceptable;
        }
        // Digits in progress ("0x", "1_") may still become an int.
        for (QChar c : trimmed) {
            if (!c.isLetterOrNumber() && c != u'_' && c != u'-' && c != u'+') {
                return QValidator::Invalid;
            }
        }
        return QValidator::Intermediate;
    }

protected:
    StepEnabled stepEnabled() const override { return StepUpEnabled | StepDownEnabled; }
};

std::optional<std::string_view> guardsOf(const cachedir::EntryContent& content) {
    if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(&content)) {
        return fx->guards_expr;
    }
    if (const auto* aot = std::get_if<cachedir::AotAutogradEntry>(&content)) {
        return aot->guards_expr;
    }
    return std::nullopt;
}

QString escaped(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

// The lookup for a person, as `cachelens lookup` prints it, with the verdict first.
QString describeLookup(const explain::LookupResult& lookup, const std::string& thisFile) {
    QStringList lines;
    switch (lookup.status) {
    case explain::LookupStatus::Hit:
        lines << (*lookup.hit == thisFile
                      ? QObject::tr("<b>Hit: PyTorch would load this entry</b>, %1")
                            .arg(escaped(*lookup.hit))
                      : QObject::tr("<b>Hit: PyTorch would load another entry</b>, %1")
                            .arg(escaped(*lookup.hit)));
        break;
    case explain::LookupStatus::GuardMiss:
        lines << QObject::tr("<b>Guard miss</b>: %1 under %2, none whose guards pass; "
                             "PyTorch would compile again")
                     .arg(counted(static_cast<std::size_t>(lookup.tried.size()), "entry"))
                     .arg(escaped(lookup.key_dir));
        break;
    case explain::LookupStatus::FullMiss:
        lines << (lookup.tried.empty()
                      ? QObject::tr("<b>Full miss</b>: no entries under %1")
                            .arg(escaped(lookup.key_dir))
                      : QObject::tr("<b>Full miss</b>: none of the %1 under %2 can be read")
                            .arg(counted(static_cast<std::size_t>(lookup.tried.size()), "entry"))
                            .arg(escaped(lookup.key_dir)));
        break;
    }
    for (const auto& entry : lookup.tried) {
        if (entry.unreadable) {
            lines << QStringLiteral("<tt>%1</tt>")
                         .arg(QObject::tr("unreadable %1: %2 (PyTorch would skip this entry)")
                                  .arg(escaped(entry.file), escaped(entry.error)));
            continue;
        }
        QString line = QStringLiteral("%1 %2%3").arg(
            entry.hit ? QStringLiteral("HIT ") : QStringLiteral("miss"), escaped(entry.file),
            entry.file == thisFile ? QObject::tr(" (this entry)") : QString());
        if (!entry.guards_expr) {
            line += QObject::tr("<br>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;no guards");
        } else if (!entry.error.empty()) {
            line += QStringLiteral("<br>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;") + escaped(entry.error);
        } else if (entry.evaluation && entry.evaluation->first_failure) {
            line += QObject::tr("<br>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;fails: %1")
                        .arg(describeFailure(*entry.evaluation).toHtmlEscaped());
        }
        lines << QStringLiteral("<tt>%1</tt>").arg(line);
    }
    return lines.join(QStringLiteral("<br>"));
}

} // namespace

GuardsTab::GuardsTab(JobPool& pool, QWidget* parent)
    : EntryTab(parent)
    , lookupJob_(new JobTracker(pool, this))
    , model_(new GuardClausesModel(this))
    , title_(new QLabel(this))
    , expressionText_(new QLabel(this))
    , error_(new QLabel(this))
    , playground_(new QWidget(this))
    , symbols_(new QGridLayout)
    , derived_(new QLabel(this))
    , reset_(new QPushButton(tr("&Reset values"), this))
    , table_(new QTableView(this))
    , verdict_(new QLabel(this))
    , lookupResult_(new QLabel(this))
    , lookupDelay_(new QTimer(this)) {
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    title_->setObjectName(QStringLiteral("guardsTitle"));
    title_->setTextFormat(Qt::PlainText);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    expressionText_->setObjectName(QStringLiteral("guardsExpression"));
    expressionText_->setTextFormat(Qt::PlainText); // `s0 < 8` is no tag either
    expressionText_->setFont(fixed);
    expressionText_->setWordWrap(true);
    expressionText_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setObjectName(QStringLiteral("guardsError"));
    error_->setTextFormat(Qt::PlainText);
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    table_->setObjectName(QStringLiteral("guardsClauses"));
    table_->setModel(model_);
    table_->setFont(fixed);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setWordWrap(false);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(GuardClausesModel::ClauseColumn,
                                                     QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(GuardClausesModel::ValueColumn,
                                                     QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(GuardClausesModel::ResultColumn,
                                                     QHeaderView::ResizeToContents);
    auto* copy = new QAction(tr("Copy"), table_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] {
        const QString text = selectedCellsText(*table_);
        if (!text.isEmpty()) {
            QApplication::clipboard()->setText(text);
            emit statusMessage(
                tr("Copied %1")
                    .arg(counted(static_cast<std::size_t>(text.count(u'\n') + 1), "clause")));
        }
    });
    table_->addAction(copy);

    derived_->setObjectName(QStringLiteral("guardsDerived"));
    derived_->setTextFormat(Qt::PlainText);
    derived_->setFont(fixed);
    derived_->setWordWrap(true);
    derived_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setObjectName(QStringLiteral("guardsVerdict"));
    verdict_->setTextFormat(Qt::PlainText);
    verdict_->setWordWrap(true);
    verdict_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    verdict_->setAutoFillBackground(true);
    verdict_->setMargin(4);
    lookupResult_->setObjectName(QStringLiteral("guardsLookup"));
    lookupResult_->setWordWrap(true);
    lookupResult_->setTextFormat(Qt::RichText);
    lookupResult_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    lookupResult_->setAlignment(Qt::AlignTop | Qt::AlignLeft);

    reset_->setObjectName(QStringLiteral("guardsReset"));
    reset_->setToolTip(tr("Back to values under which the guards pass"));
    connect(reset_, &QPushButton::clicked, this, &GuardsTab::resetToSuggested);

    // Typing fast should not start a lookup per key stroke.
    lookupDelay_->setSingleShot(true);
    lookupDelay_->setInterval(120);
    connect(lookupDelay_, &QTimer::timeout, this, &GuardsTab::startLookup);

    auto* symbolsBox = new QGroupBox(tr("Symbol values"), playground_);
    auto* symbolsLayout = new QHBoxLayout(symbolsBox);
    symbolsLayout->addLayout(symbols_);
    symbolsLayout->addStretch(1);
    symbolsLayout->addWidget(reset_, 0, Qt::AlignTop);

    auto* lookupBox = new QGroupBox(tr("Which entry would PyTorch pick for these values?"), this);
    auto* lookupLayout = new QVBoxLayout(lookupBox);
    auto* lookupScroll = new QScrollArea(lookupBox);
    lookupScroll->setWidget(lookupResult_);
    lookupScroll->setWidgetResizable(true);
    lookupScroll->setFrameShape(QFrame::NoFrame);
    lookupLayout->addWidget(lookupScroll);

    // The playground and the lookup share the height; the user can move the line.
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(playground_);
    splitter->addWidget(lookupBox);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);

    auto* playgroundLayout = new QVBoxLayout(playground_);
    playgroundLayout->setContentsMargins(0, 0, 0, 0);
    playgroundLayout->addWidget(symbolsBox);
    playgroundLayout->addWidget(derived_);
    playgroundLayout->addWidget(table_, 1);
    playgroundLayout->addWidget(verdict_);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(title_);
    layout->addWidget(expressionText_);
    layout->addWidget(error_);
    layout->addWidget(splitter, 1);
    clear();
}

GuardsTab::~GuardsTab() {
    // Lookups deliver into this panel: stop them before its widgets go.
    lookupJob_->cancel();
}

bool GuardsTab::appliesTo(cachedir::FileKind kind) const {
    return kind == cachedir::FileKind::FxGraph || kind == cachedir::FileKind::AotAutograd;
}

void GuardsTab::clear() {
    lookupJob_->cancel();
    lookupDelay_->stop();
    ref_ = {};
    expression_.reset();
    model_->clear();
    editors_.clear(); // the layout below owns and deletes them
    inputs_.clear();
    guardSymbols_.clear();
    sizesMode_ = false;
    derived_->clear();
    derived_->setVisible(false);
    while (auto* item = symbols_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    title_->setText(tr("Guards: pick an FX graph or AOTAutograd entry"));
    expressionText_->clear();
    expressionText_->setVisible(false);
    error_->setVisible(false);
    playground_->setVisible(false);
    verdict_->clear();
    verdict_->setPalette(palette());
    lookupResult_->clear();
}

void GuardsTab::showEntry(const EntryRef& ref, const SharedContent& content) {
    clear();
    ref_ = ref;
    title_->setText(tr("Guards of %1").arg(QString::fromStdString(ref.entry.path)));
    if (!content || !(std::holds_alternative<cachedir::FxGraphEntry>(*content) ||
                      std::holds_alternative<cachedir::AotAutogradEntry>(*content))) {
        error_->setText(tr("Only FX graph and AOTAutograd entries have guards."));
        error_->setVisible(true);
        return;
    }
    const auto text = guardsOf(*content);
    if (!text || text->empty()) {
        expressionText_->setText(tr("no guards: every lookup of this key hits this entry"));
        expressionText_->setVisible(true);
        // PyTorch still takes the first entry in sorted order: say which that is.
        startLookup();
        return;
    }
    auto expression = guards::GuardExpression::parse(*text);
    expressionText_->setText(QString::fromUtf8(text->data(), static_cast<qsizetype>(text->size())));
    expressionText_->setVisible(true);
    if (!expression) {
        error_->setText(tr("The guards do not parse: %1")
                            .arg(QString::fromStdString(expression.error().describe())));
        error_->setVisible(true);
        return;
    }
    expression_ = std::move(*expression);
    model_->setExpression(*expression_);
    // Sizes mode when the graph's inputs name every symbol the guards read.
    if (const auto* fx = std::get_if<cachedir::FxGraphEntry>(&*content)) {
        // Without debug lines (2.7 and older), the inputs its wrapper takes.
        inputs_ = explain::example_inputs_of(explain::lines_to_compare(*fx).lines);
        guardSymbols_ = explain::guard_symbols(inputs_);
        sizesMode_ = !explain::free_sizes(inputs_).empty() &&
                     std::ranges::all_of(expression_->symbols(), [this](const std::string& name) {
                         return std::ranges::any_of(guardSymbols_, [&](const auto& symbol) {
                             return symbol.name == name;
                         });
                     });
    }
    buildSymbolEditors();
    playground_->setVisible(true);
    resetToSuggested();
}

void GuardsTab::buildSymbolEditors() {
    // A size's label says which dims carry it; a guard symbol's, its L['tN'].
    std::vector<std::string> symbols;
    std::vector<QString> labels;
    std::vector<QString> tips;
    if (sizesMode_) {
        for (const auto& size : explain::free_sizes(inputs_)) {
            symbols.push_back(size.symbol);
            labels.push_back(size.dims.empty() ? QString::fromStdString(size.symbol)
                                               : QStringLiteral("%1 (%2)").arg(
                                                     QString::fromStdString(size.symbol),
                                                     QString::fromStdString(size.dims.front())));
            QStringList dims;
            for (const auto& dim : size.dims) {
                dims << QString::fromStdString(dim);
            }
            tips.push_back(
                tr("The size %1: %2").arg(QString::fromStdString(size.symbol), dims.join(u", ")));
        }
        derived_->setVisible(true);
    } else {
        for (const auto& symbol : expression_->symbols()) {
            symbols.push_back(symbol);
            labels.push_back(symbolLabel(symbol));
            tips.push_back({});
        }
    }
    // Few symbols per row keeps the fields wide enough for 2**31-sized values.
    constexpr int kPerRow = 4;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
        auto* label = new QLabel(labels[i], playground_);
        label->setTextFormat(Qt::PlainText);
        label->setToolTip(literalText(tips[i]));
        label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        auto* edit = new BigIntSpinBox(playground_);
        edit->setObjectName(QString::fromStdString(symbols[i]));
        edit->setMinimumWidth(edit->fontMetrics().horizontalAdvance(QLatin1Char('9')) * 16);
        edit->onChanged = [this] {
            evaluate();
            lookupDelay_->start();
        };
        label->setBuddy(edit);
        const int row = static_cast<int>(i) / kPerRow;
        const int column = static_cast<int>(i) % kPerRow * 2;
        symbols_->addWidget(label, row, column, Qt::AlignRight);
        symbols_->addWidget(edit, row, column + 1);
        editors_.push_back({symbols[i], edit});
    }
}

void GuardsTab::resetToSuggested() {
    if (!expression_) {
        return;
    }
    const guards::Hints hints = suggestHints(*expression_);
    for (auto& editor : editors_) {
        // A size takes the value suggested for the guard symbol that is it.
        const std::string* name = &editor.symbol;
        if (sizesMode_) {
            const auto same =
                std::ranges::find(guardSymbols_, editor.symbol, &explain::GuardSymbol::expression);
            name = same != guardSymbols_.end() ? &same->name : nullptr;
        }
        const auto* number = name ? hints.find(*name) : nullptr;
        static_cast<BigIntSpinBox*>(editor.edit)
            ->setText(QString::fromStdString(number ? number->repr() : (sizesMode_ ? "2" : "1")));
    }
    evaluate();
    lookupDelay_->stop();
    startLookup();
}

void GuardsTab::setSymbolValue(const QString& symbol, qint64 value) {
    QString name = symbol;
    if (name.startsWith(QStringLiteral("L['")) && name.endsWith(QStringLiteral("']"))) {
        name = name.mid(3, name.size() - 5);
    }
    if (sizesMode_) {
        // t0 names the size it is, when it is one (not 128*s72).
        const auto guardSymbol =
            std::ranges::find(guardSymbols_, name.toStdString(), &explain::GuardSymbol::name);
        if (guardSymbol != guardSymbols_.end()) {
            name = QString::fromStdString(guardSymbol->expression);
        }
    }
    for (auto& editor : editors_) {
        if (QString::fromStdString(editor.symbol) == name) {
            static_cast<BigIntSpinBox*>(editor.edit)->setText(QString::number(value));
        }
    }
}

QAbstractItemModel* GuardsTab::clauses() const {
    return model_;
}

std::optional<guards::Hints> GuardsTab::currentHints(QString* bad) const {
    if (sizesMode_) {
        // The sizes as --sizes takes them: one way to derive the hints.
        std::string sizes;
        for (const auto& editor : editors_) {
            sizes += (sizes.empty() ? "" : ",") + editor.symbol + "=" +
                     editor.edit->text().trimmed().toStdString();
        }
        auto hints = explain::hints_from_sizes(inputs_, sizes);
        if (!hints) {
            if (bad) {
                *bad = tr("Enter the sizes: %1").arg(QString::fromStdString(hints.error().message));
            }
            return std::nullopt;
        }
        return std::move(*hints);
    }
    guards::Hints hints;
    for (const auto& editor : editors_) {
        auto number = guards::Number::parse(editor.edit->text().toStdString());
        if (!number || !number->is_int()) {
            if (bad) {
                *bad = tr("Enter an integer for %1").arg(symbolLabel(editor.symbol));
            }
            return std::nullopt;
        }
        hints.values.emplace_back(editor.symbol, std::move(*number));
    }
    return hints;
}

void GuardsTab::evaluate() {
    if (!expression_) {
        return;
    }
    QPalette palette = this->palette();
    const auto setVerdict = [&](const QString& text, std::optional<bool> passed) {
        verdict_->setText(text);
        if (passed) {
            // The tint over the window colour keeps the palette's text readable.
            const QColor tint = *passed ? highlight::pass() : highlight::fail();
            const QColor base = palette.color(QPalette::Window);
            const double a = tint.alphaF();
            palette.setColor(QPalette::Window,
                             QColor::fromRgbF(base.redF() * (1 - a) + tint.redF() * a,
                                              base.greenF() * (1 - a) + tint.greenF() * a,
                                              base.blueF() * (1 - a) + tint.blueF() * a));
        }
        verdict_->setPalette(palette);
    };
    QString bad;
    const auto hints = currentHints(&bad);
    if (sizesMode_) {
        QStringList derived;
        for (const auto& symbol : guardSymbols_) {
            const auto* value = hints ? hints->find(symbol.name) : nullptr;
            derived << QStringLiteral("%1 = %2%3")
                           .arg(QString::fromStdString(symbol.name),
                                QString::fromStdString(symbol.expression),
                                value
                                    ? QStringLiteral(" = ") + QString::fromStdString(value->repr())
                                    : QString());
        }
        derived_->setText(tr("Guard symbols: %1").arg(derived.join(QStringLiteral(", "))));
    }
    if (!hints) {
        model_->clearEvaluation();
        setVerdict(bad, std::nullopt);
        return;
    }
    auto evaluation = expression_->evaluate(*hints);
    if (!evaluation) {
        model_->clearEvaluation();
        setVerdict(QString::fromStdString(evaluation.error().describe()), false);
        return;
    }
    model_->setEvaluation(*evaluation);
    const int count = static_cast<int>(evaluation->clauses.size());
    if (evaluation->result) {
        setVerdict(tr("PASS: all %1 hold; guards_expr is True for these values")
                       .arg(counted(static_cast<std::size_t>(count), "clause")),
                   true);
    } else {
        setVerdict(tr("FAIL: clause %1 of %2 fails: %3")
                       .arg(*evaluation->first_failure + 1)
                       .arg(count)
                       .arg(describeFailure(*evaluation)),
                   false);
    }
}

void GuardsTab::startLookup() {
    if (!ref_.valid()) {
        return;
    }
    guards::Hints hints;
    if (expression_) {
        auto current = currentHints();
        if (!current) {
            lookupResult_->setText(tr("Enter a value for every symbol"));
            return;
        }
        hints = std::move(*current);
    }
    const std::filesystem::path root = ref_.root;
    const std::string key = ref_.entry.key;
    const std::string thisFile = std::filesystem::path(ref_.entry.path).filename().string();
    lookupJob_->run<Result<explain::LookupResult>>(
        [root, key, hints](const JobContext&) {
            return explain::simulate_lookup(root, key, hints);
        },
        [this, thisFile](Result<explain::LookupResult> lookup) {
            if (!lookup) {
                lookupResult_->setText(
                    QString::fromStdString(lookup.error().describe()).toHtmlEscaped());
                return;
            }
            lookupResult_->setText(describeLookup(*lookup, thisFile));
        });
}

} // namespace cachelens::ui
