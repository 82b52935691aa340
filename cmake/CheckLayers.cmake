# cmake/CheckLayers.cmake: the module layering as a build fact (ctest
# `layering_includes`; run by hand with `cmake -DROOT=<repo> -P cmake/CheckLayers.cmake`).
#
# Fails, naming file and line, when
#   - a file includes another module's private header (`*_int.h`): a header
#     ending in _int.h is shared by the files of its own folder only. Tests
#     and benchmarks (tests/, bench/) are white-box and may include them;
#   - a module includes a module it may not (the order of DESIGN.md):
#       base                                  libc only
#       cdp, model, image, snapper, motion    base   (image, snapper, motion: pure)
#       perception                            base, cdp, model, image, snapper
#       cascade                               base, cdp, model, image, snapper, motion, perception
#       agent                                 everything above
#       serve (the loopback HTTP server)      base; only tools/ may use it
#       record (the snapshot case format)     base, cdp, snapper; only tools/
#       mcp (the MCP server)                  everything below agent, session, serve;
#                                             only tools/
#       tools                                 everything (public headers only)
#     so nothing below agent includes agent, and snapper/ and motion/
#     include only base/. agent/ is three rooms, each a module of its own:
#       session (agent/session: the tool layer)   everything below agent
#       script  (agent/script: the task runner)   session and below
#       plan    (agent/plan: the planners)         session and below
#     so the tool layer includes neither runner, and the two runners do not
#     include each other;
#   - a module's CMakeLists.txt links (fovea_module DEPS) a module it may
#     not include: a link edge may not point up either.
# Plain CMake, so it needs nothing the build does not already need.
cmake_minimum_required(VERSION 3.16)
if(NOT ROOT)
    message(FATAL_ERROR "usage: cmake -DROOT=<repo> -P CheckLayers.cmake")
endif()

set(_modules base cdp model image snapper motion perception cascade session script plan record serve mcp tools)
# A module's folder: its name, or agent/<name> for the agent's rooms.
foreach(_m ${_modules})
    set(_dir_${_m} ${_m})
endforeach()
set(_dir_session agent/session)
set(_dir_script agent/script)
set(_dir_plan agent/plan)
set(_allow_base "")
set(_allow_cdp base)
set(_allow_model base)
set(_allow_image base)
set(_allow_snapper base)
set(_allow_motion base)
set(_allow_perception base cdp model image snapper)
set(_allow_cascade base cdp model image snapper motion perception)
set(_allow_session base cdp model image snapper motion perception cascade)
set(_allow_script ${_allow_session} session)
set(_allow_plan ${_allow_session} session)
set(_allow_serve base)
set(_allow_record base cdp snapper)
set(_allow_mcp ${_allow_session} session serve)
set(_allow_tools base cdp model image snapper motion perception cascade session script plan record serve mcp)

set(_bad "")
set(_nfiles 0)

# Every #include "M/..." of every source and header of each module.
foreach(_m ${_modules})
    file(GLOB _files ${ROOT}/${_dir_${_m}}/*.c ${ROOT}/${_dir_${_m}}/*.h)
    foreach(_f ${_files})
        math(EXPR _nfiles "${_nfiles} + 1")
        file(STRINGS ${_f} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
        file(RELATIVE_PATH _rel ${ROOT} ${_f})
        foreach(_l ${_lines})
            if(_l MATCHES "#[ \t]*include[ \t]*\"agent/([a-z_]+)/([^\"]+)\"")
                set(_to ${CMAKE_MATCH_1})
                set(_hdr ${CMAKE_MATCH_2})
            elseif(_l MATCHES "#[ \t]*include[ \t]*\"([a-z_]+)/([^\"]+)\"")
                set(_to ${CMAKE_MATCH_1})
                set(_hdr ${CMAKE_MATCH_2})
                if(_to STREQUAL "agent")
                    list(APPEND _bad "${_rel}: includes agent/${_hdr}: agent/ has no headers of its own, only its rooms'")
                    continue()
                endif()
            else()
                continue()
            endif()
            if(NOT _to IN_LIST _modules OR _to STREQUAL _m)
                continue()
            endif()
            if(_hdr MATCHES "_int\\.h$")
                list(APPEND _bad "${_rel}: includes ${_to}/${_hdr}, private to ${_to}/")
            elseif(NOT _to IN_LIST _allow_${_m})
                string(REPLACE ";" ", " _ok "${_allow_${_m}}")
                list(APPEND _bad "${_rel}: includes ${_to}/${_hdr}, but ${_m}/ may include only: ${_ok}")
            endif()
        endforeach()
    endforeach()
endforeach()

# Link edges: the fovea_* libraries named after DEPS in each module's
# fovea_module() call.
foreach(_m ${_modules})
    set(_cml ${ROOT}/${_dir_${_m}}/CMakeLists.txt)
    if(NOT EXISTS ${_cml})
        continue()
    endif()
    file(READ ${_cml} _text)
    # Comments name libraries too; only code lines count.
    string(REGEX REPLACE "#[^\n]*" "" _text "${_text}")
    string(REGEX MATCHALL "fovea_([a-z]+)" _libs "${_text}")
    foreach(_lib ${_libs})
        string(REGEX REPLACE "^fovea_" "" _to "${_lib}")
        if(_to IN_LIST _modules AND NOT _to STREQUAL _m AND NOT _to IN_LIST _allow_${_m})
            string(REPLACE ";" ", " _ok "${_allow_${_m}}")
            list(APPEND _bad "${_m}/CMakeLists.txt: links ${_lib}, but ${_m}/ may depend only on: ${_ok}")
        endif()
    endforeach()
endforeach()

# White-box code outside the modules may include private headers, but the
# CLI (tools/) is checked above like a module: public headers only.
if(_bad)
    list(REMOVE_DUPLICATES _bad)
    list(LENGTH _bad _n)
    string(REPLACE ";" "\n  " _msg "${_bad}")
    message(FATAL_ERROR "layering: ${_n} violation(s):\n  ${_msg}")
endif()
message(STATUS "layering: ${_nfiles} files, includes and link edges follow the module order")
