# The chat page served at GET / (web/): web/build.mjs bundles its sources with the packages
# pinned in web/package-lock.json (installed by `npm ci` in web/) and writes the C++ source
# that embeds the files (CRUX_WEBUI_SOURCE, compiled into crux_server; src/CMakeLists.txt
# calls crux_webui_generate() where that target is made, since a generated source needs its
# rule in the directory of the target that compiles it). Without node or
# web/node_modules the binary has no page: GET / answers one line of text, as with
# `crux serve --no-webui`.
option(CRUX_WEBUI "Embed the chat page served at GET / (needs node and `npm ci` in web/)" ON)
set(CRUX_WEBUI_SOURCE "")
set(CRUX_WEBUI_DIR ${PROJECT_SOURCE_DIR}/web)
find_program(CRUX_WEBUI_NODE node)
if(CRUX_WEBUI AND CRUX_WEBUI_NODE AND EXISTS ${CRUX_WEBUI_DIR}/node_modules/esbuild)
  file(GLOB CRUX_WEBUI_INPUTS CONFIGURE_DEPENDS ${CRUX_WEBUI_DIR}/src/*)
  set(CRUX_WEBUI_SOURCE ${CMAKE_BINARY_DIR}/webui/webui_assets.cc)
endif()
if(CRUX_WEBUI AND NOT CRUX_WEBUI_SOURCE)
  message(WARNING "the chat page is not embedded (no node, or no web/node_modules: run "
                  "`npm ci` in web/); GET / answers a line of text")
endif()

function(crux_webui_generate)
  if(NOT CRUX_WEBUI_SOURCE)
    return()
  endif()
  add_custom_command(
    OUTPUT ${CRUX_WEBUI_SOURCE} ${CMAKE_BINARY_DIR}/webui/sizes.json
    COMMAND ${CRUX_WEBUI_NODE} ${CRUX_WEBUI_DIR}/build.mjs --out ${CMAKE_BINARY_DIR}/webui
            --cc ${CRUX_WEBUI_SOURCE}
    DEPENDS ${CRUX_WEBUI_INPUTS} ${CRUX_WEBUI_DIR}/build.mjs ${CRUX_WEBUI_DIR}/index.html
            ${CRUX_WEBUI_DIR}/package-lock.json
    COMMENT "Bundling the chat page (web/)"
    VERBATIM)
endfunction()
