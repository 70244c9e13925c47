#!/usr/bin/env bash
# Regenerates docs/generated/ from the ODS (.td) files with the build
# directory BUILD (default: build): the accel dialect reference (ops, types,
# attributes) and the pass references, as mlir-tblgen writes them
# (add_mlir_doc in include/accel/*/CMakeLists.txt, target mlir-doc).
# test/Docs/generated.test fails while the committed copies differ.
#
#   utils/update-generated-docs.sh [BUILD]
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-build}" && pwd)"
cmake --build "$build" --target mlir-doc
cp "$build/docs/Dialects/AccelDialect.md" "$src/docs/generated/AccelDialect.md"
cp "$build/docs/AccelPasses.md" "$src/docs/generated/AccelPasses.md"
cp "$build/docs/AccelConversionPasses.md" \
  "$src/docs/generated/AccelConversionPasses.md"
cp "$build/docs/AccelFrontendPasses.md" \
  "$src/docs/generated/AccelFrontendPasses.md"
echo "docs/generated: updated from $build/docs"
