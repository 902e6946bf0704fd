#include "widgets/banner.h"

#include <QLabel>

namespace cachelens::ui {

QString bannerStyle(BannerTone tone) {
    const char* rgb = "220, 50, 47";
    switch (tone) {
    case BannerTone::Error:
        break;
    case BannerTone::Warning:
        rgb = "230, 160, 0";
        break;
    case BannerTone::Success:
        rgb = "40, 190, 60";
        break;
    case BannerTone::Info:
        rgb = "40, 120, 220";
        break;
    }
    return QStringLiteral("QLabel { background: rgba(%1, 0.18); border: 1px solid rgba(%1, 0.6); "
                          "padding: 4px; }")
        .arg(QLatin1String(rgb));
}

QLabel* makeBanner(const QString& objectName, BannerTone tone) {
    auto* label = new QLabel;
    label->setObjectName(objectName);
    label->setTextFormat(Qt::PlainText); // messages name keys and paths: never markup
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->setStyleSheet(bannerStyle(tone));
    label->hide();
    return label;
}

} // namespace cachelens::ui
