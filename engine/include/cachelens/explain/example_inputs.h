#pragma once

// A graph's inputs as its cache key's `example_inputs[i]` debug lines give
// them, typed, and two graphs' inputs aligned by what they are rather than by
// position. When PyTorch makes a graph dynamic it puts SymInt inputs
// (`('s72',)`) in front of the tensors, so every later input moves: aligned by
// position, 27 unchanged inputs read as changed and the one real change
// (`[4, 128]` -> `[s72, 128]`) is lost among them.
//
// The values are read as text, never evaluated: a tensor is PyTorch's
// `TensorMetadata(dtype=torch.float32, shape=torch.Size([s72, 128]), stride=
// (128, 1), device=device(type='cuda', index=0), ...)`, whose sizes and
// strides may be symbolic expressions (`128*s72`); a SymInt is a tuple of its
// expression, `('s72',)`. Anything else is kept as written.

#include <cstddef>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cachelens::explain {

struct ExampleInput {
    enum class Kind { Tensor, SymInt, Other };
    Kind kind = Kind::Other;
    std::string text; // the value as written

    // Tensor.
    std::string dtype;                 // "float32" (torch.float32)
    std::vector<std::string> shape;    // "4", "s72", "128*s72"
    std::vector<std::string> stride;   // the same
    std::string device;                // "cuda:0", "cpu"
    std::string layout;                // "strided"
    std::optional<bool> requires_grad; // as written; nullopt when absent
    // Every `name=value` of the metadata, as written (what the fields above
    // leave out: memory_format, storage_offset, is_conj, ...).
    std::map<std::string, std::string> fields;

    // SymInt: its expression ("s72").
    std::string expression;

    // "[s72, 128] int64 on cuda:0", "SymInt s72", or the text.
    std::string describe() const;
};

// Reads one `example_inputs[i]` value. Never fails: a value it cannot read
// is an Other input holding its text.
ExampleInput parse_example_input(std::string_view value);

// A graph's inputs, in order, from its key's debug lines (their
// `example_inputs[i]` lines; other lines are ignored).
std::vector<ExampleInput> example_inputs_of(std::span<const std::string_view> debug_lines);

// Whether a size or stride is a number ("128") rather than a symbolic
// expression ("s72", "128*s72").
bool is_static_size(std::string_view size);

// A size symbol as sympy prints ShapeEnv's: lower-case letters then digits
// ("s72", "u0"); function names (Max, FloorDiv) are not.
bool is_size_symbol(std::string_view word);
// The size symbols of an expression ("128*s72 + s5" -> s72, s5), in the
// order they appear, each once.
std::vector<std::string> size_symbols(std::string_view expression);

// One thing that differs between two aligned inputs, and what it is about
// (what causes.h groups it by).
struct InputChange {
    enum class Aspect {
        Kind,          // a tensor on one side, a SymInt on the other
        Value,         // a SymInt's expression, or an unread input's text
        Rank,          // the number of dims
        Size,          // a dim's size, static or symbolic on both sides
        BecameDynamic, // a dim's size: a number before, a symbol after
        BecameStatic,  // the other way round
        Dtype,
        Device,
        Layout,
        RequiresGrad,
        Stride,
        Field, // another metadata field (memory_format, storage_offset, ...)
        Moved,
        Added,
        Removed,
    };
    InputChange(Aspect aspect_, std::string text_, std::optional<std::size_t> dim_ = std::nullopt)
        : aspect(aspect_)
        , text(std::move(text_))
        , dim(dim_) {}

    Aspect aspect;
    std::string text;               // "dim 0: 4 -> s72 (became dynamic)"
    std::optional<std::size_t> dim; // for Size, BecameDynamic, BecameStatic

    bool operator==(const InputChange&) const = default;
};

// One input of the left graph matched with one of the right, or an input
// only one side has. `changes` say what differs, most telling first:
// "dim 0: 4 -> s72 (became dynamic)", "dtype: float32 -> float16",
// "moved: input 3 -> input 5"; none when the two are the same.
struct AlignedInput {
    std::optional<std::size_t> left;  // index into the left inputs
    std::optional<std::size_t> right; // index into the right inputs
    std::vector<InputChange> changes;

    std::vector<std::string> change_texts() const;
    bool has(InputChange::Aspect aspect) const;

    // "input 1 -> 2: dim 0: 4 -> s72 (became dynamic); dtype: ..." ("-" for
    // the side an input is missing from), as diff, why and the GUI show it.
    std::string describe() const;

    bool added() const { return !left && right; }
    bool removed() const { return left && !right; }
    bool changed() const { return !changes.empty(); }
};

// Aligns `left` with `right` by similarity (kind, dtype, rank, device, equal
// sizes), keeping their order where it can (a sequence alignment, so inputs
// inserted or removed on one side do not shift the rest), then pairs what is
// left over across the order (a moved input). Symbols PyTorch named anew
// (s77 in one compile, s97 in the next: the SymInt inputs paired say which is
// which) are the same size, not a change. In the order of `right`, with the
// removed left inputs where they stood.
std::vector<AlignedInput> align_inputs(const std::vector<ExampleInput>& left,
                                       const std::vector<ExampleInput>& right);

} // namespace cachelens::explain
