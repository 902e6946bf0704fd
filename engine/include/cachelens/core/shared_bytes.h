#pragma once

// Bytes that share their storage: a slice of a mapped bundle file, or a
// buffer of their own. Copies share the storage instead of copying the
// bytes, and the storage lives as long as any slice of it does: a decoded
// 100 MB bundle's contents are views into the mapped file, not a second copy
// of it, and cannot outlive it.

#include <concepts>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace cachelens {

class SharedBytes {
public:
    SharedBytes() = default;
    // Takes the bytes over (no copy of a moved string).
    SharedBytes(std::string bytes) // NOLINT(google-explicit-constructor): bytes are bytes
        : SharedBytes(std::make_shared<const std::string>(std::move(bytes))) {}
    SharedBytes(const char* text)
        : SharedBytes(std::string(text)) {} // NOLINT
    // `slice` lies in storage that `owner` keeps alive.
    SharedBytes(std::shared_ptr<const void> owner, std::string_view slice)
        : owner_(std::move(owner))
        , view_(slice) {}

    std::string_view view() const noexcept { return view_; }
    operator std::string_view() const noexcept { return view_; } // NOLINT
    const char* data() const noexcept { return view_.data(); }
    std::size_t size() const noexcept { return view_.size(); }
    bool empty() const noexcept { return view_.empty(); }
    auto begin() const noexcept { return view_.begin(); }
    auto end() const noexcept { return view_.end(); }

    // By content. The template takes strings, views and literals as they
    // are: with a plain string_view overload beside this one, comparing with
    // a std::string would be ambiguous (two conversions equally good).
    friend bool operator==(const SharedBytes& a, const SharedBytes& b) noexcept {
        return a.view_ == b.view_;
    }
    template <class Text>
    requires(std::convertible_to<const Text&, std::string_view> &&
             !std::same_as<Text, SharedBytes>) friend bool
    operator==(const SharedBytes& a, const Text& b) noexcept {
        return a.view_ == std::string_view(b);
    }

private:
    explicit SharedBytes(std::shared_ptr<const std::string> bytes)
        : owner_(bytes)
        , view_(*bytes) {}

    std::shared_ptr<const void> owner_;
    std::string_view view_;
};

} // namespace cachelens
