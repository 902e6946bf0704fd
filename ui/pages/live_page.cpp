#include "pages/live_page.h"

#include "jobs/job_tracker.h"
#include "models/live_events_model.h"
#include "text/counted.h"
#include "text/engine_text.h"

#include <cachelens/watch/follow.h>

#include <QDateTime>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace cachelens::ui {

namespace fs = std::filesystem;

namespace {

QString shown(const fs::path& path) {
    return QString::fromStdString(path.string()).toHtmlEscaped();
}

} // namespace

LivePage::LivePage(JobPool& pool, QWidget* parent)
    : QWidget(parent)
    , job_(new JobTracker(pool, this))
    , model_(new LiveEventsModel(this))
    , source_(new QLabel(this))
    , status_(new QLabel(this))
    , cacheButton_(new QPushButton(tr("Cache &dir…"), this))
    , traceButton_(new QPushButton(tr("&Trace dir…"), this))
    , startButton_(new QPushButton(tr("&Start"), this))
    , openButton_(new QPushButton(tr("&Open"), this))
    , table_(new QTableView(this)) {
    source_->setTextFormat(Qt::RichText);
    source_->setWordWrap(true);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->setModel(model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    const QFontMetrics metrics = table_->fontMetrics();
    table_->setColumnWidth(LiveEventsModel::TimeColumn,
                           metrics.horizontalAdvance(QStringLiteral("00:00:00")) + 20);
    table_->setColumnWidth(LiveEventsModel::KindColumn,
                           metrics.horizontalAdvance(QStringLiteral("aotautograd")) + 24);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    openButton_->setToolTip(tr("A graph: why it missed. Another entry: show it on Browse."));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(cacheButton_);
    buttons->addWidget(traceButton_);
    buttons->addWidget(startButton_);
    buttons->addStretch();
    buttons->addWidget(openButton_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(source_);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);

    connect(cacheButton_, &QPushButton::clicked, this, &LivePage::chooseCacheDir);
    connect(traceButton_, &QPushButton::clicked, this, &LivePage::chooseTraceDir);
    connect(startButton_, &QPushButton::clicked, this, [this] {
        if (isWatching()) {
            stop();
        } else if (!cacheDir_.empty()) {
            start(cacheDir_, traceDir_);
        }
    });
    connect(openButton_, &QPushButton::clicked, this,
            [this] { openRow(table_->currentIndex().row()); });
    connect(table_, &QTableView::doubleClicked, this,
            [this](const QModelIndex& index) { openRow(index.row()); });
    // The newest event in view, unless the user scrolled up to read.
    connect(model_, &QAbstractItemModel::rowsInserted, this, [this] {
        if (table_->currentIndex().row() < 0 || !table_->hasFocus()) {
            table_->scrollToBottom();
        }
    });
    connect(job_, &JobTracker::finished, this, [this] { updateControls(); });
    status_->setText(tr("Choose the cache dir a run writes (and, if it logs with TORCH_TRACE=dir, "
                        "that dir), press Start, then run your model: each recompile shows here "
                        "with its cause as PyTorch writes it."));
    updateControls();
}

LivePage::~LivePage() {
    // The watch posts to this page from its thread: it must be over first
    // (it stops within a tick, 200 ms).
    if (stop_ && job_->isRunning()) {
        stop_->store(true);
        job_->pool().waitForAll();
    }
}

QString LivePage::statusText() const {
    return status_->text();
}

bool LivePage::isWatching() const {
    return job_->isRunning();
}

void LivePage::suggestCacheDir(const fs::path& dir) {
    if (!isWatching() && cacheDir_.empty()) {
        cacheDir_ = dir;
        updateControls();
    }
}

void LivePage::updateControls() {
    startButton_->setText(isWatching() ? tr("&Stop") : tr("&Start"));
    startButton_->setEnabled(isWatching() || !cacheDir_.empty());
    cacheButton_->setEnabled(!isWatching());
    traceButton_->setEnabled(!isWatching());
    source_->setText(cacheDir_.empty()
                         ? tr("No cache dir chosen.")
                         : tr("Cache dir <b>%1</b>%2")
                               .arg(shown(cacheDir_),
                                    traceDir_.empty()
                                        ? tr(" (no trace dir: the trace's hits and misses are not "
                                             "followed)")
                                        : tr(", trace logs in <b>%1</b>").arg(shown(traceDir_))));
}

void LivePage::chooseCacheDir() {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("Cache dir to watch"), QString::fromStdString(cacheDir_.string()));
    if (!dir.isEmpty()) {
        cacheDir_ = dir.toStdString();
        updateControls();
    }
}

void LivePage::chooseTraceDir() {
    const QString dir = QFileDialog::getExistingDirectory(
        this, tr("TORCH_TRACE dir to follow"), QString::fromStdString(traceDir_.string()));
    if (!dir.isEmpty()) {
        traceDir_ = dir.toStdString();
        updateControls();
    }
}

void LivePage::start(const fs::path& cacheDir, const fs::path& traceDir) {
    if (stop_) {
        stop_->store(true); // the running watch's result is dropped: a newer one starts
    }
    cacheDir_ = cacheDir;
    traceDir_ = traceDir;
    model_->clear();
    stop_ = std::make_shared<std::atomic<bool>>(false);
    status_->setText(tr("Starting…"));
    watch::FollowRequest request;
    request.cache_dir = cacheDir;
    request.trace_dir = traceDir;
    // Events are handed to the GUI thread as they come; none arrives once
    // the page is gone (its queued calls go with it).
    job_->run<Result<watch::FollowSummary>>(
        [this, request, stop = stop_](const JobContext& context) {
            const JobContext::LongRunning untilStopped(context);
            watch::FollowCallbacks callbacks;
            callbacks.started = [this](const watch::FollowStart& start) {
                QMetaObject::invokeMethod(
                    this,
                    [this, start] {
                        QString text =
                            tr("Watching %1; events appear as they are written.")
                                .arg(counted(static_cast<std::size_t>(start.watched_dirs), "dir"));
                        if (start.limit_note) {
                            text += "\n" + ui::text(*start.limit_note);
                        }
                        status_->setText(text);
                        updateControls();
                        emit watching();
                    },
                    Qt::QueuedConnection);
            };
            callbacks.entry = [this](const watch::WatchEvent& event) {
                QMetaObject::invokeMethod(
                    this, [this, event] { model_->addEntry(event, QDateTime::currentDateTime()); },
                    Qt::QueuedConnection);
            };
            callbacks.trace = [this](const watch::TraceWatchEvent& event) {
                QMetaObject::invokeMethod(
                    this, [this, event] { model_->addTrace(event, QDateTime::currentDateTime()); },
                    Qt::QueuedConnection);
            };
            callbacks.should_stop = [&context, stop] {
                return context.cancelled() || stop->load();
            };
            return watch::follow(request, callbacks);
        },
        [this](Result<watch::FollowSummary> summary) {
            if (!summary) {
                status_->setText(text(summary.error().describe()));
                emit statusMessage(text(summary.error().describe()));
            } else {
                QString line = text(summary->cache.line());
                if (summary->traced) {
                    line += "\n" + text(summary->trace_line());
                }
                if (summary->comparison_note) {
                    line += "\n(" + text(*summary->comparison_note) + ")";
                }
                status_->setText(tr("Stopped. %1").arg(line));
            }
            updateControls();
            emit stopped();
        });
    updateControls();
}

void LivePage::stop() {
    if (stop_) {
        stop_->store(true);
    }
}

bool LivePage::openRow(int row) {
    if (row < 0 || row >= model_->rowCount()) {
        return false;
    }
    const auto& shownRow = model_->row(row);
    if (!shownRow.entry) {
        emit statusMessage(tr("A trace event: its entry, if the cache dir holds it, is a row of "
                              "its own."));
        return false;
    }
    const auto& event = *shownRow.entry;
    if (event.kind == watch::WatchEvent::Kind::FxGraph) {
        emit whyRequested(EntryRef{cacheDir_, event.entry}, {cacheDir_});
    } else {
        emit entryRequested(QString::fromStdString(cacheDir_.string()),
                            QString::fromStdString(event.path));
    }
    return true;
}

} // namespace cachelens::ui
