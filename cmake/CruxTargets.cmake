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
  # -fno-sanitize=vptr: on a miss in its type cache, UBSan's vptr check probes the vtable's
  # memory through a pipe. With no descriptors left (what the server's EMFILE handling is
  # tested with) the probe fails and a valid Boost.System error category is reported as a type
  # error, killing the server under test.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-fno-sanitize=function,vptr)
  endif()
endif()

# crux_library(<name> SOURCES ... DEPS ... [FOLDER <folder>]): one module folder = one target
# crux_<name>, in src/<name with "_" as "/"> (parse_tools: src/parse/tools/) unless FOLDER names
# it (chat_template: src/chat_template/). Public headers are in include/;
# the module's private headers are reachable only from its own sources: the target's private
# include directory holds links to them alone (see crux_stage_private_headers), so including
# another module's private header does not compile.
function(crux_library name)
  cmake_parse_arguments(ARG "" "FOLDER" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(crux_${name} STATIC ${ARG_SOURCES})
  target_include_directories(crux_${name}
    PUBLIC ${PROJECT_SOURCE_DIR}/include
    PRIVATE ${CMAKE_BINARY_DIR}/private/crux_${name})
  target_compile_options(crux_${name} PRIVATE ${CRUX_WARNINGS})
  target_link_libraries(crux_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_property(GLOBAL APPEND PROPERTY CRUX_MODULES ${name})
  if(ARG_FOLDER)
    set_property(GLOBAL PROPERTY CRUX_MODULE_FOLDER_${name} ${ARG_FOLDER})
  endif()
endfunction()

# The source folder of module <name> (relative to src/).
function(crux_module_folder name out)
  get_property(folder GLOBAL PROPERTY CRUX_MODULE_FOLDER_${name})
  if(NOT folder)
    string(REPLACE "_" "/" folder ${name})
  endif()
  set(${out} ${folder} PARENT_SCOPE)
endfunction()

# Called once after every crux_library(): links each module's private headers
# (src/<folder>/**.h, less the folders of modules nested in it) into
# <build>/private/crux_<name>/<same path>, so `#include "server/session.h"` resolves in
# crux_server and nowhere else. Unit and fuzz tests keep src/ on their path (they may test
# internals); tests/lint/include_check.cmake holds them, apps/ and bench/ to the same rule.
function(crux_stage_private_headers)
  get_property(modules GLOBAL PROPERTY CRUX_MODULES)
  set(src ${PROJECT_SOURCE_DIR}/src)
  foreach(name IN LISTS modules)
    crux_module_folder(${name} folder)
    set(dir ${CMAKE_BINARY_DIR}/private/crux_${name})
    file(REMOVE_RECURSE ${dir})
    file(MAKE_DIRECTORY ${dir})
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE ${src} ${src}/${folder}/*.h)
    foreach(header IN LISTS headers)
      set(own TRUE)
      foreach(other IN LISTS modules)
        crux_module_folder(${other} other_folder)
        if(other_folder MATCHES "^${folder}/" AND header MATCHES "^${other_folder}/")
          set(own FALSE)  # a nested module's header
        endif()
      endforeach()
      if(own)
        get_filename_component(parent ${dir}/${header} DIRECTORY)
        file(MAKE_DIRECTORY ${parent})
        file(CREATE_LINK ${src}/${header} ${dir}/${header} SYMBOLIC)
      endif()
    endforeach()
  endforeach()
endfunction()
