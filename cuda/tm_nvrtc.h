/*
 * tm_nvrtc.h — what NVRTC needs to compile themis's device code at run time (cuda/tm_pipeline_dev.cuh,
 * include/themis/tm_expr_eval.h): the C library headers those include, which NVRTC does not have, as
 * in-memory headers (nvrtcCreateProgram's headers / includeNames), and the options that make its code
 * the code nvcc builds (the same floating-point rules, 128-bit integers).  C and C++; no NVRTC header
 * needed, so that a caller may load libnvrtc at run time.  Used by bench/jit/constshape.cu and
 * test/unit/test_nvrtc.c.
 */
#ifndef THEMIS_TM_NVRTC_H
#define THEMIS_TM_NVRTC_H

/*
 * <stdint.h>: the fixed-width types and the limits tm_types.h and tm_expr_eval.h use (CUDA's own
 * <cuda/std/cstdint>, pulled in by cooperative_groups.h, may have defined the limits first)
 */
#define TM_NVRTC_STDINT \
	"#pragma once\n" \
	"typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n" \
	"typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n" \
	"typedef unsigned long long uint64_t; typedef long long intptr_t; typedef unsigned long long uintptr_t;\n" \
	"#ifndef INT16_MIN\n" \
	"#define INT16_MIN (-32767 - 1)\n#define INT16_MAX 32767\n" \
	"#define INT32_MIN (-2147483647 - 1)\n#define INT32_MAX 2147483647\n" \
	"#define INT64_MIN (-9223372036854775807LL - 1)\n#define INT64_MAX 9223372036854775807LL\n" \
	"#define UINT64_MAX 18446744073709551615ULL\n#define INT64_C(c) c##LL\n#define UINT64_C(c) c##ULL\n" \
	"#endif\n"
#define TM_NVRTC_FLOAT \
	"#pragma once\n#define DBL_MAX 1.7976931348623157e+308\n#define FLT_MAX 3.402823466e+38F\n"
#define TM_NVRTC_MATH \
	"#pragma once\n#define HUGE_VAL (__longlong_as_double(0x7ff0000000000000LL))\n"
#define TM_NVRTC_EMPTY "#pragma once\n"

#define TM_NVRTC_NHEADERS 6
static const char *const tm_nvrtc_headers[TM_NVRTC_NHEADERS] = {
	TM_NVRTC_STDINT, TM_NVRTC_EMPTY, TM_NVRTC_EMPTY, TM_NVRTC_MATH, TM_NVRTC_FLOAT, TM_NVRTC_EMPTY
};
static const char *const tm_nvrtc_header_names[TM_NVRTC_NHEADERS] = {
	"stdint.h", "stdbool.h", "stddef.h", "math.h", "float.h", "string.h"
};

/*
 * Options besides the architecture and the include paths: device code by default, no fused
 * multiply-add (tm_expr_eval.h: PostgreSQL never contracts a * b + c), C++17, __int128 (numerics)
 */
#define TM_NVRTC_NOPTS 4
static const char *const tm_nvrtc_opts[TM_NVRTC_NOPTS] = {
	"-default-device", "--fmad=false", "-std=c++17", "--device-int128"
};

#endif							/* THEMIS_TM_NVRTC_H */
