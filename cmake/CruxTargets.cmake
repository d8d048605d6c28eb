# Helpers that give every crux target the same flags.

set(CRUX_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wimplicit-fallthrough)
if(CRUX_WERROR)
  list(APPEND CRUX_WARNINGS -Werror)
endif()

if(CRUX_BUILD_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "CRUX_BUILD_FUZZ needs clang (configure with CMAKE_CXX_COMPILER=clang++)")
  endif()
  # Coverage instrumentation for libFuzzer in every library; fuzz targets add the driver.
  add_compile_options(-fsanitize=fuzzer-no-link)
  set(CRUX_SANITIZE ON)
endif()

if(CRUX_SANITIZE)
  # -fno-sanitize=function: clang 14's function sanitizer cannot compile C++20 coroutines
  # ("Cannot represent a difference across sections"), which the server uses.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-fno-sanitize=function)
  endif()
endif()

# crux_library(<name> SOURCES ... DEPS ...): one module folder = one target crux_<name>.
function(crux_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(crux_${name} STATIC ${ARG_SOURCES})
  target_include_directories(crux_${name}
    PUBLIC ${PROJECT_SOURCE_DIR}/include
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(crux_${name} PRIVATE ${CRUX_WARNINGS})
  target_link_libraries(crux_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()
