#pragma once

// A bundle's artifacts as `bundle ls --json` prints them and `export --json`
// reports them: [{type, key, size, sha256 (hex of the content)}].

#include "output.h"

#include <cachelens/bundle/mega_cache.h>

namespace cachelens::cli {

Json artifacts_json(const bundle::MegaBundle& bundle);

} // namespace cachelens::cli
