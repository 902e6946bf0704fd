#pragma once

// The longest time the GUI thread's event loop went without running: a
// precise timer notes each time it fires; the largest gap between two
// firings (or since start(), up to the moment asked) is the longest stall,
// the synchronous work of whatever ran in between included. The GUI's goal
// (issue #37): never over 100 ms. Used by the GUI tests and bench_gui.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>

namespace cachelens::test {

class StallMeter : public QObject {
public:
    // Starts measuring at once; `tick_ms` is the timer's interval.
    explicit StallMeter(int tick_ms = 1) {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(tick_ms);
        QObject::connect(&timer_, &QTimer::timeout, this, [this] {
            longest_ns_ = std::max(longest_ns_, clock_.nsecsElapsed());
            clock_.restart();
        });
        start();
    }

    // Forgets what was measured and starts again.
    void start() {
        longest_ns_ = 0;
        clock_.start();
        timer_.start();
    }

    // Stops the timer (longestMs() keeps growing until the next start()).
    void stop() { timer_.stop(); }

    // The longest stall since start(), in ms, the one still going included.
    double longestMs() const {
        return static_cast<double>(std::max(longest_ns_, clock_.nsecsElapsed())) / 1e6;
    }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 longest_ns_ = 0;
};

} // namespace cachelens::test
