#pragma once

// What `cachelens bench --json-lines` prints, as events for the Benchmarks
// page: the engine's protocol reader (bench/bench_protocol.h, the code the CLI
// writes the records with) reads the stream, checks its header and version,
// and this turns its records into Qt strings. A line that is not a record is
// a BenchBadLine and the run goes on; a stream of another version or program
// is one BenchIncompatible and nothing after it. No widgets: the Benchmarks
// page and the tests feed it bytes.

#include <cachelens/bench/bench_protocol.h>
#include <cachelens/core/error.h>

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>
#include <variant>
#include <vector>

namespace cachelens::ui {

struct BenchDevice {
    QString name;
    QString computeCapability;
    QString driverVersion;
    std::optional<qint64> smClockMhz;
    qint64 l2Bytes = 0;
};

struct BenchStartEvent {
    QString cacheDir;
    BenchDevice device;
    QString protocol;
    int kernels = 0;
    int candidates = 0;
};

// A kernel or candidate the CLI could not build a launch plan for.
struct BenchUnplannableEvent {
    QString kernel;
    QString module;
    QString what;
    QString why;
};

// One candidate's measurement, or why it failed ("load", "resources", "launch").
struct BenchResultEvent {
    int index = 0; // 1-based
    int total = 0;
    QString kernel;
    QString module;
    QString tritonHash;
    QString configText; // "XBLOCK=1, R0_BLOCK=4096, num_warps=4, num_stages=1"
    bool wasBest = false;
    QString status; // "ok" or the failing step
    QString message;
    std::vector<double> samplesMs;
    double medianMs = 0;
    double minMs = 0;
    double p20Ms = 0;
    double p80Ms = 0;
    // What the driver said of the loaded kernel: "40 registers per thread, no
    // spills" (bench::describe_registers); empty when it did not load.
    QString registersText;

    bool ok() const { return status == QLatin1String("ok"); }
    // A launch plan (bench --plan): what a run would time, not timed yet.
    bool planned() const { return status == QLatin1String("planned"); }
};

// A challenger re-timed side by side with its kernel's current best, because
// its own median beat the best's: who won beyond the noise, in `text` too.
struct BenchVerdictEvent {
    QString kernel;
    QString module;
    QString bestHash;
    QString candidateHash;
    QString bestConfigText;
    QString candidateConfigText;
    QString status; // "ok", or the failing side's step
    QString message;
    int rounds = 0;
    QString outcome; // "faster", "slower" or "no_difference"
    double differencePercent = 0;
    double agreement = 0;
    QString text; // "the candidate is 3.2% faster than the current best: 30 of 30 ..."

    bool candidateFaster() const { return outcome == QLatin1String("faster"); }
};

struct BenchEndEvent {
    qint64 runId = 0;
    int results = 0;
    int failed = 0;
};

// A fatal error: the CLI exits with code 2 after it.
struct BenchErrorEvent {
    QString message;
    ErrorKind kind = ErrorKind::InvalidArgument;
    // An accept refused for a reason the user may overrule (--force).
    std::optional<bench::AcceptRefusal> refusal;
};

// A launch plan (bench --plan): what would be launched, without a GPU.
struct BenchPlanEvent {
    QString kernel;
    QString module;
    QString tritonHash;
    QString configText;
    bool isCurrentBest = false;
    QString gridType;
    std::vector<qint64> grid;
    int blockThreads = 0;
    qint64 sharedBytes = 0;
    QString source;
    std::vector<bench::LaunchArg> args;
};

// A line that is not a JSON object with an "event", or an event missing a
// field it needs: `line` is the text (shortened), `why` what is wrong with it.
struct BenchBadLine {
    QString line;
    QString why;
};

// The CLI printed no header of this protocol version: `why` names the
// program and the version it speaks. Nothing after it is read.
struct BenchIncompatible {
    QString why;
};

using BenchEvent =
    std::variant<BenchStartEvent, BenchUnplannableEvent, BenchResultEvent, BenchVerdictEvent,
                 BenchEndEvent, BenchErrorEvent, BenchPlanEvent, BenchBadLine, BenchIncompatible>;

class BenchRunParser {
public:
    // The events of every line `bytes` completes, in order (the header is
    // checked, not reported).
    std::vector<BenchEvent> feed(QByteArrayView bytes);
    // At the end of the output: the last line if it had no newline.
    std::vector<BenchEvent> finish();
    void reset() { reader_.reset(); }
    bool incompatible() const { return reader_.incompatible(); }

    // One line without its newline, whatever came before it (no header
    // check); nullopt for blank lines and headers.
    static std::optional<BenchEvent> parseLine(QByteArrayView line);

private:
    bench::protocol::StreamReader reader_;
};

// What `cachelens bench accept ... --json` prints.
struct BenchAcceptOutcome {
    QString bestConfig; // the rewritten .best_config
    QString backup;
    QString oldConfig;
    QString newConfig;
    QString verdict; // the side-by-side verdict's text; empty when not re-timed (--force)
    // A config cachelens tune compiled: what PyTorch will do with it.
    QString exploredPolicy;
};

// The outcome, or why there is none: the CLI's refusal (its kind; `refusal`
// filled in when given), another protocol version, or output that is neither.
Result<BenchAcceptOutcome> parseAcceptOutput(QByteArrayView json,
                                             BenchErrorEvent* refusal = nullptr);

} // namespace cachelens::ui
