#include <cachelens/core/test_seams.h>

#include <atomic>
#include <utility>

namespace cachelens::test_seams {

namespace {

// A hook and whether one is set (read without a lock where it would run).
struct Seam {
    std::atomic<bool> set{false};
    Hook hook;

    void assign(Hook next) {
        set.store(false);
        hook = std::move(next);
        set.store(static_cast<bool>(hook));
    }
    void run(std::string_view name) const {
        if (set.load(std::memory_order_relaxed)) {
            hook(name);
        }
    }
};

Seam& place_seam() {
    static Seam seam;
    return seam;
}

Seam& delete_seam() {
    static Seam seam;
    return seam;
}

} // namespace

void set_before_place(Hook hook) {
    place_seam().assign(std::move(hook));
}

void set_before_delete(Hook hook) {
    delete_seam().assign(std::move(hook));
}

void before_place(std::string_view name) {
    place_seam().run(name);
}

void before_delete(std::string_view name) {
    delete_seam().run(name);
}

} // namespace cachelens::test_seams
