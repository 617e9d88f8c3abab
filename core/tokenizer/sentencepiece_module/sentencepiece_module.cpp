// gatescope's SentencePiece module: GatescopeSpmApi (sentencepiece_abi.h) over Debian's
// libsentencepiece. Loaded by core/tokenizer/sentencepiece_module.cpp into a link namespace of
// its own; nothing else of gatescope is linked into it.
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <sentencepiece_processor.h>

#include "core/tokenizer/sentencepiece_abi.h"

namespace {

using sentencepiece::SentencePieceProcessor;

const SentencePieceProcessor& processor(const void* model) {
    return *static_cast<const SentencePieceProcessor*>(model);
}

void report(GatescopeSpmText onError, void* context, const std::string& message) {
    onError(context, message.data(), message.size());
}

// Runs `body`; an exception (std::bad_alloc) never leaves the module: it becomes a message.
template <typename Body>
int32_t guarded(GatescopeSpmText onError, void* context, Body&& body) {
    try {
        return body();
    } catch (const std::exception& e) {
        report(onError, context, std::string("SentencePiece: ") + e.what());
    } catch (...) {
        report(onError, context, "SentencePiece: unknown exception");
    }
    return 0;
}

void* load(const char* bytes, size_t size, GatescopeSpmText onError, void* context) {
    void* out = nullptr;
    guarded(onError, context, [&] {
        auto sp = std::make_unique<SentencePieceProcessor>();
        const auto status = sp->LoadFromSerializedProto(std::string_view(bytes, size));
        if (!status.ok()) {
            report(onError, context, status.ToString());
            return 0;
        }
        out = sp.release();
        return 1;
    });
    return out;
}

void release(void* model) {
    delete static_cast<SentencePieceProcessor*>(model);
}

int32_t pieceSize(const void* model) {
    return processor(model).GetPieceSize();
}

int32_t specialId(const void* model, int32_t which) {
    const auto& sp = processor(model);
    switch (which) {
        case kGatescopeSpmBos:
            return sp.bos_id();
        case kGatescopeSpmEos:
            return sp.eos_id();
        case kGatescopeSpmUnk:
            return sp.unk_id();
    }
    return -1;
}

int32_t isByte(const void* model, int32_t id) {
    return processor(model).IsByte(id) ? 1 : 0;
}

void idToPiece(const void* model, int32_t id, GatescopeSpmText out, void* context) {
    const std::string& piece = processor(model).IdToPiece(id);
    out(context, piece.data(), piece.size());
}

int32_t encode(const void* model, const char* text, size_t size, GatescopeSpmPiece onPiece,
               GatescopeSpmText onError, void* context) {
    return guarded(onError, context, [&] {
        sentencepiece::ImmutableSentencePieceText spt;
        const auto status =
            processor(model).Encode(std::string_view(text, size), spt.mutable_proto());
        if (!status.ok()) {
            report(onError, context, "SentencePiece: " + status.ToString());
            return 0;
        }
        for (const auto& piece : spt.pieces())
            onPiece(context, static_cast<int32_t>(piece.id()), piece.begin(), piece.end());
        return 1;
    });
}

int32_t decode(const void* model, const int32_t* ids, size_t count, GatescopeSpmText onText,
               GatescopeSpmPiece onPiece, GatescopeSpmText onError, void* context) {
    return guarded(onError, context, [&] {
        sentencepiece::ImmutableSentencePieceText spt;
        const std::vector<int> pieceIds(ids, ids + count);
        const auto status = processor(model).Decode(pieceIds, spt.mutable_proto());
        if (!status.ok()) {
            report(onError, context, "SentencePiece: " + status.ToString());
            return 0;
        }
        const std::string& decoded = spt.text();
        onText(context, decoded.data(), decoded.size());
        for (const auto& piece : spt.pieces())
            onPiece(context, static_cast<int32_t>(piece.id()), piece.begin(), piece.end());
        return 1;
    });
}

const GatescopeSpmApi kApi = {GATESCOPE_SPM_ABI_VERSION,
                              GATESCOPE_SPM_LIBRARY_VERSION,
                              load,
                              release,
                              pieceSize,
                              specialId,
                              isByte,
                              idToPiece,
                              encode,
                              decode};

}  // namespace

extern "C" __attribute__((visibility("default"))) const GatescopeSpmApi*
gatescope_sentencepiece_api(uint32_t abiVersion) {
    return abiVersion == GATESCOPE_SPM_ABI_VERSION ? &kApi : nullptr;
}
