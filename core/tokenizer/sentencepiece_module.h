// Loading gatescope's SentencePiece module (sentencepiece_module/, a shared module beside the
// build's executables) into a link namespace of its own.
//
// Why not link libsentencepiece: Debian's libsentencepiece.so.0 carries its own copy of
// protobuf-lite 3.14.0 and exports all of it (google::protobuf::*), while LibTorch needs the
// system libprotobuf.so.32 (3.21.12), of another ABI and without versioned symbols. In one link
// namespace every reference to a protobuf symbol binds to whichever library comes first: with
// libsentencepiece first, libprotobuf's own static initializers run SentencePiece's 3.14 code
// and segfault (ReflectionOps::FindInitializationErrors); with libprotobuf first,
// SentencePiece's generated code fails protobuf's version check and aborts. No link order
// helps, and RTLD_DEEPBIND would bind the module to libstdc++'s own std::cerr rather than the
// executable's copy. dlmopen(LM_ID_NEWLM) gives the module, libsentencepiece and their C++
// runtime a namespace where no other protobuf is visible; gatescope talks to it through the C
// interface of sentencepiece_abi.h.
#pragma once

#include <filesystem>
#include <vector>

#include "core/tokenizer/sentencepiece_abi.h"
#include "data/common/result.h"

namespace gatescope::core {

/// Whether this build made the module (libsentencepiece-dev was there).
bool sentencePieceModuleBuilt();

/// The files tried, in order: the module this build made (its absolute path), then
/// gatescope_sentencepiece.so beside the running executable and in ../lib from it. Empty when
/// the build made none.
std::vector<std::filesystem::path> sentencePieceModuleCandidates();

/// The module's interface, loaded on the first call (once per process, thread-safe, never
/// unloaded). Errors (Unsupported): a build without the module; no candidate file loads (the
/// message names each file tried and dlerror's reason); the file is of another ABI version.
Result<const GatescopeSpmApi*> sentencePieceModule();

}  // namespace gatescope::core
