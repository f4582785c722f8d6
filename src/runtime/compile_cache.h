// The on-disk cache of compiled CPU kernels: <dir>/<key>.so where key = xxhash64 of (source,
// flags, compiler version). Objects are written to a temporary file in the same directory and
// renamed into place, so concurrent processes compiling one program both succeed.
#pragma once

#include <functional>
#include <string>

#include "runtime/executable.h"

namespace lf::runtime {

// CompileOptions::cacheDir, else $LOOPFUSE_CACHE_DIR, else $XDG_CACHE_HOME/loopfuse, else
// ~/.cache/loopfuse.
std::string cacheDirectory(const CompileOptions& options);

// Returns the shared object built from `source`, compiling only when the cache has no object for
// it. Fills stats (objectPath, cacheHit, seconds).
CompileStats compileCached(const std::string& source, const CompileOptions& options);

// The same cache for other compiled artifacts (the CUDA target's cubins): <dir>/<key><suffix>
// where key = xxhash64 of keyMaterial (the caller puts source, flags and compiler version in it).
// `build` runs only on a miss and returns the artifact's bytes, which are written to a temporary
// file and renamed into place like the shared objects. Fills stats as compileCached does.
CompileStats cachedArtifact(const std::string& keyMaterial, const std::string& suffix,
                            const CompileOptions& options,
                            const std::function<std::string()>& build);

}  // namespace lf::runtime
