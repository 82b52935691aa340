# Script mode helper for fovea_embed: IN, OUT, SYM are passed with -D.
file(READ "${IN}" _hex HEX)
string(LENGTH "${_hex}" _n)
math(EXPR _bytes "${_n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," _arr "${_hex}")
# Break the initialiser into lines of 16 bytes to keep the file readable.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" _arr "${_arr}")
file(WRITE "${OUT}" "/* Generated from ${IN}; do not edit. */\n#include <stddef.h>\n"
    "extern const unsigned char ${SYM}[];\nextern const size_t ${SYM}_len;\n"
    "const unsigned char ${SYM}[] = {\n${_arr}0x00};\n"
    "const size_t ${SYM}_len = ${_bytes};\n")
