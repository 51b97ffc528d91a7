#!/bin/sh
# embed-headers.sh OUT NAME=FILE ... — themis's headers as C string literals (cuda/tm_jit_headers.inc),
# for NVRTC's in-memory headers: cuda/tm_jit.cu compiles the kernels it generates against them, so the
# daemon needs no source tree at run time.  NAME is the name the sources #include it by.
set -e
out=$1
shift
{
	echo "/* made by scripts/embed-headers.sh; do not edit */"
	echo "static const char *const tm_jit_header_names[] = {"
	n=0
	for a in "$@"; do
		echo "	\"${a%%=*}\","
		n=$((n + 1))
	done
	echo "};"
	echo "static const char *const tm_jit_header_srcs[] = {"
	for a in "$@"; do
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/	"/' -e 's/$/\\n"/' "${a#*=}"
		echo "	,"
	done
	echo "};"
	echo "#define TM_JIT_NHEADERS $n"
} > "$out.tmp"
mv "$out.tmp" "$out"
