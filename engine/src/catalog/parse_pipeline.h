#pragma once

// Parses entries on worker threads while the calling thread writes them to
// the catalog in order. Workers run at most `window` entries ahead of the
// writer, so memory stays bounded however many entries changed: results wait
// in a ring of `window` slots (a slot per changed entry took 215 MB for a
// million-file cache before a single one was parsed).

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace cachelens::catalog {

template <class Result>
class ParsePipeline {
public:
    ParsePipeline(std::size_t count, unsigned threads, std::size_t window,
                  std::function<Result(std::size_t)> parse)
        : parse_(std::move(parse))
        , count_(count)
        , results_(std::min(count, std::max<std::size_t>(1, window)))
        , ready_(results_.size(), false) {
        for (unsigned i = 0; i < threads; ++i) {
            workers_.emplace_back([this] { work(); });
        }
    }

    ~ParsePipeline() { stop(); }

    ParsePipeline(const ParsePipeline&) = delete;
    ParsePipeline& operator=(const ParsePipeline&) = delete;

    // The result for `index`, waiting for it; call with 0, 1, 2, ... in order.
    Result take(std::size_t index) {
        std::unique_lock lock(mutex_);
        const std::size_t slot = index % results_.size();
        changed_.wait(lock, [&] { return ready_[slot]; });
        Result result = std::move(*results_[slot]);
        results_[slot].reset();
        ready_[slot] = false;
        consumed_ = index + 1;
        changed_.notify_all();
        return result;
    }

    // Lets the workers finish what they hold and joins them.
    void stop() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        for (auto& worker : workers_) {
            if (worker.joinable()) {
                worker.join();
            }
        }
    }

private:
    void work() {
        for (;;) {
            std::size_t index = 0;
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [&] {
                    return stopping_ || next_ >= count_ || next_ < consumed_ + results_.size();
                });
                if (stopping_ || next_ >= count_) {
                    return;
                }
                index = next_++;
            }
            Result result = parse_(index);
            {
                std::lock_guard lock(mutex_);
                // Free: the writer took index - size() before this index was handed out.
                const std::size_t slot = index % results_.size();
                results_[slot] = std::move(result);
                ready_[slot] = true;
            }
            changed_.notify_all();
        }
    }

    std::function<Result(std::size_t)> parse_;
    std::size_t count_;
    std::vector<std::optional<Result>> results_; // slot index % size()
    std::vector<bool> ready_;
    std::size_t next_ = 0;
    std::size_t consumed_ = 0;
    bool stopping_ = false;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::thread> workers_;
};

} // namespace cachelens::catalog
