#!/usr/bin/env bash
# Here (Debian, libisal-dev installed by setup.sh): copies ISA-L's library and headers into
# build/isal with a relocatable pkg-config file, for `run` to carry to the GPU machine, which
# cannot install packages (../shared/design/DEVICE.md). scripts/gpu-configure.sh finds it there:
# without it the GPU build deflates trace chunks through zlib, about 10x slower
# (data/h5/chunk_codec.h). Usage: scripts/gpu-carry-isal.sh   (then carry build/isal)
set -euo pipefail
cd "$(dirname "$0")/.."
pc=$(pkg-config --variable=pcfiledir libisal)/libisal.pc
libdir=$(pkg-config --variable=libdir libisal)
includedir=$(pkg-config --variable=includedir libisal)
out=build/isal
rm -rf "$out"
mkdir -p "$out/include" "$out/lib/pkgconfig"
cp -r "$includedir/isa-l" "$includedir/isa-l.h" "$out/include/"
cp -L "$libdir/libisal.so.2" "$out/lib/"
ln -s libisal.so.2 "$out/lib/libisal.so"
sed -e 's|^prefix=.*|prefix=${pcfiledir}/../..|' -e 's|^exec_prefix=.*|exec_prefix=${prefix}|' \
    -e 's|^libdir=.*|libdir=${prefix}/lib|' -e 's|^includedir=.*|includedir=${prefix}/include|' \
    "$pc" >"$out/lib/pkgconfig/libisal.pc"
echo "wrote $out ($(du -sh "$out" | cut -f1)); carry it with the GPU run"
