# The release bundle's executables (scripts/release.sh, docs/install.md):
# torch-tidy and torch-clangd from the build's own objects, with LLVM, Clang,
# zlib, zstd and libstdc++ linked in, so that only glibc stays dynamic.
# TORCH_TIDY_BUNDLE_SYSROOT names an older distribution's root whose glibc
# (crt files, libc, libm, libpthread, libdl) the bundle is linked against:
# the oldest glibc it runs on.
set(TORCH_TIDY_BUNDLE_SYSROOT "" CACHE PATH
    "Root of an older distribution whose glibc the bundle links against")

file(GLOB _clang_archives ${LLVM_LIBRARY_DIR}/libclang*.a)
# The remote index needs gRPC; torch-clangd stubs its one entry point.
list(FILTER _clang_archives EXCLUDE REGEX "/libclangdRemote[^/]*\\.a$")
file(GLOB _llvm_archives ${LLVM_LIBRARY_DIR}/libLLVM*.a)
foreach(_lib libstdc++.a libz.a libzstd.a)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_lib}
                  OUTPUT_VARIABLE _path OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT IS_ABSOLUTE "${_path}" OR NOT EXISTS "${_path}")
    find_library(_path_${_lib} NAMES ${_lib} REQUIRED)
    set(_path ${_path_${_lib}})
  endif()
  list(APPEND _host_archives ${_path})
endforeach()

set(_bundle_options -nostdlib++ -static-libgcc -fuse-ld=lld -Wl,--strip-all
    -Wl,--gc-sections)
if(TORCH_TIDY_BUNDLE_SYSROOT)
  list(APPEND _bundle_options --sysroot=${TORCH_TIDY_BUNDLE_SYSROOT})
endif()

# Z3 ships only as a shared library: each Z3 function LLVM's archives call
# becomes a stub that stops with a message (tool/bundle/NoZ3.cpp).
execute_process(COMMAND ${LLVM_TOOLS_BINARY_DIR}/llvm-nm --undefined-only
                        --just-symbol-name ${LLVM_LIBRARY_DIR}/libLLVMSupport.a
                OUTPUT_VARIABLE _undefined ERROR_QUIET)
string(REGEX MATCHALL "Z3_[A-Za-z0-9_]+" _z3_functions "${_undefined}")
list(REMOVE_DUPLICATES _z3_functions)
list(SORT _z3_functions)
set(_z3_stubs "void torchTidyNoZ3(void);\n")
foreach(_f IN LISTS _z3_functions)
  string(APPEND _z3_stubs "void ${_f}(void) { torchTidyNoZ3(); }\n")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/bundle/Z3Stubs.c
     CONTENT "${_z3_stubs}" @ONLY)

add_library(torchTidyBundleCompat OBJECT EXCLUDE_FROM_ALL
  ${CMAKE_SOURCE_DIR}/tool/bundle/NoZ3.cpp
  ${CMAKE_SOURCE_DIR}/tool/bundle/OldGlibc.cpp
  ${CMAKE_BINARY_DIR}/bundle/Z3Stubs.c)

function(torch_tidy_bundle_executable NAME)
  add_executable(${NAME}-bundle EXCLUDE_FROM_ALL ${ARGN}
    $<TARGET_OBJECTS:torchTidyBundleCompat>)
  set_target_properties(${NAME}-bundle PROPERTIES OUTPUT_NAME ${NAME}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bundle/bin)
  target_link_options(${NAME}-bundle PRIVATE ${_bundle_options})
  target_link_libraries(${NAME}-bundle PRIVATE
    -Wl,--start-group ${_clang_archives} ${_llvm_archives} -Wl,--end-group
    ${_host_archives} -lm -lpthread -ldl -lrt)
endfunction()

torch_tidy_bundle_executable(torch-tidy $<TARGET_OBJECTS:torchTidyTool>
  $<TARGET_OBJECTS:torchTidyChecks>)
if(TORCH_TIDY_BUILD_CLANGD)
  torch_tidy_bundle_executable(torch-clangd $<TARGET_OBJECTS:torchClangdMain>
    $<TARGET_OBJECTS:torchTidyChecks>)
  # clangd's tweaks register themselves from static initialisers.
  target_link_libraries(torch-clangd-bundle PRIVATE
    -Wl,--whole-archive ${LLVM_LIBRARY_DIR}/libclangDaemonTweaks.a
    -Wl,--no-whole-archive)
endif()
