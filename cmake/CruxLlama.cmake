# llama.cpp, for the in-process engine (src/engine/llama) and `crux smoke-model`.
#
#   CRUX_LLAMA                 AUTO (default): build the engine when llama.cpp is found;
#                              ON: fail when it is not; OFF: never (mock engine only)
#   CRUX_LLAMA_CPP_SOURCE_DIR  a llama.cpp source tree, built with crux (add_subdirectory:
#                              libllama + ggml only, static)
#   otherwise                  an installed llama.cpp through find_package(llama): a system
#                              install, or scripts/build-llama-cpp.sh's prefix given as
#                              CMAKE_PREFIX_PATH
#
# Sets CRUX_HAVE_LLAMA, and CRUX_LLAMA_OPENMP where ggml runs its threads with OpenMP: the
# engine then runs the slots' sampling steps on the same OpenMP threads.
set(CRUX_LLAMA "AUTO" CACHE STRING "llama.cpp engine: AUTO, ON or OFF")
set_property(CACHE CRUX_LLAMA PROPERTY STRINGS AUTO ON OFF)
set(CRUX_LLAMA_CPP_SOURCE_DIR "" CACHE PATH "A llama.cpp source tree to build with crux")
set(CRUX_HAVE_LLAMA OFF)
set(CRUX_LLAMA_OPENMP OFF)

if(CRUX_LLAMA STREQUAL "OFF")
  return()
endif()

if(CRUX_LLAMA_CPP_SOURCE_DIR)
  foreach(option LLAMA_BUILD_COMMON LLAMA_BUILD_TESTS LLAMA_BUILD_TOOLS LLAMA_BUILD_EXAMPLES
                 LLAMA_BUILD_SERVER LLAMA_BUILD_APP LLAMA_OPENSSL)
    set(${option} OFF CACHE BOOL "" FORCE)
  endforeach()
  # ggml and libllama are third-party code: no sanitizers, warnings or fuzzing flags of ours.
  set(crux_saved_shared ${BUILD_SHARED_LIBS})
  set(BUILD_SHARED_LIBS OFF)
  add_subdirectory(${CRUX_LLAMA_CPP_SOURCE_DIR} llama.cpp EXCLUDE_FROM_ALL SYSTEM)
  set(BUILD_SHARED_LIBS ${crux_saved_shared})
  set(CRUX_HAVE_LLAMA ON)
else()
  if(CRUX_LLAMA STREQUAL "ON")
    find_package(llama REQUIRED)
  else()
    find_package(llama QUIET)
  endif()
  if(TARGET llama)
    set(CRUX_HAVE_LLAMA ON)
  endif()
endif()

if(CRUX_HAVE_LLAMA AND (GGML_OPENMP_ENABLED OR (CRUX_LLAMA_CPP_SOURCE_DIR AND GGML_OPENMP)))
  # The same OpenMP runtime as ggml's, so that both use one pool of threads.
  if(NOT TARGET OpenMP::OpenMP_CXX)
    find_package(OpenMP QUIET COMPONENTS CXX)
  endif()
  if(TARGET OpenMP::OpenMP_CXX)
    set(CRUX_LLAMA_OPENMP ON)
  endif()
endif()

if(CRUX_HAVE_LLAMA)
  message(STATUS "crux: llama.cpp engine enabled (sampling on OpenMP threads: ${CRUX_LLAMA_OPENMP})")
else()
  message(STATUS "crux: llama.cpp not found: building without the llama.cpp engine "
                 "(scripts/build-llama-cpp.sh builds it; pass its prefix as CMAKE_PREFIX_PATH)")
endif()
