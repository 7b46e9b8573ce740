#!/bin/sh
# test_jit_arm.sh - the Armv8 code generator: cross-compile test_jit.c
# with jit.c statically and run it under qemu-aarch64.  Skips (77) when
# the cross compiler or qemu is missing.
# usage: test_jit_arm.sh SRCDIR BUILDDIR
src=$1 out=$2/test_jit_arm
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || { echo "no aarch64-linux-gnu-gcc"; exit 77; }
command -v qemu-aarch64 >/dev/null 2>&1 || { echo "no qemu-aarch64"; exit 77; }
aarch64-linux-gnu-gcc -std=gnu11 -O2 -Wall -Wextra -static \
	-I"$src/tools/calibrate" "$src/tools/calibrate/jit.c" \
	"$src/tests/calibrate/test_jit.c" -o "$out" || exit 1
qemu-aarch64 "$out"
