#include <cachelens/core/progress.h>

namespace cachelens {

std::string_view to_string(ProgressStage stage) {
    switch (stage) {
    case ProgressStage::Scanning:
        return "scanning";
    case ProgressStage::Parsing:
        return "parsing";
    case ProgressStage::Checking:
        return "checking";
    case ProgressStage::Reading:
        return "reading";
    case ProgressStage::Writing:
        return "writing";
    case ProgressStage::Deleting:
        return "deleting";
    case ProgressStage::Benchmarking:
        return "benchmarking";
    }
    return "working";
}

std::string_view unit_name(ProgressUnit unit, std::uint64_t count) {
    const bool one = count == 1;
    switch (unit) {
    case ProgressUnit::Entries:
        return one ? "entry" : "entries";
    case ProgressUnit::Files:
        return one ? "file" : "files";
    case ProgressUnit::Keys:
        return one ? "key" : "keys";
    case ProgressUnit::Values:
        return one ? "value" : "values";
    case ProgressUnit::Candidates:
        return one ? "candidate" : "candidates";
    }
    return "items";
}

bool ProgressThrottle::due(const Progress& report, Clock::time_point now) {
    const bool first = !any_ || report.stage != stage_;
    const bool last = report.total != 0 && report.done >= report.total;
    if (!first && !last && now - last_ < interval_) {
        return false;
    }
    any_ = true;
    stage_ = report.stage;
    last_ = now;
    return true;
}

} // namespace cachelens
