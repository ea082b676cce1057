#!/usr/bin/env bash
# Builds and tests the C# client (clients/csharp) with Mono, Unity's scripting runtime:
#
#   1. the library, Podium/*.cs, into Podium.dll (mcs -target:library, C# 6, warnings are errors,
#      every public symbol documented: Podium.xml);
#   2. the tests, Tests/*.cs, into PodiumTests.exe referencing it;
#   3. runs them with mono: every test's name and result, then "N passed, N failed, N skipped".
#
# The unit tests (JSON, the retry and reconnection rules, the docs' samples, the .NET Standard 2.1
# surface) always run; the others need a stack: PODIUM_TEST_HTTP, PODIUM_TEST_WS,
# PODIUM_TEST_ADMIN_KEY, PODIUM_TEST_SERVER_KEY, PODIUM_TEST_SESSION_TTL_S, as
# scripts/test-clients csharp sets them. Without PODIUM_TEST_HTTP they are reported as skipped.
#
# Usage: clients/csharp/test.sh [NAME-PART…]   (only the tests whose names contain one of them)
# PODIUM_CSHARP_BUILD=DIR keeps the build there (default: a temporary directory, removed after).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v mcs >/dev/null && command -v mono >/dev/null || { echo "test.sh: needs Mono (apt-get install mono-devel)" >&2; exit 2; }

if [[ -n ${PODIUM_CSHARP_BUILD:-} ]]; then
    build="$PODIUM_CSHARP_BUILD"
    mkdir -p "$build"
else
    build="$(mktemp -d "${TMPDIR:-/tmp}/podium-csharp.XXXXXX")"
    trap 'rm -rf "$build"' EXIT
fi

# The library is C# 6, which every Unity since 2017 compiles; the tests may use what mcs has of C# 7.
flags=(-warnaserror+ -nologo -r:System.Net.Http.dll)
echo "test.sh: $(mcs --version), $(mono --version | head -n 1 | cut -d'(' -f1)"
started=$SECONDS
mcs "${flags[@]}" -langversion:6 -target:library -optimize+ -doc:"$build/Podium.xml" -out:"$build/Podium.dll" "$here"/Podium/*.cs
mcs "${flags[@]}" -langversion:7.2 -target:exe -debug -r:"$build/Podium.dll" -out:"$build/PodiumTests.exe" "$here"/Tests/*.cs
echo "test.sh: compiled Podium.dll and PodiumTests.exe without warnings in $((SECONDS - started)) s"

export PODIUM_CSHARP_DIR="$here"
exec mono --debug "$build/PodiumTests.exe" "$@"
