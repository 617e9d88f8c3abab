// The C interface between gatescope and its SentencePiece module (sentencepiece_module/), which
// runs Debian's libsentencepiece in a link namespace of its own (see sentencepiece_module.h for
// why). Only plain C types cross it: no C++ object, no exception, no memory that one side
// allocates and the other frees. Results come back through callbacks that copy them; a callback
// must not throw.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

/// Receives bytes (a message, a piece, a decoded text); valid only during the call.
typedef void (*GatescopeSpmText)(void* context, const char* data, size_t size);
/// Receives one piece: its id and its byte span [begin, end) in the text encoded or decoded.
typedef void (*GatescopeSpmPiece)(void* context, int32_t id, uint32_t begin, uint32_t end);

/// Special pieces asked of GatescopeSpmApi::specialId.
enum GatescopeSpmSpecial { kGatescopeSpmBos = 0, kGatescopeSpmEos = 1, kGatescopeSpmUnk = 2 };

/// Bumped whenever a member below changes.
#define GATESCOPE_SPM_ABI_VERSION 1u

/// What the module offers. A model is an opaque handle: made by load, given back with release;
/// every other call only reads it and may run on several threads at once (SentencePiece's
/// processor is immutable after loading).
struct GatescopeSpmApi {
    uint32_t abiVersion;
    /// SentencePiece's version ("0.1.97").
    const char* libraryVersion;
    /// A model from the bytes of a tokenizer.model; null on failure, with SentencePiece's message
    /// sent to `onError`.
    void* (*load)(const char* bytes, size_t size, GatescopeSpmText onError, void* context);
    void (*release)(void* model);
    int32_t (*pieceSize)(const void* model);
    /// The id of a GatescopeSpmSpecial piece, -1 when the model has none.
    int32_t (*specialId)(const void* model, int32_t which);
    /// 1 when `id` is a byte piece ("<0xE2>").
    int32_t (*isByte)(const void* model, int32_t id);
    /// The piece's text, sent to `out`.
    void (*idToPiece)(const void* model, int32_t id, GatescopeSpmText out, void* context);
    /// SentencePiece's Encode of the text: every piece in order to `onPiece`. Returns 1, or 0
    /// with the message sent to `onError`.
    int32_t (*encode)(const void* model, const char* text, size_t size, GatescopeSpmPiece onPiece,
                      GatescopeSpmText onError, void* context);
    /// SentencePiece's Decode of the ids (each in [0, pieceSize)): the text to `onText`, then
    /// every piece with its span in that text to `onPiece`. Returns 1, or 0 (message to
    /// `onError`).
    int32_t (*decode)(const void* model, const int32_t* ids, size_t count, GatescopeSpmText onText,
                      GatescopeSpmPiece onPiece, GatescopeSpmText onError, void* context);
};

/// The module's one exported symbol: its interface when it was built for `abiVersion`, else null.
typedef const GatescopeSpmApi* (*GatescopeSpmEntry)(uint32_t abiVersion);
#define GATESCOPE_SPM_ENTRY "gatescope_sentencepiece_api"

}  // extern "C"
