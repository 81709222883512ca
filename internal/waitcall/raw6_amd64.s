#include "textflag.h"

// func Raw6(trap, a1, a2, a3, a4, a5, a6 uintptr) uintptr
//
// The system call with its arguments in the registers of the x86-64 Linux
// system call convention (syscall(2)); the kernel's RAX is the result.
TEXT ·Raw6(SB),NOSPLIT,$0-64
	MOVQ	a1+8(FP), DI
	MOVQ	a2+16(FP), SI
	MOVQ	a3+24(FP), DX
	MOVQ	a4+32(FP), R10
	MOVQ	a5+40(FP), R8
	MOVQ	a6+48(FP), R9
	MOVQ	trap+0(FP), AX
	SYSCALL
	MOVQ	AX, ret+56(FP)
	RET
