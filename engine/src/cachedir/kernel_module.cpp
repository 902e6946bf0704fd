#include <cachelens/cachedir/kernel_module.h>
#include <cachelens/cachedir/python_literal.h>
#include <cachelens/core/mapped_file.h>
#include <cachelens/core/text.h>
#include <cachelens/pickle/access.h>
#include <cachelens/pickle/repr.h>

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

namespace cachelens::cachedir {

namespace {

using pickle::Builder;
using pickle::Document;
using pickle::Kind;
using pickle::Value;

constexpr std::string_view kDecoratorPrefix = "@triton_heuristics.";
// The heuristics PyTorch 2.0 and 2.1 imported by name (from
// torch._inductor.triton_ops.autotune, then torch._inductor.triton_heuristics)
// and decorated kernels with as `@pointwise(...)`.
constexpr std::string_view kBareHeuristics[] = {"pointwise",    "reduction", "persistent_reduction",
                                                "template",     "foreach",   "split_scan",
                                                "user_autotune"};

// Where the heuristic's name starts on a decorator line, or npos when the
// line is no kernel decorator.
std::size_t heuristic_at(std::string_view line) {
    if (line.starts_with(kDecoratorPrefix)) {
        return kDecoratorPrefix.size();
    }
    for (const std::string_view name : kBareHeuristics) {
        if (line.size() > name.size() + 1 && line[0] == '@' && line.substr(1).starts_with(name) &&
            line[1 + name.size()] == '(') {
            return 1;
        }
    }
    return std::string_view::npos;
}
constexpr std::string_view kPlaceholderName = "Placeholder.DESCRIPTIVE_NAME";
constexpr std::uint32_t kMaxDepth = LiteralLimits{}.max_depth;
// Decorator dicts are a few KiB; the scratch document holds every value a
// module's harnesses and decorators need only while they are read.
constexpr std::size_t kMetaBudget = std::size_t{16} << 20;
// Each kept document costs at least an arena chunk (64 KiB): past this many a
// module's further decorator dicts are read for their fields but not kept, so
// a hostile file of tiny decorators cannot turn kilobytes into gigabytes.
constexpr std::size_t kMaxKeptDocuments = 2048;
constexpr std::size_t kScratchBudget = std::size_t{64} << 20;
constexpr std::size_t kMaxModuleSize = std::size_t{256} << 20;

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// The identifier starting at `at` (empty when none does).
std::string_view identifier_at(std::string_view text, std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && is_name_char(text[end])) {
        ++end;
    }
    if (end == at || (text[at] >= '0' && text[at] <= '9')) {
        return {};
    }
    return text.substr(at, end - at);
}

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

struct Span {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// A stretch of the file that may define kernels: the top level between
// kernel strings, or the body of one async_compile.triton('<name>', '''...''').
struct Region {
    Span span;
    bool kernel_string = false;
    std::string binding; // the kernel name given to async_compile.triton()
};

Region top_level(std::size_t begin, std::size_t end) {
    Region region;
    region.span = {begin, end};
    return region;
}

// One argument of a call as written.
struct Argument {
    std::string_view keyword; // empty when positional
    std::size_t index = 0;    // among all the call's arguments
    std::size_t value_at = 0; // where the value starts
};

// Walks the arguments of the call whose '(' is at `open`. `read_value(argument)`
// reads the value and returns the offset just past it. Returns the offset just
// past the closing ')'. `text` may end early to bound the walk.
template <class ReadValue>
Result<std::size_t> walk_arguments(std::string_view text, const SourceLines& lines,
                                   std::size_t open, ReadValue read_value) {
    std::size_t pos = skip_python_blank(text, open + 1);
    for (std::size_t ordinal = 0;; ++ordinal) {
        if (pos < text.size() && text[pos] == ')') {
            return pos + 1;
        }
        Argument argument{{}, ordinal, pos};
        const std::string_view name = identifier_at(text, pos);
        const std::size_t equals = skip_python_blank(text, pos + name.size());
        if (!name.empty() && equals < text.size() && text[equals] == '=' &&
            text.substr(equals, 2) != "==") {
            argument.keyword = name;
            argument.value_at = skip_python_blank(text, equals + 1);
        }
        const Result<std::size_t> end = read_value(argument);
        if (!end) {
            return std::unexpected(end.error());
        }
        pos = skip_python_blank(text, *end);
        if (pos < text.size() && text[pos] == ',') {
            pos = skip_python_blank(text, pos + 1);
            continue;
        }
        if (pos < text.size() && text[pos] == ')') {
            return pos + 1;
        }
        return fail(pos >= text.size() ? ErrorKind::Truncated : ErrorKind::Corrupt,
                    lines.position(pos) + ": expected ',' or ')' after an argument");
    }
}

std::string key_text(const Value* key) {
    return key->is_str() ? std::string(key->text()) : pickle::repr(*key);
}

std::vector<std::pair<std::string, ConfigValue>> config_values_of(const Value* dict) {
    std::vector<std::pair<std::string, ConfigValue>> out;
    if (dict != nullptr) {
        for (const auto& item : dict->dict_items()) {
            out.emplace_back(key_text(item.key), config_value_of(*item.value));
        }
    }
    return out;
}

// A list of names (['_grid_0', '_grid_1']); other items as Python prints them.
std::vector<std::string> texts_of(const Value* list) {
    std::vector<std::string> out;
    for (const Value* item : pickle::elements_of(list)) {
        out.push_back(key_text(item));
    }
    return out;
}

std::optional<std::vector<std::int64_t>> ints_of(const Value* sequence) {
    if (sequence == nullptr || !sequence->is_sequence()) {
        return std::nullopt;
    }
    std::vector<std::int64_t> out;
    for (const Value* item : sequence->items()) {
        const auto value = pickle::int_of(item);
        if (!value) {
            return std::nullopt;
        }
        out.push_back(*value);
    }
    return out;
}

std::string str_or_empty(const Value* value) {
    return std::string(pickle::str_of(value).value_or(std::string_view{}));
}

// A document for values that outlive the read, viewing the module text.
std::shared_ptr<Document> new_document(const std::shared_ptr<const void>& keep_alive,
                                       std::size_t budget) {
    return std::make_shared<Document>(keep_alive, budget);
}

class ModuleReader {
public:
    ModuleReader(std::string_view text, std::shared_ptr<const void> keep_alive)
        : text_(text)
        , lines_(text)
        , keep_alive_(std::move(keep_alive))
        , scratch_(new_document(keep_alive_, kScratchBudget)) {}

    KernelModule read();

private:
    std::vector<std::string> kernel_def_names() const;
    BenchmarkHarness wrapper_harness(const std::vector<Region>& regions) const;
    std::vector<Region> kernel_regions(std::vector<std::string>& problems) const;
    Result<std::pair<Region, std::size_t>> kernel_string(std::size_t open,
                                                         std::string_view binding) const;
    void read_kernels(const Region& region, KernelModule& module);
    KernelDefinition read_kernel(std::size_t decorator_at, std::size_t limit,
                                 const std::string& binding);
    Result<std::size_t> read_decorator(std::size_t open, std::size_t limit,
                                       KernelDefinition& kernel);
    void read_decorator_value(std::string_view keyword, const Value* value,
                              KernelDefinition& kernel) const;
    void read_triton_meta(const Value* meta, KernelDefinition& kernel) const;
    void read_inductor_meta(const Value* meta, KernelDefinition& kernel) const;
    void name_signature_by_position(KernelDefinition& kernel) const;
    void read_def(std::size_t from, std::size_t limit, KernelDefinition& kernel) const;
    std::optional<std::size_t> closing_bracket(std::size_t open, std::size_t limit) const;
    std::vector<KernelParameter> parameters_of(Span list) const;
    BenchmarkHarness read_harness(Span span) const;
    void read_get_args(std::size_t def_index, std::size_t limit, BenchmarkHarness& harness) const;
    std::vector<const Value*> returned_values(std::size_t at, std::size_t limit,
                                              std::vector<std::string>& problems) const;
    HarnessArg harness_arg_of(const Value* value, std::string_view name,
                              std::vector<std::string>& problems) const;
    ModuleRole role_of(const KernelModule& module) const;

    // Reads the expression at `at`, which must end before `limit`: a value
    // left open cannot make the reader scan the rest of the file, so reading a
    // module stays linear in its size however many values are broken.
    Result<LiteralPrefix> parse_at(Document& document, std::size_t at, std::size_t limit) const {
        Builder builder(document.arena(), kMaxDepth);
        return parse_python_literal_prefix(builder, text_.substr(0, limit), at, kMaxDepth, &lines_);
    }
    std::size_t line_number(std::size_t offset) const { return lines_.index_of(offset) + 1; }
    // Lines at column 0 of [begin, end): their 0-based indexes.
    std::pair<std::size_t, std::size_t> line_range(Span span) const {
        return {lines_.first_at_or_after(span.begin), lines_.first_at_or_after(span.end)};
    }
    // "line 3, column 1 (byte 52): <message>", as the literal reader words it.
    std::string located(std::size_t offset, std::string_view message) const {
        return lines_.position(offset) + ": " + std::string(message);
    }

    std::string_view text_;
    SourceLines lines_;
    std::shared_ptr<const void> keep_alive_;
    std::shared_ptr<Document> scratch_;
    std::size_t kept_documents_ = 0;
};

KernelModule ModuleReader::read() {
    KernelModule module;
    module.has_benchmark_harness = contains(text_, "def get_args()");
    module.is_autotune_template_candidate =
        (contains(text_, "@triton_heuristics.template(") || contains(text_, "\n@template(")) &&
        contains(text_, "'kernel_name': '" + std::string(kPlaceholderName) + "'");
    module.kernel_def_names = kernel_def_names();
    const std::vector<Region> regions = kernel_regions(module.problems);
    for (const Region& region : regions) {
        read_kernels(region, module);
    }
    if (kept_documents_ == kMaxKeptDocuments) {
        module.problems.push_back("only the first " + std::to_string(kMaxKeptDocuments) +
                                  " decorator dicts are kept for display");
    }
    module.role = role_of(module);
    if (module.role == ModuleRole::Wrapper) {
        module.wrapper_harness = wrapper_harness(regions);
    }
    return module;
}

// The distinct names matching ^def (triton_\w+)\( on any line, in file order.
std::vector<std::string> ModuleReader::kernel_def_names() const {
    std::vector<std::string> names;
    std::unordered_set<std::string_view> seen;
    for (std::size_t i = 0; i < lines_.count(); ++i) {
        const std::string_view line = lines_.line(i);
        if (!line.starts_with("def triton_")) {
            continue;
        }
        const std::string_view name = identifier_at(line, 4);
        const bool has_suffix = name.size() > std::string_view("triton_").size();
        if (has_suffix && line.substr(4 + name.size()).starts_with('(') &&
            seen.insert(name).second) {
            names.emplace_back(name);
        }
    }
    return names;
}

// A wrapper's own get_args(): the first one at the top level, outside kernel strings.
BenchmarkHarness ModuleReader::wrapper_harness(const std::vector<Region>& regions) const {
    for (const Region& region : regions) {
        if (!region.kernel_string) {
            BenchmarkHarness harness = read_harness(region.span);
            if (harness.get_args_line != 0) {
                return harness;
            }
        }
    }
    return {};
}

ModuleRole ModuleReader::role_of(const KernelModule& module) const {
    if (contains(text_, "CppWrapperCodeCache") || contains(text_, "load_pybinding(")) {
        return ModuleRole::CppWrapper;
    }
    const bool top_level_kernels =
        std::any_of(module.kernels.begin(), module.kernels.end(),
                    [](const KernelDefinition& kernel) { return kernel.wrapper_binding.empty(); });
    if (top_level_kernels) {
        return ModuleRole::TritonKernels;
    }
    if (contains(text_, "def call(") &&
        (contains(text_, "async_compile") || contains(text_, ".run("))) {
        return ModuleRole::Wrapper;
    }
    return ModuleRole::Other;
}

// The top level and each kernel string, in file order. A kernel string that
// cannot be read ends the walk: what follows may be inside it.
std::vector<Region> ModuleReader::kernel_regions(std::vector<std::string>& problems) const {
    constexpr std::string_view kTritonCall = "async_compile.triton(";
    std::vector<Region> regions;
    std::size_t top_level_begin = 0;
    for (std::size_t i = 0; i < lines_.count(); ++i) {
        // <name> = async_compile.triton('<name>', '''...''', device_str='cuda')
        const std::string_view line = lines_.line(i);
        const std::string_view binding = identifier_at(line, 0);
        const std::string_view rest = trim_space(line.substr(binding.size()));
        if (binding.empty() || !rest.starts_with('=') ||
            !trim_space(rest.substr(1)).starts_with(kTritonCall)) {
            continue;
        }
        const std::size_t line_start = lines_.start(i);
        if (line_start < top_level_begin) {
            continue; // inside the previous call
        }
        regions.push_back(top_level(top_level_begin, line_start));
        const std::size_t open = line_start + line.find(kTritonCall) + kTritonCall.size() - 1;
        auto kernel = kernel_string(open, binding);
        if (!kernel) {
            problems.push_back(
                "the kernel source given to async_compile.triton() cannot be read: " +
                kernel.error().describe());
            return regions;
        }
        regions.push_back(std::move(kernel->first));
        top_level_begin = kernel->second;
    }
    regions.push_back(top_level(top_level_begin, text_.size()));
    return regions;
}

// Reads `<binding> = async_compile.triton('<name>', '''<source>''', ...)` whose
// '(' is at `open`: the region of the source and the offset just past the
// call. PyTorch 2.0 passed the source alone; 2.1 to 2.5 named every kernel
// 'triton_': the binding is the name the wrapper launches it by.
Result<std::pair<Region, std::size_t>> ModuleReader::kernel_string(std::size_t open,
                                                                   std::string_view binding) const {
    Region region;
    region.kernel_string = true;
    region.binding = std::string(binding);
    auto end =
        walk_arguments(text_, lines_, open, [&](const Argument& argument) -> Result<std::size_t> {
            const bool source_alone =
                argument.index == 0 && (text_.substr(argument.value_at, 3) == "'''" ||
                                        text_.substr(argument.value_at, 3) == "\"\"\"");
            if (argument.keyword.empty() && (argument.index == 1 || source_alone)) {
                auto extent = scan_string_literal(text_, argument.value_at);
                if (!extent) {
                    return std::unexpected(extent.error());
                }
                region.span = {extent->body_begin, extent->body_end};
                return extent->end;
            }
            auto value = parse_at(*scratch_, argument.value_at, text_.size());
            if (!value) {
                return std::unexpected(value.error());
            }
            if (argument.keyword.empty() && argument.index == 0 && region.binding.empty()) {
                region.binding = str_or_empty(value->value);
            }
            return argument.value_at + value->consumed;
        });
    if (!end) {
        return std::unexpected(end.error());
    }
    if (region.binding.empty() || region.span.end == 0) {
        return fail(ErrorKind::Corrupt,
                    located(open, "async_compile.triton() without a kernel name and source"));
    }
    return std::pair{std::move(region), *end};
}

void ModuleReader::read_kernels(const Region& region, KernelModule& module) {
    std::vector<std::size_t> decorators;
    const auto [first, last] = line_range(region.span);
    for (std::size_t i = first; i < last; ++i) {
        if (heuristic_at(lines_.line(i)) != std::string_view::npos) {
            decorators.push_back(lines_.start(i));
        }
    }
    for (std::size_t k = 0; k < decorators.size(); ++k) {
        // A kernel's def and harness lie before the next kernel's decorator.
        const std::size_t limit = k + 1 < decorators.size() ? decorators[k + 1] : region.span.end;
        module.kernels.push_back(read_kernel(decorators[k], limit, region.binding));
    }
}

KernelDefinition ModuleReader::read_kernel(std::size_t decorator_at, std::size_t limit,
                                           const std::string& binding) {
    KernelDefinition kernel;
    kernel.wrapper_binding = binding;
    kernel.decorator_line = line_number(decorator_at);
    const std::size_t name_at = decorator_at + heuristic_at(lines_.line(kernel.decorator_line - 1));
    kernel.heuristic = std::string(identifier_at(text_, name_at));
    const std::size_t open = name_at + kernel.heuristic.size();
    std::size_t decorator_end = decorator_at;
    if (open < text_.size() && text_[open] == '(') {
        auto end = read_decorator(open, limit, kernel);
        if (end) {
            decorator_end = *end;
        } else {
            kernel.problems.push_back(end.error().describe());
        }
    } else {
        kernel.problems.push_back(located(decorator_at, "expected '(' after the heuristic's name"));
    }
    read_def(decorator_end, limit, kernel);
    name_signature_by_position(kernel);
    // Up to PyTorch 2.5 every kernel's def is `triton_`, its name in
    // kernel_name (2.1 on) or its binding (2.0); from 2.6 a bare `triton_`
    // without a kernel_name is a choice benchmarked under no name.
    const bool old_naming =
        !kernel.kernel_name.empty() || !kernel.inductor_meta || !kernel.wrapper_binding.empty();
    kernel.is_benchmark_candidate =
        kernel.kernel_name == kPlaceholderName || (kernel.name == "triton_" && !old_naming);
    if (kernel.def_line != 0) {
        kernel.harness = read_harness({lines_.start(kernel.def_line - 1), limit});
    }
    return kernel;
}

// Reads the decorator's arguments, each kept dict in a document of its own so
// that one unreadable value loses nothing read before it.
Result<std::size_t> ModuleReader::read_decorator(std::size_t open, std::size_t limit,
                                                 KernelDefinition& kernel) {
    return walk_arguments(
        text_.substr(0, limit), lines_, open, [&](const Argument& argument) -> Result<std::size_t> {
            const bool kept = (argument.keyword == "triton_meta" ||
                               argument.keyword == "inductor_meta" || argument.keyword == "meta") &&
                              kept_documents_ < kMaxKeptDocuments;
            kept_documents_ += kept ? 1 : 0;
            std::shared_ptr<Document> document =
                kept ? new_document(keep_alive_, kMetaBudget) : scratch_;
            auto value = parse_at(*document, argument.value_at, limit);
            if (!value) {
                // Reading stops at the next kernel: say so rather than "end of the input".
                const bool runs_on =
                    value.error().kind == ErrorKind::Truncated && limit < text_.size();
                return fail(value.error().kind,
                            "decorator argument '" + std::string(argument.keyword) + "': " +
                                (runs_on ? "not closed before the next kernel at line " +
                                               std::to_string(line_number(limit))
                                         : value.error().describe()));
            }
            if (kept) {
                document->set_root(value->value);
                (argument.keyword == "inductor_meta" ? kernel.inductor_meta : kernel.triton_meta) =
                    document;
            }
            read_decorator_value(argument.keyword, value->value, kernel);
            return argument.value_at + value->consumed;
        });
}

void ModuleReader::read_decorator_value(std::string_view keyword, const Value* value,
                                        KernelDefinition& kernel) const {
    if (keyword == "size_hints") {
        // {'x': 4096, 'r0_': 4096}; older Inductor wrote a list [4096, 4096].
        for (const auto& item : value->dict_items()) {
            if (const auto hint = pickle::int_of(item.value)) {
                kernel.size_hints.emplace_back(key_text(item.key), *hint);
            }
        }
        const auto listed = pickle::elements_of(value);
        for (std::size_t i = 0; i < listed.size(); ++i) {
            if (const auto hint = pickle::int_of(listed[i])) {
                kernel.size_hints.emplace_back(std::to_string(i), *hint);
            }
        }
    } else if (keyword == "reduction_hint") {
        kernel.reduction_hint =
            value->is(Kind::Global) ? std::string(value->name()) : str_or_empty(value);
    } else if (keyword == "num_stages") {
        kernel.num_stages = pickle::int_of(value);
    } else if (keyword == "num_warps") {
        kernel.num_warps = pickle::int_of(value);
    } else if (keyword == "triton_meta") {
        read_triton_meta(value, kernel);
    } else if (keyword == "inductor_meta") {
        read_inductor_meta(value, kernel);
    } else if (keyword == "meta") {
        // PyTorch 2.0 and 2.1: one dict holding both.
        read_triton_meta(value, kernel);
        read_inductor_meta(value, kernel);
    }
}

// Triton 2.x keyed triton_meta['signature'] by the argument's position:
// {0: '*fp32', 1: 'i32'} names the def's parameters in order.
void ModuleReader::name_signature_by_position(KernelDefinition& kernel) const {
    for (auto& entry : kernel.signature) {
        std::size_t index = 0;
        const auto [end, error] =
            std::from_chars(entry.name.data(), entry.name.data() + entry.name.size(), index);
        if (error == std::errc() && end == entry.name.data() + entry.name.size() &&
            index < kernel.parameters.size()) {
            entry.name = kernel.parameters[index].name;
        }
    }
}

void ModuleReader::read_triton_meta(const Value* meta, KernelDefinition& kernel) const {
    if (!meta->is(Kind::Dict)) {
        kernel.problems.push_back("triton_meta is a " + std::string(to_string(meta->kind())) +
                                  ", not a dict");
        return;
    }
    if (const Value* signature = meta->find("signature")) {
        for (const auto& item : signature->dict_items()) {
            kernel.signature.push_back({key_text(item.key), key_text(item.value)});
        }
    }
    kernel.constants = config_values_of(meta->find("constants"));
}

void ModuleReader::read_inductor_meta(const Value* meta, KernelDefinition& kernel) const {
    if (!meta->is(Kind::Dict)) {
        kernel.problems.push_back("inductor_meta is a " + std::string(to_string(meta->kind())) +
                                  ", not a dict");
        return;
    }
    kernel.grid_type = str_or_empty(meta->find("grid_type"));
    kernel.kernel_name = str_or_empty(meta->find("kernel_name"));
    kernel.kernel_num_gb = pickle::number_of(meta->find("kernel_num_gb"));
    kernel.kernel_flop = pickle::int_of(meta->find("kernel_flop"));
    kernel.config_args = config_values_of(meta->find("config_args"));
    kernel.fixed_grid = texts_of(meta->find("fixed_grid"));
    kernel.extra_launcher_args = texts_of(meta->find("extra_launcher_args"));
    kernel.mutated_arg_names = texts_of(meta->find("mutated_arg_names"));
    kernel.coordinate_descent_tuning = pickle::bool_of(meta->find("coordinate_descent_tuning"));
}

// The def the decorator applies to: the first `def` at column 0 after it,
// before `limit` (the next kernel). @triton.jit must come between.
void ModuleReader::read_def(std::size_t from, std::size_t limit, KernelDefinition& kernel) const {
    const std::size_t last = lines_.first_at_or_after(limit);
    bool jit = false;
    for (std::size_t i = lines_.index_of(from) + 1; i < last; ++i) {
        const std::string_view line = lines_.line(i);
        jit = jit || trim_space(line) == "@triton.jit";
        if (!line.starts_with("def ")) {
            continue;
        }
        kernel.name = std::string(identifier_at(line, 4));
        kernel.def_line = i + 1;
        if (!jit) {
            kernel.problems.push_back(located(lines_.start(i), "the kernel lacks @triton.jit"));
        }
        const std::size_t open = lines_.start(i) + 4 + kernel.name.size();
        if (const auto close = closing_bracket(open, limit)) {
            kernel.parameters = parameters_of({open + 1, *close});
        } else {
            kernel.problems.push_back(
                located(lines_.start(i), "the def's parameter list is missing or not closed"));
        }
        return;
    }
    kernel.problems.push_back(located(from, "no def follows the decorator"));
}

// The ')' matching the '(' at `open`, counting all brackets, before `limit`.
std::optional<std::size_t> ModuleReader::closing_bracket(std::size_t open,
                                                         std::size_t limit) const {
    if (open >= limit || text_[open] != '(') {
        return std::nullopt;
    }
    std::size_t depth = 0;
    for (std::size_t at = open; at < limit; ++at) {
        const char c = text_[at];
        depth += c == '(' || c == '[' || c == '{';
        if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                return at;
            }
        }
    }
    return std::nullopt;
}

// `a, XBLOCK : tl.constexpr, b=1` split at the commas outside brackets.
std::vector<KernelParameter> ModuleReader::parameters_of(Span list) const {
    std::vector<KernelParameter> parameters;
    auto add = [&](std::string_view written) {
        written = trim_space(written);
        if (written.empty()) {
            return;
        }
        const std::string_view declared = trim_space(written.substr(0, written.find('=')));
        const std::size_t colon = declared.find(':');
        parameters.push_back({std::string(trim_space(declared.substr(0, colon))),
                              colon == std::string_view::npos
                                  ? std::string()
                                  : std::string(trim_space(declared.substr(colon + 1)))});
    };
    std::size_t depth = 0;
    std::size_t item_begin = list.begin;
    for (std::size_t at = list.begin; at < list.end; ++at) {
        const char c = text_[at];
        depth += c == '(' || c == '[' || c == '{';
        depth -= depth > 0 && (c == ')' || c == ']' || c == '}');
        if (c == ',' && depth == 0) {
            add(text_.substr(item_begin, at - item_begin));
            item_begin = at + 1;
        }
    }
    add(text_.substr(item_begin, list.end - item_begin));
    return parameters;
}

// get_args(), call(args) and benchmark_all_configs(args) at column 0 in `span`.
BenchmarkHarness ModuleReader::read_harness(Span span) const {
    BenchmarkHarness harness;
    const auto [first, last] = line_range(span);
    for (std::size_t i = first; i < last; ++i) {
        const std::string_view line = lines_.line(i);
        harness.has_call =
            harness.has_call || line.starts_with("def call(") || line.starts_with("call = ");
        harness.has_benchmark_all_configs =
            harness.has_benchmark_all_configs || line.starts_with("def benchmark_all_configs(");
        if (harness.get_args_line == 0 && line.starts_with("def get_args()")) {
            harness.get_args_line = i + 1;
            read_get_args(i, span.end, harness);
        }
    }
    return harness;
}

// The body of get_args(), which ends before the byte offset `limit`:
// `name = rand_strided(...)` and `name = 3` bind names; the return statement
// lists the arguments. Reading stops at the first statement it cannot read.
void ModuleReader::read_get_args(std::size_t def_index, std::size_t limit,
                                 BenchmarkHarness& harness) const {
    std::unordered_map<std::string_view, HarnessArg> bound;
    const std::size_t last = lines_.first_at_or_after(limit);
    for (std::size_t i = def_index + 1; i < last;) {
        const std::string_view line = lines_.line(i);
        if (!line.empty() && line.front() != ' ' && line.front() != '\t') {
            break; // the body ended
        }
        const std::size_t indent = line.find_first_not_of(" \t");
        const std::size_t statement = lines_.start(i) + std::min(indent, line.size());
        const std::string_view stripped = trim_space(line);
        if (stripped.starts_with("return") &&
            (stripped.size() == 6 || !is_name_char(stripped[6]))) {
            for (const Value* value : returned_values(statement + 6, limit, harness.problems)) {
                HarnessArg arg;
                if (value->is(Kind::Global) && value->module().empty()) {
                    const auto found = bound.find(value->name());
                    arg = found != bound.end() ? found->second : HarnessArg{};
                    arg.name = std::string(value->name());
                } else {
                    arg = harness_arg_of(value, {}, harness.problems);
                }
                harness.args.push_back(std::move(arg));
            }
            return;
        }
        const std::string_view name = identifier_at(stripped, 0);
        const std::string_view rest = trim_space(stripped.substr(name.size()));
        if (name.empty() || !rest.starts_with('=') || rest.starts_with("==")) {
            ++i;
            continue;
        }
        const std::size_t value_at = statement + (rest.data() + 1 - stripped.data());
        auto value = parse_at(*scratch_, value_at, limit);
        if (!value) {
            harness.problems.push_back("get_args(): " + value.error().describe());
            return;
        }
        bound[name] = harness_arg_of(value->value, name, harness.problems);
        i = std::max(i + 1, lines_.first_at_or_after(value_at + value->consumed));
    }
    harness.problems.push_back(
        located(lines_.start(def_index), "get_args() has no return statement"));
}

// `return a, b, 4096,` (a bare tuple ending at the line's end) or
// `return [a, b]` / `return (a, b)`: the values, in order.
std::vector<const Value*> ModuleReader::returned_values(std::size_t at, std::size_t limit,
                                                        std::vector<std::string>& problems) const {
    std::vector<const Value*> values;
    std::size_t pos = at;
    for (;;) {
        pos = std::min(text_.find_first_not_of(" \t", pos), limit);
        if (pos >= limit || text_[pos] == '\n' || text_[pos] == '\r' || text_[pos] == '#') {
            break;
        }
        auto value = parse_at(*scratch_, pos, limit);
        if (!value) {
            problems.push_back("get_args() returns: " + value.error().describe());
            break;
        }
        values.push_back(value->value);
        pos = std::min(text_.find_first_not_of(" \t", pos + value->consumed), limit);
        if (pos >= limit || text_[pos] != ',') {
            break;
        }
        ++pos;
    }
    if (values.size() == 1 && (values.front()->is(Kind::List) || values.front()->is(Kind::Tuple))) {
        const auto items = values.front()->items();
        return {items.begin(), items.end()};
    }
    return values;
}

// rand_strided(shape, stride, device=..., dtype=...) is a tensor; an int or
// float literal is itself; anything else is Unknown. `name` is the variable
// bound to it, if any.
HarnessArg ModuleReader::harness_arg_of(const Value* value, std::string_view name,
                                        std::vector<std::string>& problems) const {
    HarnessArg arg;
    arg.name = std::string(name);
    if (value->is(Kind::Int) || value->is(Kind::Bool)) {
        arg.kind = HarnessArg::Kind::Int;
        arg.integer = value->as_int();
        return arg;
    }
    if (value->is(Kind::Float)) {
        arg.kind = HarnessArg::Kind::Float;
        arg.real = value->as_float();
        return arg;
    }
    const Value* callable = value->callable();
    if (callable == nullptr || callable->name() != "rand_strided") {
        return arg;
    }
    // rand_strided(size, stride, dtype=torch.float32, device="cpu", extra_size=0)
    const auto positional = pickle::elements_of(value->args());
    auto argument = [&](std::size_t index, std::string_view keyword) -> const Value* {
        if (const Value* kwargs = value->kwargs()) {
            if (const Value* given = kwargs->find(keyword)) {
                return given;
            }
        }
        return index < positional.size() ? positional[index] : nullptr;
    };
    const auto shape = ints_of(argument(0, "size"));
    const auto stride = ints_of(argument(1, "stride"));
    if (!shape || !stride) {
        problems.push_back("get_args(): the shape or stride of " +
                           (name.empty() ? std::string("a returned tensor") : std::string(name)) +
                           " is not literal ints");
        return arg;
    }
    arg.kind = HarnessArg::Kind::Tensor;
    arg.tensor.shape = *shape;
    arg.tensor.stride = *stride;
    arg.tensor.device = str_or_empty(argument(3, "device"));
    const Value* dtype = argument(2, "dtype");
    arg.tensor.dtype =
        dtype != nullptr && dtype->is(Kind::Global) ? std::string(dtype->name()) : std::string();
    return arg;
}

} // namespace

std::string_view to_string(ModuleRole role) {
    switch (role) {
    case ModuleRole::TritonKernels:
        return "Triton kernels";
    case ModuleRole::Wrapper:
        return "wrapper";
    case ModuleRole::CppWrapper:
        return "C++ wrapper";
    case ModuleRole::Other:
        return "other";
    }
    return "?";
}

std::string KernelDefinition::display_name() const {
    if (name != "triton_") {
        return name;
    }
    if (!kernel_name.empty() && kernel_name != kPlaceholderName) {
        return kernel_name;
    }
    return wrapper_binding.empty() ? name : wrapper_binding;
}

std::vector<std::string> KernelModule::kernel_names() const {
    if (!kernel_def_names.empty()) {
        return kernel_def_names;
    }
    std::vector<std::string> names;
    std::unordered_set<std::string> seen; // a 2.0-2.5 wrapper can hold thousands
    for (const KernelDefinition& kernel : kernels) {
        // A decorator no def follows names nothing (its problems say so).
        std::string name = kernel.display_name();
        if (!kernel.is_benchmark_candidate && !name.empty() && seen.insert(name).second) {
            names.push_back(std::move(name));
        }
    }
    return names;
}

const KernelDefinition* KernelModule::find_kernel(std::string_view name) const {
    for (const KernelDefinition& kernel : kernels) {
        if (kernel.name == name) {
            return &kernel;
        }
    }
    for (const KernelDefinition& kernel : kernels) {
        if (kernel.display_name() == name) {
            return &kernel;
        }
    }
    return nullptr;
}

Result<KernelModule> parse_kernel_module(std::string_view text,
                                         std::shared_ptr<const void> keep_alive) {
    if (text.find('\0') != std::string_view::npos || !is_valid_utf8(text)) {
        return fail(ErrorKind::Corrupt, "not Python source: the text is not UTF-8");
    }
    if (keep_alive == nullptr) {
        auto copy = std::make_shared<const std::string>(text);
        text = *copy;
        keep_alive = std::move(copy);
    }
    try {
        return ModuleReader(text, std::move(keep_alive)).read();
    } catch (const std::bad_alloc&) {
        return fail(ErrorKind::LimitExceeded, "out of memory while reading the module");
    }
}

Result<KernelModule> read_kernel_module(const std::filesystem::path& path) {
    auto file = MappedFile::open(path, kMaxModuleSize);
    if (!file) {
        return std::unexpected(file.error());
    }
    const std::string_view text = (*file)->bytes();
    auto module = parse_kernel_module(text, *file);
    if (!module) {
        return std::unexpected(module.error().at(path.string()));
    }
    return module;
}

} // namespace cachelens::cachedir
