#pragma once

// What every engine operation's progress must look like (core/progress.h),
// checked on the reports a test's ProgressFn recorded: per stage, `done` and
// `bytes` only grow, a total once known never changes, `done` never passes
// it, and the stage's last report has done == total.

#include <cachelens/core/progress.h>

#include <QString>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace cachelens::test {

struct SeenProgress {
    ProgressStage stage;
    ProgressUnit unit;
    std::uint64_t done;
    std::uint64_t total;
    std::uint64_t bytes;
    std::string item;
};

// Records every report; `go_on(report, index)` says whether to go on (default: always).
class ProgressRecorder {
public:
    ProgressFn callback(std::function<bool(const SeenProgress&, std::size_t)> go_on = {}) {
        return [this, go_on = std::move(go_on)](const Progress& report) {
            seen.push_back({report.stage, report.unit, report.done, report.total, report.bytes,
                            std::string(report.item)});
            return !go_on || go_on(seen.back(), seen.size() - 1);
        };
    }

    // The stages in the order they ran, each once per run.
    std::vector<ProgressStage> stages() const {
        std::vector<ProgressStage> out;
        for (std::size_t i = 0; i < seen.size(); ++i) {
            if (i == 0 || starts_run(i)) {
                out.push_back(seen[i].stage);
            }
        }
        return out;
    }

    // The last report of the stage's last run.
    SeenProgress last(ProgressStage stage) const {
        for (auto it = seen.rbegin(); it != seen.rend(); ++it) {
            if (it->stage == stage) {
                return *it;
            }
        }
        return {stage, ProgressUnit::Files, 0, 0, 0, "(never reported)"};
    }

    // Empty when every run of every stage keeps the rules; else the first broken one.
    // `complete`: the work ran to its end, so every run ends at its total.
    QString problems(bool complete = true) const {
        for (std::size_t start = 0; start < seen.size();) {
            std::size_t end = start + 1;
            while (end < seen.size() && !starts_run(end)) {
                ++end;
            }
            const std::string stage(to_string(seen[start].stage));
            const bool known = seen[start].total != 0;
            for (std::size_t i = start; i < end; ++i) {
                const auto& report = seen[i];
                const QString where = QString("%1, report %2 (%3 / %4)")
                                          .arg(QString::fromStdString(stage))
                                          .arg(i)
                                          .arg(report.done)
                                          .arg(report.total);
                if (i > start &&
                    (report.done < seen[i - 1].done || report.bytes < seen[i - 1].bytes)) {
                    return where + ": went back";
                }
                if (known && report.total != seen[start].total) {
                    return where + ": the total changed";
                }
                if (!known && i + 1 < end && report.total != 0) {
                    return where + ": a total before the stage's end";
                }
                if (report.total != 0 && report.done > report.total) {
                    return where + ": past the total";
                }
            }
            if (complete && seen[end - 1].done != seen[end - 1].total) {
                return QString("%1: ends at %2 / %3")
                    .arg(QString::fromStdString(stage))
                    .arg(seen[end - 1].done)
                    .arg(seen[end - 1].total);
            }
            start = end;
        }
        return {};
    }

    std::vector<SeenProgress> seen;

private:
    bool starts_run(std::size_t i) const {
        return seen[i].stage != seen[i - 1].stage || seen[i].unit != seen[i - 1].unit;
    }
};

} // namespace cachelens::test
