#include "widgets/root_banner.h"

#include "text/engine_text.h"
#include "widgets/banner.h"

namespace cachelens::ui {

namespace {

// Lines of a report shown before "… and N more".
constexpr int kShownLines = 6;

} // namespace

RootBanner::RootBanner(QWidget* parent)
    : QLabel(parent) {
    setObjectName(QStringLiteral("bundleBanner"));
    setTextFormat(Qt::RichText); // its links; the text in it is escaped
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextBrowserInteraction);
    hide();
    connect(this, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link == QLatin1String("refresh")) {
            emit refreshRequested();
        } else if (link == QLatin1String("pull")) {
            emit pullRequested();
        } else {
            emit importRequested();
        }
    });
}

void RootBanner::showRoot(const std::filesystem::path& root, const RootProvenance& provenance) {
    if (provenance.kind == RootProvenance::Kind::CacheDir) {
        hide();
        return;
    }
    const QStringList& report = provenance.report;
    QString banner;
    if (provenance.kind == RootProvenance::Kind::Redis) {
        const QString server =
            provenance.origin.isEmpty() ? ui::text(root.string()) : provenance.origin;
        banner = tr("<b>Redis server %1</b>, browsed read-only: its entries mirrored into %2, "
                    "as PyTorch would lay out a remote hit. Prune and best-config changes "
                    "are off. <a href=\"refresh\">Refresh</a> · <a href=\"pull\">Pull "
                    "selected to a cache dir…</a>")
                     .arg(server.toHtmlEscaped(), ui::text(root.string()).toHtmlEscaped());
        // What the last mirroring in this session reported: a few lines of it.
        for (int line = 0; line < report.size() && line <= kShownLines; ++line) {
            banner += QStringLiteral("<br>") + report[line].toHtmlEscaped();
        }
        if (report.size() > kShownLines + 1) {
            banner += QStringLiteral("<br>") +
                      tr("… and %1 more notes").arg(report.size() - 1 - kShownLines);
        }
        setStyleSheet(bannerStyle(BannerTone::Info));
    } else {
        banner =
            tr("<b>Bundle %1</b>, opened read-only%2: %3. Prune and best-config changes are off. "
               "<a href=\"import\">Import…</a>")
                .arg(ui::text(root.filename().string()).toHtmlEscaped(),
                     provenance.origin.isEmpty()
                         ? QString()
                         : tr(" from %1").arg(provenance.origin.toHtmlEscaped()),
                     report.value(0).toHtmlEscaped());
        // The safety report: what was not materialised and why, a few lines of it.
        for (int line = 1; line < report.size() && line <= kShownLines; ++line) {
            banner += QStringLiteral("<br>") + report[line].toHtmlEscaped();
        }
        if (report.size() > kShownLines + 1) {
            banner +=
                QStringLiteral("<br>") + tr("… and %1 more (the Import dialog lists them all)")
                                             .arg(report.size() - 1 - kShownLines);
        }
        setStyleSheet(bannerStyle(report.size() > 1 ? BannerTone::Error : BannerTone::Info));
    }
    setText(banner);
    show();
}

} // namespace cachelens::ui
