#pragma once

// What an FX graph entry holds of its key's inputs, for the entries that
// store no debug lines (PyTorch 2.7 and older): their key is a hash whose
// inputs are gone, so which input changed cannot be read from the cache. What
// the entry does hold is compared instead, in the debug lines' form
// ("[<hash>] <attribute>: <value>", the hash that of the value's text) so that
// `diff`, `why`, `watch` and the pages compare it the one way they compare
// keys (key_diff.h, causes.h):
//
//   fx_kwargs[<name>]     the entry's own fx_kwargs (is_backward, cudagraphs, ...)
//   example_inputs[<i>]   the wrapper's call(args): its size asserts, the
//                         dtypes and devices of its benchmark inputs, the
//                         sizes it takes as SymInts
//   inductor_config[<n>]  the Inductor config its kernels recorded (inductor_meta)
//   wrapper_ops           the ATen ops its kernels and extern calls compute
//   wrapper_kernels       the kernels call() launches
//   system_info[backend_hash], system_info[triton_target], triton_version
//                         what its kernels say of Triton and the GPU
//
// These lines are not PyTorch's: every view says they were read from the entry.

#include <cachelens/cachedir/fx_graph_entry.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cachelens::explain {

std::vector<std::string> recorded_key_facts(const cachedir::FxGraphEntry& fx);

// The lines an entry is compared by: its key's debug lines, or where it
// stores none, recorded_key_facts(). `keep_alive` owns what `lines` view.
struct ComparedLines {
    std::vector<std::string_view> lines;
    bool from_facts = false;
    std::shared_ptr<const void> keep_alive;
};
ComparedLines lines_to_compare(const cachedir::FxGraphEntry& fx);

// The first line wherever such an entry is compared: what cannot be told and
// what to do. "PyTorch 2.7 stores no debug lines in its entries: which input
// changed cannot be read from the cache; run with TORCH_TRACE and `cachelens
// trace`".
std::string unrecorded_inputs_line(std::string_view written_by);

// A `wrapper_ops` value ("aten.add, aten.mm x2") as op -> count.
std::vector<std::pair<std::string, int>> listed_ops(std::string_view value);

} // namespace cachelens::explain
