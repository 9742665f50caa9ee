# clang-14 + Debian's wasi-libc, the wasi-sdk toolchain without wasi-sdk.
# Debian has no ready sysroot dir, so build one of symlinks; without
# --sysroot clang silently falls back to glibc headers.
# Generic: CMake 3.25 has no WASI platform file; the target triple does the work.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang-14)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(ORTKEEP_WASI_SYSROOT ${CMAKE_BINARY_DIR}/wasi-sysroot)
file(MAKE_DIRECTORY ${ORTKEEP_WASI_SYSROOT}/include ${ORTKEEP_WASI_SYSROOT}/lib)
file(CREATE_LINK /usr/include/wasm32-wasi ${ORTKEEP_WASI_SYSROOT}/include/wasm32-wasi SYMBOLIC)
file(CREATE_LINK /usr/lib/wasm32-wasi ${ORTKEEP_WASI_SYSROOT}/lib/wasm32-wasi SYMBOLIC)
set(CMAKE_SYSROOT ${ORTKEEP_WASI_SYSROOT})
set(CMAKE_C_COMPILER_WORKS ON)
set(CMAKE_EXECUTABLE_SUFFIX ".wasm")
# --strip-debug, not --strip-all: the latter drops target_features and the
# wasm-opt clang runs on its own then rejects the module.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--strip-debug")
# --single-threaded: Node 20's WASI crashes (SIGSEGV) in about half the exits
# of test_onnx_stream after main() returned, all checks passed; without V8's
# background threads it never did in 20 runs.
set(CMAKE_CROSSCOMPILING_EMULATOR "/usr/bin/node;--no-warnings;--single-threaded;${CMAKE_CURRENT_LIST_DIR}/wasi-run.mjs")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
