# Script mode helper for fovea_embed: IN, OUT, SYM are passed with -D.
# IN is one file, or several joined by '|': then the first ones are page-kit
# libraries (assets/js/lib/) and the last is a page script, embedded as
#   (() => { <libraries>; return (<script>); })()
# so the script sees the kit's constants and keeps its own expression shape.
string(REPLACE "|" ";" _files "${IN}")
list(LENGTH _files _nf)
if(_nf GREATER 1)
    math(EXPR _last "${_nf} - 1")
    list(GET _files ${_last} _main)
    list(REMOVE_AT _files ${_last})
    set(_text "(() => {\n")
    foreach(_lib ${_files})
        file(READ "${_lib}" _t)
        string(APPEND _text "${_t}\n;\n")
    endforeach()
    file(READ "${_main}" _t)
    # Trailing comments and a final semicolon must not end up inside `return (...)`.
    string(REGEX REPLACE "[ \t\r\n;]+$" "" _t "${_t}")
    string(APPEND _text "return (\n${_t}\n);\n})()\n")
    set(_tmp "${OUT}.js")
    file(WRITE "${_tmp}" "${_text}")
    file(READ "${_tmp}" _hex HEX)
else()
    file(READ "${IN}" _hex HEX)
endif()
string(LENGTH "${_hex}" _n)
math(EXPR _bytes "${_n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _arr "${_hex}")
# Break the initialiser into lines of 16 bytes to keep the file readable.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" _arr "${_arr}")
file(WRITE "${OUT}" "/* Generated from ${IN}; do not edit. */\n#include <stddef.h>\n"
    "extern const unsigned char ${SYM}[];\nextern const size_t ${SYM}_len;\n"
    "const unsigned char ${SYM}[] = {\n${_arr}0x00};\n"
    "const size_t ${SYM}_len = ${_bytes};\n")
