#pragma once

// The module-level names PyTorch's own cache entries make a pickle refer to.
// Loading a bundle, PyTorch unpickles every artifact: a name outside this set
// (os.system, subprocess.Popen, builtins.exec, ...) is how a hostile bundle
// runs code. The import safety report lists the names an artifact uses beyond
// the set for its type; cachelens itself never resolves any of them.
//
// The sets come from every FX graph and AOTAutograd entry in the PyTorch 2.11
// fixtures (tests check that each fixture entry stays inside them), and for
// `pgo` from the data classes torch/_dynamo/pgo.py pickles.

#include <span>
#include <string_view>

namespace cachelens::bundle {

struct GlobalName {
    std::string_view module;
    std::string_view name;
};

// Names an `inductor` or `aot_autograd` artifact may refer to.
std::span<const GlobalName> pytorch_entry_globals();
// Names a `pgo` artifact (a dynamo code-state pickle) may refer to.
std::span<const GlobalName> pytorch_pgo_globals();

bool is_listed(std::span<const GlobalName> allowed, std::string_view module, std::string_view name);

} // namespace cachelens::bundle
