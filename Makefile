# Makefile — builds themis: the PostgreSQL extension (PGXS, gcc) and the GPU daemon (nvcc, optional).
#
#   make                 themis.so from src/*.c (no CUDA in it: backends never touch the GPU), and, when
#                        nvcc is found (CUDA=no: not), themis-gpud from src/gpud/*.c + cuda/*.cu with the
#                        CUDA runtime linked statically (libcuda is found at run time)
#   make install         into the PostgreSQL that $(PG_CONFIG) describes (themis-gpud into its bindir)
#   make installcheck    pg_regress (sql/*.sql) on a temporary instance that preloads themis
#                        (test/themis.conf); it cannot run as root
#   make unittest        engine unit tests: test/unit/test_*.c (gcc, no PostgreSQL headers), and
#                        test/unit/gpu_*.cu (nvcc; run only where a GPU is usable)
#
# Variables (make VAR=value):
#   PG_CONFIG    pg_config of the target PostgreSQL (default: pg_config on PATH)
#   CUDA         auto (default: use nvcc if found) | yes (fail without nvcc) | no (CPU-only build)
#   CUDA_HOME    CUDA toolkit root (default /usr/local/cuda); NVCC: the compiler (default: nvcc on
#                PATH, else $(CUDA_HOME)/bin/nvcc)
#   CUDA_ARCHS   SM versions to build machine code for (default "80 90"); PTX is added for the last
#                one.  On the GPU host: make CUDA_ARCHS=90
#   NVCCFLAGS    extra nvcc flags (default -O3)

MODULE_big = themis
EXTENSION = themis
DATA = themis--0.1.sql
PGFILEDESC = "themis - analytic query offload"

PG_CONFIG ?= pg_config

# No LLVM bitcode (JIT inlining) for our objects: clang is not required and .cu has no bitcode.
override with_llvm = no

C_SRCS := $(sort $(wildcard src/*.c))
OBJS = $(C_SRCS:.c=.o)

# ---- CUDA ----
CUDA ?= auto
CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; } || true)
CUDA_ARCHS ?= 80 90
NVCCFLAGS ?= -O3

ifeq ($(CUDA),no)
WITH_CUDA := no
else ifneq ($(strip $(NVCC)),)
WITH_CUDA := yes
else ifeq ($(CUDA),yes)
$(error CUDA=yes but nvcc was not found: set NVCC or CUDA_HOME)
else
WITH_CUDA := no
endif

# cuda/tm_eval_kernel.cu needs the shared evaluation headers; skip it while they do not exist yet.
CU_SRCS := $(sort $(wildcard cuda/*.cu))
ifeq ($(and $(wildcard include/themis/tm_expr_eval.h),$(wildcard include/themis/tm_hash.h)),)
CU_SRCS := $(filter-out cuda/tm_eval_kernel.cu,$(CU_SRCS))
endif
CU_OBJS = $(CU_SRCS:.cu=.o)

TM_HEADERS := $(wildcard include/themis/*.h)

NVCC_GENCODE = $(foreach a,$(CUDA_ARCHS),-gencode arch=compute_$(a),code=sm_$(a)) \
	-gencode arch=compute_$(lastword $(CUDA_ARCHS)),code=compute_$(lastword $(CUDA_ARCHS))
# --fmad=false: no fused multiply-add, floats must round exactly as PostgreSQL (tm_expr_eval.h)
NVCC_ALLFLAGS = $(NVCC_GENCODE) -std=c++17 --fmad=false -Xcompiler -fPIC -Xcompiler -Wall -Iinclude $(NVCCFLAGS)
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -lrt -ldl -lpthread -lstdc++

# ---- the GPU daemon ----
GPUD_SRCS := $(sort $(wildcard src/gpud/*.c))
GPUD_OBJS = $(GPUD_SRCS:.c=.o)
GPUD_CFLAGS = -O2 -g -Wall -Wno-format-truncation -Wmissing-prototypes -pthread -Iinclude -Icuda -I$(CUDA_HOME)/include
ifeq ($(WITH_CUDA),yes)
GPUD_BIN = themis-gpud
else
GPUD_BIN =
endif

# Rebuild everything when the CUDA configuration changes (e.g. make, then make CUDA=no).  Goals that
# build nothing leave the recorded configuration alone: pg-portable.sh's regress reads REGRESS through a
# print-regress goal with the default CUDA_ARCHS, which made the next `make CUDA_ARCHS=90` rebuild all.
BUILD_CONFIG := cuda=$(WITH_CUDA) nvcc=$(NVCC) archs=$(CUDA_ARCHS) nvccflags=$(NVCCFLAGS)
ifneq ($(if $(MAKECMDGOALS),$(filter-out print-% clean distclean,$(MAKECMDGOALS)),all),)
ifneq ($(BUILD_CONFIG),$(shell cat .build-config 2>/dev/null))
$(shell echo '$(BUILD_CONFIG)' > .build-config 2>/dev/null)
endif
endif

PG_CPPFLAGS += -I$(srcdir)/include -I$(srcdir)/src -I$(srcdir)/cuda

# PostgreSQL unpacked from .deb files into a prefix (scripts/gpu-host.sh): headers that the server
# headers include (ICU's unicode/*.h, from libicu-dev) may exist only under that prefix.  Searched
# after the system directories, so the host's own headers win.
PG_INCDIR_PARENT := $(patsubst %/,%,$(dir $(shell $(PG_CONFIG) --includedir 2>/dev/null)))
ifneq ($(PG_INCDIR_PARENT),/usr/include)
ifneq ($(wildcard $(PG_INCDIR_PARENT)/unicode/ucol.h),)
PG_CPPFLAGS += -idirafter $(PG_INCDIR_PARENT)
endif
endif

# ---- pg_regress: every sql/*.sql, in name order, on a temporary instance preloading themis ----
REGRESS = $(sort $(basename $(notdir $(wildcard sql/*.sql))))
REGRESS_OPTS = --temp-instance=./tmp_check --temp-config=$(CURDIR)/test/themis.conf \
	--no-locale --encoding=UTF8

EXTRA_CLEAN = test/unit/bin bench/join/bin/xover cuda/*.o src/gpud/*.o themis-gpud .build-config cuda/tm_jit_headers.inc

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

cuda/%.o: cuda/%.cu $(wildcard cuda/*.h cuda/*.cuh) $(TM_HEADERS)
	$(NVCC) $(NVCC_ALLFLAGS) -c $< -o $@

# the headers the kernels generated at run time are compiled against (cuda/tm_jit.cu), as strings
JIT_HEADERS = tm_pipeline_dev.cuh=cuda/tm_pipeline_dev.cuh tm_gpu_exec.h=cuda/tm_gpu_exec.h \
	$(foreach h,$(TM_HEADERS),themis/$(notdir $(h))=$(h))
cuda/tm_jit_headers.inc: scripts/embed-headers.sh cuda/tm_pipeline_dev.cuh cuda/tm_gpu_exec.h $(TM_HEADERS)
	sh scripts/embed-headers.sh $@ $(JIT_HEADERS)
cuda/tm_jit.o: cuda/tm_jit_headers.inc

src/gpud/%.o: src/gpud/%.c src/gpud/gpud.h $(wildcard cuda/*.h) $(TM_HEADERS) .build-config
	$(CC) $(GPUD_CFLAGS) -c $< -o $@

themis-gpud: $(GPUD_OBJS) $(CU_OBJS)
	$(CC) -pthread -o $@ $(GPUD_OBJS) $(CU_OBJS) $(CUDA_LIBS) -lm

all: $(GPUD_BIN)

install: install-gpud
install-gpud: $(GPUD_BIN)
ifeq ($(WITH_CUDA),yes)
	$(MKDIR_P) '$(DESTDIR)$(bindir)'
	$(INSTALL_PROGRAM) themis-gpud '$(DESTDIR)$(bindir)/themis-gpud'
endif
.PHONY: install-gpud

# objects of src/ depend on the shared headers (PGXS knows only the .c)
$(C_SRCS:.c=.o): $(wildcard src/*.h) cuda/tm_cuda.h cuda/tm_gpu_exec.h $(TM_HEADERS) .build-config
$(CU_OBJS): .build-config

# ---- engine unit tests ----
UNIT_SRCS := $(sort $(wildcard test/unit/test_*.c))
UNIT_BINS = $(patsubst test/unit/%.c,test/unit/bin/%,$(UNIT_SRCS))
GPU_UNIT_SRCS := $(filter-out test/unit/gpu_pjoin.cu,$(sort $(wildcard test/unit/gpu_*.cu)))
UNIT_CC ?= gcc
UNIT_CFLAGS ?= -O1 -Wall -g

ifeq ($(WITH_CUDA),yes)
GPU_UNIT_BINS = $(patsubst test/unit/%.cu,test/unit/bin/%,$(GPU_UNIT_SRCS))
GPU_PROBE = test/unit/bin/probe_gpu
else
GPU_UNIT_BINS =
GPU_PROBE =
endif

# (test_gpud_cancel.c and test_gpud_pcopy.c include src/gpud/cancel.c and pcopy.c: the daemon's headers
# are needed too)
test/unit/bin/test_%: test/unit/test_%.c test/unit/tm_unit.h $(TM_HEADERS) src/gpud/gpud.h src/gpud/cancel.c src/gpud/pcopy.c cuda/tm_gpu_exec.h cuda/tm_nvrtc.h
	@mkdir -p test/unit/bin
	$(UNIT_CC) $(UNIT_CFLAGS) -pthread -Iinclude -Icuda -Itest/unit -o $@ $< -lm

# GPU tests link the CUDA objects of themis (through an archive: only what a test uses is pulled in)
test/unit/bin/libtmcuda.a: $(CU_OBJS)
	@mkdir -p test/unit/bin
	rm -f $@
	ar rcs $@ $^

test/unit/bin/gpu_%: test/unit/gpu_%.cu test/unit/tm_unit.h test/unit/bin/libtmcuda.a $(TM_HEADERS) $(wildcard cuda/*.h cuda/*.cuh)
	$(NVCC) $(NVCC_ALLFLAGS) -Icuda -Itest/unit -o $@ $< test/unit/bin/libtmcuda.a -lm -lpthread -ldl

test/unit/bin/probe_gpu: test/unit/harness/gpu_probe.c cuda/tm_device.o
	@mkdir -p test/unit/bin
	$(UNIT_CC) $(UNIT_CFLAGS) -Iinclude -Icuda -o $@ $^ $(CUDA_LIBS)

# the partitioned hash join's own randomized test (long: `make pjointest`, not in `make unittest`; the
# join inside the executor is tested by gpu_pipeline)
test/unit/bin/gpu_pjoin: test/unit/gpu_pjoin.cu cuda/tm_pjoin.o cuda/tm_pjoin.h test/unit/tm_unit.h
	@mkdir -p test/unit/bin
	$(NVCC) $(NVCC_ALLFLAGS) -Icuda -Itest/unit -o $@ test/unit/gpu_pjoin.cu cuda/tm_pjoin.o -lm

# where the partitioned join overtakes the probe in the kernel, through the executor (bench/join/xover.cu)
bench/join/bin/xover: bench/join/xover.cu test/unit/bin/libtmcuda.a $(TM_HEADERS) $(wildcard cuda/*.h)
	@mkdir -p bench/join/bin
	$(NVCC) $(NVCC_ALLFLAGS) -Icuda -o $@ $< test/unit/bin/libtmcuda.a -lm

pjointest: test/unit/bin/gpu_pjoin
	test/unit/bin/gpu_pjoin
.PHONY: pjointest

# gpu_*.cu that cannot be built (no nvcc) are reported as skipped
GPU_UNBUILT = $(if $(filter yes,$(WITH_CUDA)),,$(basename $(notdir $(GPU_UNIT_SRCS))))

unittest: $(UNIT_BINS) $(GPU_UNIT_BINS) $(GPU_PROBE)
	@GPU_UNBUILT="$(GPU_UNBUILT)" sh test/unit/harness/run.sh "$(GPU_PROBE)" $(UNIT_BINS) $(GPU_UNIT_BINS)

.PHONY: unittest
