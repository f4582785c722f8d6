// The on-disk cache of compiled CPU kernels: <dir>/<key>.so where key = xxhash64 of (source,
// flags, compiler version). Objects are written to a temporary file in the same directory and
// renamed into place, so concurrent processes compiling one program both succeed.
#pragma once

#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

// CompileOptions::cacheDir, else $LOOPFUSE_CACHE_DIR, else $XDG_CACHE_HOME/loopfuse, else
// ~/.cache/loopfuse.
std::string cacheDirectory(const CompileOptions& options);

// Returns the shared object built from `source`, compiling only when the cache has no object for
// it. Fills stats (objectPath, cacheHit, seconds).
CompileStats compileCached(const std::string& source, const CompileOptions& options);

}  // namespace lf::runtime
