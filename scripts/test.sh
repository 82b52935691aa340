#!/usr/bin/env bash
# scripts/test.sh: the README's second command (and what CI runs).
# Installs what is missing, then builds and runs the whole test suite twice:
# a normal gcc build (build/) and a clang ASan+UBSan build (build-asan/), then the
# threaded tests (label `tsan`) in a ThreadSanitizer build. Any failure
# or skipped integration test (with CI set) fails the run.
#
#   scripts/test.sh            all three builds, every test
#   scripts/test.sh --quick    normal build; the unit tests and a browser smoke
#                              test (labels unit, smoke): a few minutes
#
# Labels (tests/CMakeLists.txt): every test is `unit` (no browser) or
# `browser` (a real Chromium), some also `slow` (over ~10 s); plus its module.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc)"

# run_suite DIR [ctest-args --] cmake-args...
run_suite() {
  local dir="$1"; shift
  local filter=()
  if [ "${1:-}" = "-L" ]; then filter=(-L "$2"); shift 3; fi
  echo "== build $dir ($*)" >&2
  scripts/setup.sh "$dir" -DFOVEA_WERROR=ON "$@"
  echo "== test $dir ${filter[*]}" >&2
  (cd "$dir" && ctest --output-on-failure -j"$jobs" --timeout 600 "${filter[@]}")
}

if [ "${1:-}" = "--quick" ]; then
  run_suite build -L 'unit|smoke' --
  echo "== quick suite passed (unit + smoke)" >&2
  exit 0
fi
# The pool tests (test_cmd_batch) run browserless from npm: installed here,
# once, into .pool/ (scripts/pool.sh); without npm they skip, which fails CI.
scripts/pool.sh install || echo "test.sh: browserless could not be installed; pool tests will skip" >&2
# The MCP tests (ctest -L mcp) talk to fovea mcp with the official MCP SDK
# client and the Inspector CLI: installed here, once, into .mcp-clients/.
scripts/mcp_clients.sh install || echo "test.sh: the MCP clients could not be installed; mcp_sdk tests will skip" >&2
run_suite build
# Leaks are reported but Chromium-facing tests exit through atexit with
# threads joined, so detect_leaks stays on.
# This build uses clang (the normal one gcc), so code and tests that only
# one compiler rejects are seen, both with -Werror.
CC=clang ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_suite build-asan -DFOVEA_ASAN=ON -DFOVEA_UBSAN=ON -DCMAKE_BUILD_TYPE=Debug
# The threaded parts (cdp service thread, prefetch epochs) once more under
# ThreadSanitizer: the tests labelled `tsan`.
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  run_suite build-tsan -L tsan -- -DFOVEA_TSAN=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== all test suites passed" >&2
