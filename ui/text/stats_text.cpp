#include "text/stats_text.h"

#include <cachelens/core/format.h>

#include <QDateTime>

#include <chrono>

namespace cachelens::ui::stats_text {

QString bytes(std::uint64_t count) {
    return QString::fromStdString(format_bytes(count));
}

QString duration(std::int64_t ns) {
    constexpr std::int64_t kMinute = 60LL * 1'000'000'000;
    const double value = static_cast<double>(ns);
    // Limits are typed in whole minutes, hours or days: say them that way.
    if (ns >= kMinute && ns % kMinute == 0) {
        const std::int64_t minutes = ns / kMinute;
        if (minutes % (24 * 60) == 0) {
            const auto days = minutes / (24 * 60);
            return days == 1 ? QStringLiteral("1 day") : QStringLiteral("%1 days").arg(days);
        }
        if (minutes % 60 == 0) {
            return QStringLiteral("%1 h").arg(minutes / 60);
        }
        return QStringLiteral("%1 min").arg(minutes);
    }
    if (ns >= 1'000'000'000) {
        return QStringLiteral("%1 s").arg(value / 1e9, 0, 'f', 2);
    }
    if (ns >= 1'000'000) {
        return QStringLiteral("%1 ms").arg(value / 1e6, 0, 'f', 1);
    }
    return QStringLiteral("%1 us").arg(value / 1e3, 0, 'f', 1);
}

QString age(std::int64_t mtime_ns, std::int64_t now_ns) {
    return QString::fromStdString(format_age(mtime_ns, now_ns));
}

QString time(std::int64_t mtime_ns) {
    return QDateTime::fromMSecsSinceEpoch(mtime_ns / 1'000'000)
        .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

std::int64_t nowNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Result<std::uint64_t> parseSize(const QString& text) {
    return parse_size(text.toStdString());
}

Result<std::int64_t> parseAge(const QString& text) {
    return parse_age(text.toStdString());
}

Result<catalog::PruneOptions> pruneOptions(const std::optional<QString>& maxSize,
                                           const std::optional<QString>& olderThan,
                                           const QString& keepRecent) {
    catalog::PruneOptions options;
    if (maxSize && !maxSize->trimmed().isEmpty()) {
        auto size = parseSize(*maxSize);
        if (!size) {
            return fail(size.error().kind, "max size: " + size.error().message);
        }
        options.max_size = *size;
    }
    if (olderThan && !olderThan->trimmed().isEmpty()) {
        auto older = parseAge(*olderThan);
        if (!older) {
            return fail(older.error().kind, "older than: " + older.error().message);
        }
        options.older_than_ns = *older;
    }
    if (!keepRecent.trimmed().isEmpty()) {
        auto keep = parseAge(keepRecent);
        if (!keep) {
            return fail(keep.error().kind, "keep recent: " + keep.error().message);
        }
        options.keep_recent_ns = *keep;
    }
    if (!options.max_size && !options.older_than_ns) {
        return fail(ErrorKind::InvalidArgument, "set a max size, an age (older than), or both");
    }
    return options;
}

} // namespace cachelens::ui::stats_text
